/* engine/chunk/chunk_simd_avx512.c: the label-table step for AVX-512F, 8 chunk starts per vector.
 * Built with the AVX-512 flags (cmake/VtIsa.cmake, x86-64 only); nothing here runs unless
 * the dispatcher saw the CPU run it. */
#include <immintrin.h>

#include "chunk/chunk_simd.h"

#define W 8

static inline __mmask8 lane_mask(int32_t left) {
  return left >= W ? (__mmask8)0xFF : (__mmask8)((1u << left) - 1u);
}

static void step_avx512(const double *x, double *y, int64_t ld, int32_t m, int32_t p,
                        const double *T, const double *N, const double *enter, const double *span,
                        double span_add, double *cand) {
  const int32_t ext = m - 1;
  for (int32_t j = 0; j < ext; j += W) {
    const __mmask8 mk = lane_mask(ext - j);
    for (int32_t P = 0; P < p; P++) {
      __m512d acc = _mm512_add_pd(_mm512_maskz_loadu_pd(mk, x + j), _mm512_set1_pd(T[P]));
      for (int32_t Q = 1; Q < p; Q++) {
        __m512d v = _mm512_add_pd(_mm512_maskz_loadu_pd(mk, x + (int64_t)Q * ld + j),
                                  _mm512_set1_pd(T[Q * p + P]));
        acc = _mm512_max_pd(v, acc); /* v > acc ? v : acc: keeps acc on ties */
      }
      acc = _mm512_add_pd(acc, _mm512_set1_pd(N[P]));
      _mm512_mask_storeu_pd(y + (int64_t)P * ld + j, mk, acc);
    }
  }
  for (int32_t P = 0; P < p; P++) y[(int64_t)P * ld + ext] = N[P];
  const __m512d add = _mm512_set1_pd(span_add);
  for (int32_t j = 0; j < m; j += W) {
    const __mmask8 mk = lane_mask(m - j);
    __m512d best = _mm512_maskz_loadu_pd(mk, y + j);
    for (int32_t P = 1; P < p; P++)
      best = _mm512_max_pd(_mm512_maskz_loadu_pd(mk, y + (int64_t)P * ld + j), best);
    __m512d s = _mm512_add_pd(_mm512_maskz_loadu_pd(mk, span + j), add);
    __m512d c = _mm512_add_pd(_mm512_add_pd(_mm512_maskz_loadu_pd(mk, enter + j), best), s);
    _mm512_mask_storeu_pd(cand + j, mk, c);
  }
}

const vt_chunk_kernels vt_chunk_kernels_avx512 = {VT_SIMD_AVX512, step_avx512};
