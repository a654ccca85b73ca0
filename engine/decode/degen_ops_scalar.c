/* engine/decode/degen_ops_scalar.c: the degenerate lattice's row operations, portable (baseline
 * ISA; the reference for the other levels): the scan and the keys here, the plain loops from
 * degen_ops_loops.h. */
#include <math.h>
#include <string.h>

#include "decode/degen_ops.h"
#include "decode/degen_ops_loops.h"

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

const vt_degen_ops vt_degen_ops_scalar = {
    .level = VT_SIMD_SCALAR,
    .scan_above = scan_above_scalar,
    .row_step = row_step,
    .row_join = row_join,
    .row_join_c = row_join_c,
    .row_keys = row_keys_scalar,
    .row_integral = row_integral,
    .gather = gather,
    .row_add = row_add,
    .row_raise = row_raise,
    .row_prune = row_prune,
};
