/* engine/kernel_scalar.c: the portable max-plus kernel (baseline ISA; the reference for SIMD). */
#include "kernel.h"

#include <math.h>

static void maxplus_scalar(const double *prev, int32_t n_prev, const double *M, int64_t ldm,
                           const double *add, int32_t n_cur, double *out, int32_t *arg) {
  const double p0 = prev[0];
  for (int32_t j = 0; j < n_cur; j++) {
    out[j] = p0 + M[j];
    arg[j] = 0;
  }
  for (int32_t i = 1; i < n_prev; i++) {
    const double p = prev[i];
    if (p == -INFINITY) continue; /* contributes only -inf, which never wins a strict > */
    const double *row = M + (int64_t)i * ldm;
    for (int32_t j = 0; j < n_cur; j++) {
      double v = p + row[j];
      if (v > out[j]) {
        out[j] = v;
        arg[j] = i;
      }
    }
  }
  if (add)
    for (int32_t j = 0; j < n_cur; j++) out[j] += add[j];
}

static void range_scalar(const double *x, int32_t n, double *mx, double *mn) {
  double hi = -INFINITY, lo = INFINITY;
  for (int32_t i = 0; i < n; i++) {
    double v = x[i];
    hi = v > hi ? v : hi;
    double f = v > -INFINITY ? v : INFINITY; /* -inf entries do not count for the minimum */
    lo = f < lo ? f : lo;
  }
  *mx = hi;
  *mn = lo;
}

static int32_t argmax_scalar(const double *x, int32_t n) {
  int32_t arg = 0;
  for (int32_t i = 1; i < n; i++)
    if (x[i] > x[arg]) arg = i;
  return arg;
}

const vt_kernels vt_kernels_scalar = {VT_SIMD_SCALAR, maxplus_scalar, range_scalar, argmax_scalar};
