/* engine/chunk/chunk_simd_avx2.c: the label-table step for AVX2, 4 chunk starts per vector.
 * Built with -mavx2 (cmake/VtIsa.cmake, x86-64 only); nothing here runs unless the dispatcher saw
 * the CPU run it. */
#include <immintrin.h>

#include "chunk/chunk_simd.h"

#define W 4

/* Lanes [j, j + W) masked down to the first `left` of them (left >= 1). */
static inline __m256i lane_mask(int32_t left) {
  const __m256i lanes = _mm256_setr_epi64x(0, 1, 2, 3);
  return _mm256_cmpgt_epi64(_mm256_set1_epi64x(left < W ? left : W), lanes);
}

static void step_avx2(const double *x, double *y, int64_t ld, int32_t m, int32_t p, const double *T,
                      const double *N, const double *enter, const double *span, double span_add,
                      double *cand) {
  const int32_t ext = m - 1;
  for (int32_t j = 0; j < ext; j += W) {
    const __m256i mk = lane_mask(ext - j);
    for (int32_t P = 0; P < p; P++) {
      __m256d acc = _mm256_add_pd(_mm256_maskload_pd(x + j, mk), _mm256_set1_pd(T[P]));
      for (int32_t Q = 1; Q < p; Q++) {
        __m256d v = _mm256_add_pd(_mm256_maskload_pd(x + (int64_t)Q * ld + j, mk),
                                  _mm256_set1_pd(T[Q * p + P]));
        acc = _mm256_max_pd(v, acc); /* v > acc ? v : acc: keeps acc on ties */
      }
      acc = _mm256_add_pd(acc, _mm256_set1_pd(N[P]));
      _mm256_maskstore_pd(y + (int64_t)P * ld + j, mk, acc);
    }
  }
  for (int32_t P = 0; P < p; P++) y[(int64_t)P * ld + ext] = N[P];
  const __m256d add = _mm256_set1_pd(span_add);
  for (int32_t j = 0; j < m; j += W) {
    const __m256i mk = lane_mask(m - j);
    __m256d best = _mm256_maskload_pd(y + j, mk);
    for (int32_t P = 1; P < p; P++)
      best = _mm256_max_pd(_mm256_maskload_pd(y + (int64_t)P * ld + j, mk), best);
    __m256d s = _mm256_add_pd(_mm256_maskload_pd(span + j, mk), add);
    __m256d c = _mm256_add_pd(_mm256_add_pd(_mm256_maskload_pd(enter + j, mk), best), s);
    _mm256_maskstore_pd(cand + j, mk, c);
  }
}

const vt_chunk_kernels vt_chunk_kernels_avx2 = {VT_SIMD_AVX2, step_avx2};
