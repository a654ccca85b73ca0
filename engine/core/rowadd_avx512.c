/* engine/core/rowadd_avx512.c: the row additions for AVX-512: rowadd_scalar.c's loops, which
 * the compiler vectorizes with this file's AVX-512 flags (cmake/VtIsa.cmake). Keep them
 * the same as rowadd_scalar.c's (tests/test_isa_rowadd.c checks the bits).
 * The row sums are intrinsics, so that their sums stay in registers. */
#include <immintrin.h>

#include "core/rowadd.h"

static void add_f64_avx512(double *restrict dst, const double *restrict src, size_t n) {
  for (size_t i = 0; i < n; i++) dst[i] += src[i];
}

static void add_f32_avx512(double *restrict dst, const float *restrict src, size_t n) {
  for (size_t i = 0; i < n; i++) dst[i] += (double)src[i];
}

/* Blocks of 4 vectors of 8 sums, in registers while the rows are added; masked loads and stores
 * at a block's end read and write nothing past n. */
static void sum_f32_avx512(double *restrict dst, const float *const *rows, size_t n_rows, size_t n,
                           int onto) {
  for (size_t i0 = 0; i0 < n; i0 += 32) {
    __mmask8 m[4];
    __m512d acc[4];
    for (int v = 0; v < 4; v++) {
      const size_t at = i0 + 8 * (size_t)v, left = at < n ? n - at : 0;
      m[v] = left >= 8 ? (__mmask8)0xFF : (__mmask8)((1u << left) - 1u);
      acc[v] = _mm512_setzero_pd();
    }
    if (onto) /* a branch, not a select: a row summed from zero is not read */
      for (int v = 0; v < 4; v++) acc[v] = _mm512_maskz_loadu_pd(m[v], dst + i0 + 8 * v);
    for (size_t r = 0; r < n_rows; r++) {
      const float *s = rows[r] + i0;
      for (int v = 0; v < 4; v++)
        acc[v] = _mm512_add_pd(acc[v], _mm512_cvtps_pd(_mm256_maskz_loadu_ps(m[v], s + 8 * v)));
    }
    for (int v = 0; v < 4; v++) _mm512_mask_storeu_pd(dst + i0 + 8 * v, m[v], acc[v]);
  }
}

const vt_rowadd_ops vt_rowadd_avx512 = {VT_SIMD_AVX512, add_f64_avx512, add_f32_avx512,
                                        sum_f32_avx512};
