/* engine/core/rowadd_avx2.c: the row additions for AVX2: rowadd_scalar.c's loops, which the
 * compiler vectorizes with this file's -mavx2 (cmake/VtIsa.cmake). Keep them the same as
 * rowadd_scalar.c's (tests/test_isa_rowadd.c checks the bits).
 * The row sums are intrinsics, so that their sums stay in registers. */
#include <immintrin.h>

#include "core/rowadd.h"

static void add_f64_avx2(double *restrict dst, const double *restrict src, size_t n) {
  for (size_t i = 0; i < n; i++) dst[i] += src[i];
}

static void add_f32_avx2(double *restrict dst, const float *restrict src, size_t n) {
  for (size_t i = 0; i < n; i++) dst[i] += (double)src[i];
}

/* Blocks of 4 vectors of 4 sums, in registers while the rows are added; masked loads and stores
 * at a block's end read and write nothing past n. */
static void sum_f32_avx2(double *restrict dst, const float *const *rows, size_t n_rows, size_t n,
                         int onto) {
  const __m128i lanes = _mm_setr_epi32(0, 1, 2, 3);
  for (size_t i0 = 0; i0 < n; i0 += 16) {
    __m128i m32[4];
    __m256d acc[4];
    for (int v = 0; v < 4; v++) {
      const size_t at = i0 + 4 * (size_t)v, left = at < n ? n - at : 0;
      m32[v] = _mm_cmplt_epi32(lanes, _mm_set1_epi32(left >= 4 ? 4 : (int)left));
      acc[v] = _mm256_setzero_pd();
    }
    if (onto) /* a branch, not a select: a row summed from zero is not read */
      for (int v = 0; v < 4; v++)
        acc[v] = _mm256_maskload_pd(dst + i0 + 4 * (size_t)v, _mm256_cvtepi32_epi64(m32[v]));
    for (size_t r = 0; r < n_rows; r++) {
      const float *s = rows[r] + i0;
      for (int v = 0; v < 4; v++)
        acc[v] = _mm256_add_pd(acc[v], _mm256_cvtps_pd(_mm_maskload_ps(s + 4 * v, m32[v])));
    }
    for (int v = 0; v < 4; v++)
      _mm256_maskstore_pd(dst + i0 + 4 * v, _mm256_cvtepi32_epi64(m32[v]), acc[v]);
  }
}

const vt_rowadd_ops vt_rowadd_avx2 = {VT_SIMD_AVX2, add_f64_avx2, add_f32_avx2, sum_f32_avx2};
