/* engine/core/kernel_avx512.c: the max-plus kernel for AVX-512, 8 doubles per vector.
 * Register-blocked: a block of up to NV vectors of out[] and their argmax stay in registers while
 * the loop runs over every previous label, so each A row segment is loaded once per block. */
#include <immintrin.h>
#include <math.h>

#include "core/kernel.h"

#define W 8

static inline __attribute__((always_inline)) void
block512(const double *prev, int32_t n_prev, const double *M, int64_t ldm, const double *add,
         int32_t j0, int32_t n_cur, double *out, int32_t *arg, const int nv) {
  __m512d best[8], idx[8];
  const __m512d p0 = _mm512_set1_pd(prev[0]);
  for (int v = 0; v < nv; v++) {
    best[v] = _mm512_add_pd(p0, _mm512_loadu_pd(M + j0 + v * W));
    idx[v] = _mm512_setzero_pd();
  }
  for (int32_t i = 1; i < n_prev; i++) {
    if (prev[i] == -INFINITY) continue;
    const __m512d p = _mm512_set1_pd(prev[i]);
    const __m512d iv = _mm512_set1_pd((double)i);
    const double *row = M + (int64_t)i * ldm + j0;
    for (int v = 0; v < nv; v++) {
      __m512d x = _mm512_add_pd(p, _mm512_loadu_pd(row + v * W));
      __mmask8 gt = _mm512_cmp_pd_mask(x, best[v], _CMP_GT_OQ);
      best[v] = _mm512_mask_mov_pd(best[v], gt, x);
      idx[v] = _mm512_mask_mov_pd(idx[v], gt, iv);
    }
  }
  for (int v = 0; v < nv; v++) {
    int32_t j = j0 + v * W;
    int32_t left = n_cur - j;
    __mmask8 m = left >= W ? (__mmask8)0xFF : (__mmask8)((1u << left) - 1u);
    __m512d b = best[v];
    if (add) b = _mm512_add_pd(b, _mm512_maskz_loadu_pd(m, add + j));
    _mm512_mask_storeu_pd(out + j, m, b);
    _mm256_mask_storeu_epi32(arg + j, m, _mm512_cvtpd_epi32(idx[v]));
  }
}

static void maxplus_avx512(const double *prev, int32_t n_prev, const double *M, int64_t ldm,
                           const double *add, int32_t n_cur, double *out, int32_t *arg) {
  /* Rows of M are padded (vt_trans), so the last, partial vector may load a full vector of M. */
  int32_t j0 = 0;
  for (; j0 + 8 * W <= n_cur; j0 += 8 * W)
    block512(prev, n_prev, M, ldm, add, j0, n_cur, out, arg, 8);
  /* The rest in one block: its vectors' chains of compares run side by side, where blocks of 4,
   * 2 and 1 would each run over every previous label in turn (at 22 and 44 labels, 3-5% of a
   * tagging run). */
  switch ((n_cur - j0 + W - 1) / W) { /* 0..8 vectors, the last maybe partial */
  case 1: block512(prev, n_prev, M, ldm, add, j0, n_cur, out, arg, 1); break;
  case 2: block512(prev, n_prev, M, ldm, add, j0, n_cur, out, arg, 2); break;
  case 3: block512(prev, n_prev, M, ldm, add, j0, n_cur, out, arg, 3); break;
  case 4: block512(prev, n_prev, M, ldm, add, j0, n_cur, out, arg, 4); break;
  case 5: block512(prev, n_prev, M, ldm, add, j0, n_cur, out, arg, 5); break;
  case 6: block512(prev, n_prev, M, ldm, add, j0, n_cur, out, arg, 6); break;
  case 7: block512(prev, n_prev, M, ldm, add, j0, n_cur, out, arg, 7); break;
  case 8: block512(prev, n_prev, M, ldm, add, j0, n_cur, out, arg, 8); break;
  default: break;
  }
}

static void range_avx512(const double *x, int32_t n, double *mx, double *mn) {
  const __m512d ninf = _mm512_set1_pd(-INFINITY), pinf = _mm512_set1_pd(INFINITY);
  __m512d hi = ninf, lo = pinf;
  int32_t i = 0;
  for (; i + W <= n; i += W) {
    __m512d v = _mm512_loadu_pd(x + i);
    hi = _mm512_max_pd(hi, v);
    __mmask8 fin = _mm512_cmp_pd_mask(v, ninf, _CMP_GT_OQ);
    lo = _mm512_mask_min_pd(lo, fin, lo, v);
  }
  if (i < n) {
    __mmask8 m = (__mmask8)((1u << (n - i)) - 1u);
    __m512d v = _mm512_mask_loadu_pd(ninf, m, x + i);
    hi = _mm512_max_pd(hi, v);
    __mmask8 fin = _mm512_cmp_pd_mask(v, ninf, _CMP_GT_OQ);
    lo = _mm512_mask_min_pd(lo, fin, lo, v);
  }
  *mx = _mm512_reduce_max_pd(hi);
  *mn = _mm512_reduce_min_pd(lo);
}

static int32_t argmax_avx512(const double *x, int32_t n) {
  double mx, mn;
  range_avx512(x, n, &mx, &mn);
  /* Second sweep: the first position equal to the maximum. */
  const __m512d target = _mm512_set1_pd(mx);
  for (int32_t i = 0; i < n; i += W) {
    __mmask8 m = n - i >= W ? (__mmask8)0xFF : (__mmask8)((1u << (n - i)) - 1u);
    __m512d v = _mm512_maskz_loadu_pd(m, x + i);
    __mmask8 eq = _mm512_mask_cmp_pd_mask(m, v, target, _CMP_EQ_OQ);
    if (eq) return i + (int32_t)__builtin_ctz(eq);
  }
  return 0; /* every entry is -inf: the scalar rule keeps index 0 */
}

const vt_kernels vt_kernels_avx512 = {VT_SIMD_AVX512, maxplus_avx512, range_avx512, argmax_avx512};
