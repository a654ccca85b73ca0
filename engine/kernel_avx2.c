/* engine/kernel_avx2.c: the max-plus kernel for AVX2, 4 doubles per vector, register-blocked
 * like the AVX-512 one (16 ymm registers: blocks of up to 4 vectors). */
#include <immintrin.h>
#include <math.h>

#include "kernel.h"

#define W 4

static inline __attribute__((always_inline)) void block256(const double *prev, int32_t n_prev,
                                                           const double *M, int64_t ldm,
                                                           const double *add, int32_t j0,
                                                           int32_t n_cur, double *out,
                                                           int32_t *arg, const int nv) {
  __m256d best[4], idx[4];
  const __m256d p0 = _mm256_set1_pd(prev[0]);
  for (int v = 0; v < nv; v++) {
    best[v] = _mm256_add_pd(p0, _mm256_loadu_pd(M + j0 + v * W));
    idx[v] = _mm256_setzero_pd();
  }
  for (int32_t i = 1; i < n_prev; i++) {
    if (prev[i] == -INFINITY) continue;
    const __m256d p = _mm256_set1_pd(prev[i]);
    const __m256d iv = _mm256_set1_pd((double)i);
    const double *row = M + (int64_t)i * ldm + j0;
    for (int v = 0; v < nv; v++) {
      __m256d x = _mm256_add_pd(p, _mm256_loadu_pd(row + v * W));
      __m256d gt = _mm256_cmp_pd(x, best[v], _CMP_GT_OQ);
      best[v] = _mm256_blendv_pd(best[v], x, gt);
      idx[v] = _mm256_blendv_pd(idx[v], iv, gt);
    }
  }
  for (int v = 0; v < nv; v++) {
    int32_t j = j0 + v * W;
    int32_t left = n_cur - j;
    __m256d b = best[v];
    __m128i a = _mm256_cvtpd_epi32(idx[v]);
    if (left >= W) {
      if (add) b = _mm256_add_pd(b, _mm256_loadu_pd(add + j));
      _mm256_storeu_pd(out + j, b);
      _mm_storeu_si128((__m128i *)(arg + j), a);
    } else {
      const __m128i lanes = _mm_setr_epi32(0, 1, 2, 3);
      __m128i m32 = _mm_cmplt_epi32(lanes, _mm_set1_epi32(left));
      __m256i m64 = _mm256_cvtepi32_epi64(m32);
      if (add) b = _mm256_add_pd(b, _mm256_maskload_pd(add + j, m64));
      _mm256_maskstore_pd(out + j, m64, b);
      _mm_maskstore_epi32(arg + j, m32, a);
    }
  }
}

static void maxplus_avx2(const double *prev, int32_t n_prev, const double *M, int64_t ldm,
                         const double *add, int32_t n_cur, double *out, int32_t *arg) {
  int32_t j0 = 0;
  for (; j0 + 4 * W <= n_cur; j0 += 4 * W)
    block256(prev, n_prev, M, ldm, add, j0, n_cur, out, arg, 4);
  int32_t rest = (n_cur - j0 + W - 1) / W; /* 0..4 vectors, the last maybe partial */
  for (; rest >= 2; rest -= 2, j0 += 2 * W)
    block256(prev, n_prev, M, ldm, add, j0, n_cur, out, arg, 2);
  if (rest == 1) block256(prev, n_prev, M, ldm, add, j0, n_cur, out, arg, 1);
}

const vt_kernels vt_kernels_avx2 = {VT_SIMD_AVX2, maxplus_avx2};
