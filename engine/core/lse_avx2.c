/* engine/core/lse_avx2.c: the log-sum-exp kernels for AVX2, 4 doubles per vector, with a
 * polynomial exp of arguments <= 0 (Cody-Waite reduction by ln 2, Taylor series of degree 13 on
 * |r| <= ln2/2: truncation below 1e-17, so about 1 ulp of rounding). No FMA (cmake/VtIsa.cmake). */
#include <immintrin.h>
#include <math.h>

#include "core/lse.h"

#define W 4

/* exp(x) for x <= 0 (-inf gives 0); arguments below -708 give 0, which a sum holding exp(0) = 1
 * cannot notice. */
static inline __m256d exp_neg(__m256d x) {
  const __m256d lo = _mm256_set1_pd(-708.0);
  const __m256d keep = _mm256_cmp_pd(x, lo, _CMP_GE_OQ);
  x = _mm256_max_pd(x, lo);
  const __m256d n = _mm256_round_pd(_mm256_mul_pd(x, _mm256_set1_pd(1.4426950408889634)),
                                    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256d r = _mm256_sub_pd(x, _mm256_mul_pd(n, _mm256_set1_pd(6.93147180369123816490e-01)));
  r = _mm256_sub_pd(r, _mm256_mul_pd(n, _mm256_set1_pd(1.90821492927058770002e-10)));
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
  __m256d p = _mm256_set1_pd(c[13]);
  for (int k = 12; k >= 0; k--) p = _mm256_add_pd(_mm256_mul_pd(p, r), _mm256_set1_pd(c[k]));
  /* 2^n from the low bits of n + 1.5 * 2^52 (n in [-1021, 0]). */
  const __m256i bits = _mm256_castpd_si256(_mm256_add_pd(n, _mm256_set1_pd(6755399441055744.0)));
  const __m256i e = _mm256_slli_epi64(_mm256_add_epi64(bits, _mm256_set1_epi64x(1023)), 52);
  return _mm256_and_pd(_mm256_mul_pd(p, _mm256_castsi256_pd(e)), keep);
}

static inline __attribute__((always_inline)) void fwd_block(const double *a, const int32_t *rows,
                                                            int32_t n_rows, const double *M,
                                                            int64_t ldm, int32_t j0, double *out,
                                                            double *tmp, const int nv) {
  __m256d m[4], s[4], ms[4];
  const __m256d ninf = _mm256_set1_pd(-INFINITY);
  for (int v = 0; v < nv; v++) m[v] = ninf;
  for (int32_t r = 0; r < n_rows; r++) {
    const __m256d p = _mm256_set1_pd(a[rows[r]]);
    const double *row = M + (int64_t)rows[r] * ldm + j0;
    for (int v = 0; v < nv; v++)
      m[v] = _mm256_max_pd(m[v], _mm256_add_pd(p, _mm256_loadu_pd(row + v * W)));
  }
  for (int v = 0; v < nv; v++) {
    s[v] = _mm256_setzero_pd();
    /* a column without a finite term subtracts 0: its terms stay -inf and add nothing */
    ms[v] = _mm256_andnot_pd(_mm256_cmp_pd(m[v], ninf, _CMP_EQ_OQ), m[v]);
  }
  for (int32_t r = 0; r < n_rows; r++) {
    const __m256d p = _mm256_set1_pd(a[rows[r]]);
    const double *row = M + (int64_t)rows[r] * ldm + j0;
    for (int v = 0; v < nv; v++) {
      __m256d x = _mm256_sub_pd(_mm256_add_pd(p, _mm256_loadu_pd(row + v * W)), ms[v]);
      s[v] = _mm256_add_pd(s[v], exp_neg(x));
    }
  }
  for (int v = 0; v < nv; v++) {
    _mm256_storeu_pd(out + j0 + v * W, m[v]);
    _mm256_storeu_pd(tmp + j0 + v * W, s[v]);
  }
}

static void fwd_avx2(const double *a, const int32_t *rows, int32_t n_rows, const double *M,
                     int64_t ldm, int32_t n, double *out, double *tmp) {
  const int32_t np = (n + 7) / 8 * 8;
  int32_t j0 = 0;
  for (; j0 + 4 * W <= np; j0 += 4 * W) fwd_block(a, rows, n_rows, M, ldm, j0, out, tmp, 4);
  if (j0 < np) fwd_block(a, rows, n_rows, M, ldm, j0, out, tmp, 2);
  for (int32_t j = 0; j < n; j++)
    if (out[j] > -INFINITY) out[j] += log(tmp[j]);
}

static inline double hmax(__m256d x) {
  __m128d h = _mm_max_pd(_mm256_castpd256_pd128(x), _mm256_extractf128_pd(x, 1));
  return fmax(_mm_cvtsd_f64(h), _mm_cvtsd_f64(_mm_unpackhi_pd(h, h)));
}

static inline double hsum(__m256d x) {
  __m128d h = _mm_add_pd(_mm256_castpd256_pd128(x), _mm256_extractf128_pd(x, 1));
  return _mm_cvtsd_f64(h) + _mm_cvtsd_f64(_mm_unpackhi_pd(h, h));
}

static void bwd_avx2(const double *M, int64_t ldm, const int32_t *rows, int32_t n_rows,
                     const double *v, int32_t n, double *out) {
  const int32_t np = (n + 7) / 8 * 8;
  for (int32_t r = 0; r < n_rows; r++) {
    const double *row = M + (int64_t)rows[r] * ldm;
    __m256d m0 = _mm256_set1_pd(-INFINITY), m1 = m0;
    for (int32_t j = 0; j < np; j += 2 * W) {
      m0 = _mm256_max_pd(m0, _mm256_add_pd(_mm256_loadu_pd(row + j), _mm256_loadu_pd(v + j)));
      m1 = _mm256_max_pd(m1,
                         _mm256_add_pd(_mm256_loadu_pd(row + j + W), _mm256_loadu_pd(v + j + W)));
    }
    const double m = hmax(_mm256_max_pd(m0, m1));
    if (m == -INFINITY) {
      out[rows[r]] = -INFINITY;
      continue;
    }
    const __m256d mv = _mm256_set1_pd(m);
    __m256d s0 = _mm256_setzero_pd(), s1 = s0;
    for (int32_t j = 0; j < np; j += 2 * W) {
      __m256d x0 = _mm256_add_pd(_mm256_loadu_pd(row + j), _mm256_loadu_pd(v + j));
      __m256d x1 = _mm256_add_pd(_mm256_loadu_pd(row + j + W), _mm256_loadu_pd(v + j + W));
      s0 = _mm256_add_pd(s0, exp_neg(_mm256_sub_pd(x0, mv)));
      s1 = _mm256_add_pd(s1, exp_neg(_mm256_sub_pd(x1, mv)));
    }
    out[rows[r]] = m + log(hsum(_mm256_add_pd(s0, s1)));
  }
}

/* Register-blocked like the forward step: a block of up to 4 vectors of out stays in registers
 * while the listed rows stream by; per lane the terms add in ascending r, as in lse_scalar.c. */
static inline __attribute__((always_inline)) void mv_block(const double *coef, const int32_t *rows,
                                                           int32_t n_rows, const double *M,
                                                           int64_t ldm, int32_t j0, double *out,
                                                           const int nv) {
  __m256d acc[4];
  for (int v = 0; v < nv; v++) acc[v] = _mm256_setzero_pd();
  for (int32_t r = 0; r < n_rows; r++) {
    const __m256d c = _mm256_set1_pd(coef[r]);
    const double *row = M + (int64_t)rows[r] * ldm + j0;
    for (int v = 0; v < nv; v++)
      acc[v] = _mm256_add_pd(acc[v], _mm256_mul_pd(c, _mm256_loadu_pd(row + v * W)));
  }
  for (int v = 0; v < nv; v++) _mm256_storeu_pd(out + j0 + v * W, acc[v]);
}

static void matvec_avx2(const double *coef, const int32_t *rows, int32_t n_rows, const double *M,
                        int64_t ldm, int32_t n, double *out) {
  int32_t j0 = 0;
  for (; j0 + 4 * W <= n; j0 += 4 * W) mv_block(coef, rows, n_rows, M, ldm, j0, out, 4);
  for (; j0 < n; j0 += 2 * W) mv_block(coef, rows, n_rows, M, ldm, j0, out, 2);
}

static void exp_avx2(const double *x, int32_t n, double *out) {
  int32_t k = 0;
  for (; k + W <= n; k += W) _mm256_storeu_pd(out + k, exp_neg(_mm256_loadu_pd(x + k)));
  for (; k < n; k++) out[k] = exp(x[k]);
}

const vt_lse_ops vt_lse_avx2 = {VT_SIMD_AVX2, fwd_avx2, bwd_avx2, matvec_avx2, exp_avx2};
