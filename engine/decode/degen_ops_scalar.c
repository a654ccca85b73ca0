/* engine/decode/degen_ops_scalar.c: the degenerate lattice's row operations, portable (baseline
 * ISA; the reference for the other levels). */
#include <math.h>
#include <string.h>

#include "degen_ops.h"

/* x[j] > thr, j ascending, into idx: the comparisons go to bytes in one vectorizable loop, then
 * eight flags are read at once. */
static int32_t scan_above_scalar(const double *x, int32_t n, double thr, int32_t *idx) {
  enum { CHUNK = 256 };
  uint8_t f[CHUNK + 8];
  int32_t m = 0;
  for (int32_t j = 0; j < n; j += CHUNK) {
    const int32_t c = n - j < CHUNK ? n - j : CHUNK;
    const double *xc = x + j;
    for (int32_t u = 0; u < c; u++) f[u] = xc[u] > thr;
    memset(f + c, 0, 8);
    for (int32_t u = 0; u < c; u += 8) {
      uint64_t w;
      memcpy(&w, f + u, 8);
      for (; w; w &= w - 1) idx[m++] = j + u + (int32_t)(__builtin_ctzll(w) >> 3);
    }
  }
  return m;
}

static void row_step_scalar(double *row, double p, const double *A, const double *E, int32_t n) {
  for (int32_t j = 0; j < n; j++) row[j] = (p + A[j]) + E[j];
}

static void row_join_scalar(double *row, const double *P, const double *E, const double *into,
                            double tau, int32_t n) {
  for (int32_t j = 0; j < n; j++) row[j] = (P[j] + E[j]) + (into[j] + tau);
}

static void row_join_c_scalar(double *row, double p, const double *E, const double *into,
                              double tau, int32_t n) {
  for (int32_t j = 0; j < n; j++) row[j] = (p + E[j]) + (into[j] + tau);
}

static int32_t row_keys_scalar(double *restrict key, const double *restrict g,
                               const double *restrict h, double tau, int32_t n, double thr,
                               double lo, int32_t *restrict idx, double *below) {
  double b = -INFINITY;
  for (int32_t j = 0; j < n; j++) key[j] = (g[j] + h[j]) + tau;
  for (int32_t j = 0; j < n; j++)
    if (key[j] < lo && key[j] > b) b = key[j];
  *below = b;
  return scan_above_scalar(key, n, thr, idx);
}

static int row_integral_scalar(const double *x, int32_t n, double scale) {
  const double C = 6755399441055744.0; /* 1.5 * 2^52 */
  int ok = 1;
  for (int32_t j = 0; j < n; j++) {
    const double w = x[j] * scale;
    ok &= (w + C) - C == w;
  }
  return ok;
}

static void gather_scalar(double *restrict out, const double *restrict x,
                          const int32_t *restrict idx, int32_t n) {
  for (int32_t j = 0; j < n; j++) out[j] = x[idx[j]];
}

static void row_add_scalar(double *restrict out, const double *restrict a, const double *restrict b,
                           int32_t n) {
  for (int32_t j = 0; j < n; j++) out[j] = a[j] + b[j];
}

static void row_raise_scalar(double *restrict row, int32_t *restrict ptr, double a,
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
static int32_t row_prune_scalar(double *restrict P, const double *restrict E, double *restrict Q,
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

const vt_degen_ops vt_degen_ops_scalar = {
    .level = VT_SIMD_SCALAR,
    .scan_above = scan_above_scalar,
    .row_step = row_step_scalar,
    .row_join = row_join_scalar,
    .row_join_c = row_join_c_scalar,
    .row_keys = row_keys_scalar,
    .row_integral = row_integral_scalar,
    .gather = gather_scalar,
    .row_add = row_add_scalar,
    .row_raise = row_raise_scalar,
    .row_prune = row_prune_scalar,
};
