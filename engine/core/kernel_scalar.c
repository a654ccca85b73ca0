/* engine/core/kernel_scalar.c: the portable max-plus kernel (baseline ISA; the reference for SIMD).
 */
#include "core/kernel.h"

#include <math.h>

/* Register-blocked like the SIMD kernels: 4 current labels and their argmax stay in registers
 * while the loop runs over the previous labels, so no load/store of out[] per cell. */
static void maxplus_scalar(const double *prev, int32_t n_prev, const double *M, int64_t ldm,
                           const double *add, int32_t n_cur, double *out, int32_t *arg) {
  const double p0 = prev[0];
  int32_t j = 0;
  for (; j + 4 <= n_cur; j += 4) {
    double b0 = p0 + M[j], b1 = p0 + M[j + 1], b2 = p0 + M[j + 2], b3 = p0 + M[j + 3];
    int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    for (int32_t i = 1; i < n_prev; i++) {
      const double p = prev[i];
      if (p == -INFINITY) continue; /* contributes only -inf, which never wins a strict > */
      const double *row = M + (int64_t)i * ldm + j;
      double v0 = p + row[0], v1 = p + row[1], v2 = p + row[2], v3 = p + row[3];
      if (v0 > b0) b0 = v0, a0 = i;
      if (v1 > b1) b1 = v1, a1 = i;
      if (v2 > b2) b2 = v2, a2 = i;
      if (v3 > b3) b3 = v3, a3 = i;
    }
    out[j] = b0, out[j + 1] = b1, out[j + 2] = b2, out[j + 3] = b3;
    arg[j] = a0, arg[j + 1] = a1, arg[j + 2] = a2, arg[j + 3] = a3;
  }
  for (; j < n_cur; j++) {
    double b = p0 + M[j];
    int32_t a = 0;
    for (int32_t i = 1; i < n_prev; i++) {
      double v = prev[i] + M[(int64_t)i * ldm + j];
      if (v > b) b = v, a = i;
    }
    out[j] = b;
    arg[j] = a;
  }
  if (add)
    for (int32_t k = 0; k < n_cur; k++) out[k] += add[k];
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
