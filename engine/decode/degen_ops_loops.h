/* engine/decode/degen_ops_loops.h: the row operations of the degenerate lattice that are plain
 * loops, written once for every level. Each degen_ops_<level>.c includes this header, so each
 * level compiles its own copy with its own flags (cmake/VtIsa.cmake) and the compiler vectorizes
 * it for that ISA; with no FMA and ISO C every copy rounds exactly as the scalar one
 * (tests/test_isa_degen_ops.c checks the bits). Only those three files include it. */
#ifndef VT_DECODE_DEGEN_OPS_LOOPS_H
#define VT_DECODE_DEGEN_OPS_LOOPS_H

#include <math.h>
#include <stdint.h>

static void row_step(double *row, double p, const double *A, const double *E, int32_t n) {
  for (int32_t j = 0; j < n; j++) row[j] = (p + A[j]) + E[j];
}

static void row_join(double *row, const double *P, const double *E, const double *into, double tau,
                     int32_t n) {
  for (int32_t j = 0; j < n; j++) row[j] = (P[j] + E[j]) + (into[j] + tau);
}

static void row_join_c(double *row, double p, const double *E, const double *into, double tau,
                       int32_t n) {
  for (int32_t j = 0; j < n; j++) row[j] = (p + E[j]) + (into[j] + tau);
}

static int row_integral(const double *x, int32_t n, double scale) {
  const double C = 6755399441055744.0; /* 1.5 * 2^52 */
  int ok = 1;
  for (int32_t j = 0; j < n; j++) {
    const double w = x[j] * scale;
    ok &= (w + C) - C == w;
  }
  return ok;
}

static void gather(double *restrict out, const double *restrict x, const int32_t *restrict idx,
                   int32_t n) {
  for (int32_t j = 0; j < n; j++) out[j] = x[idx[j]];
}

static void row_add(double *restrict out, const double *restrict a, const double *restrict b,
                    int32_t n) {
  for (int32_t j = 0; j < n; j++) out[j] = a[j] + b[j];
}

static void row_raise(double *restrict row, int32_t *restrict ptr, double a,
                      const double *restrict M, int32_t node, int32_t n) {
  for (int32_t j = 0; j < n; j++) {
    double v = a + M[j];
    if (v > row[j]) {
      row[j] = v;
      ptr[j] = node;
    }
  }
}

/* Branch-free so that it vectorizes: a node dies when its bound falls below the cut or is -inf
 * (P, E or Q -inf; none can be +inf). */
static int32_t row_prune(double *restrict P, const double *restrict E, double *restrict Q,
                         int32_t n, double cut, int64_t *pruned) {
  int64_t cnt = 0;
  int32_t hi = 0;
  for (int32_t j = 0; j < n; j++) {
    const double v = P[j] + E[j] + Q[j];
    const int below = v < cut, dead = v == -INFINITY;
    cnt += below & !dead;
    P[j] = below | dead ? -INFINITY : P[j];
    Q[j] = below | dead ? -INFINITY : Q[j];
    hi = below | dead ? hi : j + 1;
  }
  *pruned += cnt;
  return hi;
}

#endif
