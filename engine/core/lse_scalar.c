/* engine/core/lse_scalar.c: the log-sum-exp kernels, portable C: the reference of the SIMD
 * levels (tests/test_isa_lse.c) and itself checked against long double (tests/test_posteriors.c).
 */
#include <math.h>

#include "core/lse.h"

static void fwd_scalar(const double *a, const int32_t *rows, int32_t n_rows, const double *M,
                       int64_t ldm, int32_t n, double *out, double *tmp) {
  for (int32_t j = 0; j < n; j++) out[j] = -INFINITY;
  for (int32_t r = 0; r < n_rows; r++) {
    const double ai = a[rows[r]], *row = M + (int64_t)rows[r] * ldm;
    for (int32_t j = 0; j < n; j++) {
      double x = ai + row[j];
      if (x > out[j]) out[j] = x;
    }
  }
  for (int32_t j = 0; j < n; j++) tmp[j] = 0.0;
  for (int32_t r = 0; r < n_rows; r++) {
    const double ai = a[rows[r]], *row = M + (int64_t)rows[r] * ldm;
    for (int32_t j = 0; j < n; j++)
      if (out[j] > -INFINITY) tmp[j] += exp(ai + row[j] - out[j]);
  }
  for (int32_t j = 0; j < n; j++)
    if (out[j] > -INFINITY) out[j] += log(tmp[j]);
}

static void bwd_scalar(const double *M, int64_t ldm, const int32_t *rows, int32_t n_rows,
                       const double *v, int32_t n, double *out) {
  for (int32_t r = 0; r < n_rows; r++) {
    const double *row = M + (int64_t)rows[r] * ldm;
    double m = -INFINITY;
    for (int32_t j = 0; j < n; j++)
      if (row[j] + v[j] > m) m = row[j] + v[j];
    double s = 0.0;
    if (m > -INFINITY)
      for (int32_t j = 0; j < n; j++) s += exp(row[j] + v[j] - m);
    out[rows[r]] = m > -INFINITY ? m + log(s) : -INFINITY;
  }
}

static void matvec_scalar(const double *coef, const int32_t *rows, int32_t n_rows, const double *M,
                          int64_t ldm, int32_t n, double *out) {
  for (int32_t j = 0; j < n; j++) out[j] = 0.0;
  for (int32_t r = 0; r < n_rows; r++) {
    const double c = coef[r], *row = M + (int64_t)rows[r] * ldm;
    for (int32_t j = 0; j < n; j++) out[j] += c * row[j];
  }
}

static void exp_scalar(const double *x, int32_t n, double *out) {
  for (int32_t k = 0; k < n; k++) out[k] = exp(x[k]);
}

const vt_lse_ops vt_lse_scalar = {VT_SIMD_SCALAR, fwd_scalar, bwd_scalar, matvec_scalar,
                                  exp_scalar};
