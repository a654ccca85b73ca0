/* engine/core/lse_avx512.c: the log-sum-exp kernels for AVX-512F, 8 doubles per vector; the exp
 * of lse_avx2.c (the same reduction and polynomial) with scalef for the power of two. */
#include <immintrin.h>
#include <math.h>

#include "core/lse.h"

#define W 8

/* exp(x) for x <= 0 (-inf gives 0; arguments below -708 give 0, see lse_avx2.c). */
static inline __m512d exp_neg(__m512d x) {
  const __m512d lo = _mm512_set1_pd(-708.0);
  const __mmask8 keep = _mm512_cmp_pd_mask(x, lo, _CMP_GE_OQ);
  x = _mm512_max_pd(x, lo);
  const __m512d n = _mm512_roundscale_pd(_mm512_mul_pd(x, _mm512_set1_pd(1.4426950408889634)),
                                         _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512d r = _mm512_sub_pd(x, _mm512_mul_pd(n, _mm512_set1_pd(6.93147180369123816490e-01)));
  r = _mm512_sub_pd(r, _mm512_mul_pd(n, _mm512_set1_pd(1.90821492927058770002e-10)));
  static const double c[14] = {1.0,
                               1.0,
                               1.0 / 2,
                               1.0 / 6,
                               1.0 / 24,
                               1.0 / 120,
                               1.0 / 720,
                               1.0 / 5040,
                               1.0 / 40320,
                               1.0 / 362880,
                               1.0 / 3628800,
                               1.0 / 39916800,
                               1.0 / 479001600,
                               1.0 / 6227020800.0};
  __m512d p = _mm512_set1_pd(c[13]);
  for (int k = 12; k >= 0; k--) p = _mm512_add_pd(_mm512_mul_pd(p, r), _mm512_set1_pd(c[k]));
  return _mm512_maskz_mov_pd(keep, _mm512_scalef_pd(p, n));
}

static inline __attribute__((always_inline)) void fwd_block(const double *a, const int32_t *rows,
                                                            int32_t n_rows, const double *M,
                                                            int64_t ldm, int32_t j0, double *out,
                                                            double *tmp, const int nv) {
  __m512d m[4], s[4], ms[4];
  const __m512d ninf = _mm512_set1_pd(-INFINITY);
  for (int v = 0; v < nv; v++) m[v] = ninf;
  for (int32_t r = 0; r < n_rows; r++) {
    const __m512d p = _mm512_set1_pd(a[rows[r]]);
    const double *row = M + (int64_t)rows[r] * ldm + j0;
    for (int v = 0; v < nv; v++)
      m[v] = _mm512_max_pd(m[v], _mm512_add_pd(p, _mm512_loadu_pd(row + v * W)));
  }
  for (int v = 0; v < nv; v++) {
    s[v] = _mm512_setzero_pd();
    ms[v] = _mm512_maskz_mov_pd(_mm512_cmp_pd_mask(m[v], ninf, _CMP_NEQ_OQ), m[v]);
  }
  for (int32_t r = 0; r < n_rows; r++) {
    const __m512d p = _mm512_set1_pd(a[rows[r]]);
    const double *row = M + (int64_t)rows[r] * ldm + j0;
    for (int v = 0; v < nv; v++) {
      __m512d x = _mm512_sub_pd(_mm512_add_pd(p, _mm512_loadu_pd(row + v * W)), ms[v]);
      s[v] = _mm512_add_pd(s[v], exp_neg(x));
    }
  }
  for (int v = 0; v < nv; v++) {
    _mm512_storeu_pd(out + j0 + v * W, m[v]);
    _mm512_storeu_pd(tmp + j0 + v * W, s[v]);
  }
}

static void fwd_avx512(const double *a, const int32_t *rows, int32_t n_rows, const double *M,
                       int64_t ldm, int32_t n, double *out, double *tmp) {
  const int32_t np = (n + 7) / 8 * 8;
  int32_t j0 = 0;
  for (; j0 + 4 * W <= np; j0 += 4 * W) fwd_block(a, rows, n_rows, M, ldm, j0, out, tmp, 4);
  for (; j0 < np; j0 += W) fwd_block(a, rows, n_rows, M, ldm, j0, out, tmp, 1);
  for (int32_t j = 0; j < n; j++)
    if (out[j] > -INFINITY) out[j] += log(tmp[j]);
}

static void bwd_avx512(const double *M, int64_t ldm, const int32_t *rows, int32_t n_rows,
                       const double *v, int32_t n, double *out) {
  const int32_t np = (n + 7) / 8 * 8;
  for (int32_t r = 0; r < n_rows; r++) {
    const double *row = M + (int64_t)rows[r] * ldm;
    __m512d mv = _mm512_set1_pd(-INFINITY);
    for (int32_t j = 0; j < np; j += W)
      mv = _mm512_max_pd(mv, _mm512_add_pd(_mm512_loadu_pd(row + j), _mm512_loadu_pd(v + j)));
    const double m = _mm512_reduce_max_pd(mv);
    if (m == -INFINITY) {
      out[rows[r]] = -INFINITY;
      continue;
    }
    const __m512d mb = _mm512_set1_pd(m);
    __m512d s = _mm512_setzero_pd();
    for (int32_t j = 0; j < np; j += W) {
      __m512d x = _mm512_add_pd(_mm512_loadu_pd(row + j), _mm512_loadu_pd(v + j));
      s = _mm512_add_pd(s, exp_neg(_mm512_sub_pd(x, mb)));
    }
    out[rows[r]] = m + log(_mm512_reduce_add_pd(s));
  }
}

/* Register-blocked like the forward step: a block of up to 4 vectors of out stays in registers
 * while the listed rows stream by; per lane the terms add in ascending r, as in lse_scalar.c. */
static inline __attribute__((always_inline)) void mv_block(const double *coef, const int32_t *rows,
                                                           int32_t n_rows, const double *M,
                                                           int64_t ldm, int32_t j0, double *out,
                                                           const int nv) {
  __m512d acc[4];
  for (int v = 0; v < nv; v++) acc[v] = _mm512_setzero_pd();
  for (int32_t r = 0; r < n_rows; r++) {
    const __m512d c = _mm512_set1_pd(coef[r]);
    const double *row = M + (int64_t)rows[r] * ldm + j0;
    for (int v = 0; v < nv; v++)
      acc[v] = _mm512_add_pd(acc[v], _mm512_mul_pd(c, _mm512_loadu_pd(row + v * W)));
  }
  for (int v = 0; v < nv; v++) _mm512_storeu_pd(out + j0 + v * W, acc[v]);
}

static void matvec_avx512(const double *coef, const int32_t *rows, int32_t n_rows, const double *M,
                          int64_t ldm, int32_t n, double *out) {
  int32_t j0 = 0;
  for (; j0 + 4 * W <= n; j0 += 4 * W) mv_block(coef, rows, n_rows, M, ldm, j0, out, 4);
  for (; j0 < n; j0 += 1 * W) mv_block(coef, rows, n_rows, M, ldm, j0, out, 1);
}

static void exp_avx512(const double *x, int32_t n, double *out) {
  int32_t k = 0;
  for (; k + W <= n; k += W) _mm512_storeu_pd(out + k, exp_neg(_mm512_loadu_pd(x + k)));
  for (; k < n; k++) out[k] = exp(x[k]);
}

const vt_lse_ops vt_lse_avx512 = {VT_SIMD_AVX512, fwd_avx512, bwd_avx512, matvec_avx512,
                                  exp_avx512};
