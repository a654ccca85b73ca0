/* engine/decode/degen_ops.h: the row operations of the degenerate lattice (degen.h), a kernel
 * family (cmake/VtIsa.cmake): one table per instruction set in degen_ops_<level>.c, their
 * dispatcher in degen_ops.c.
 *
 * The passes and searches run these over the live nodes of a column, once per column, so their
 * O(active labels) loops are vectorized at the level of the max-plus kernels. Every level gives
 * the same bits: the loops are elementwise, in the order written here (ISO C: no contraction),
 * and comparisons are strict `>` / `<` on the same values. The rows a call writes do not overlap
 * the rows it reads (row_add, row_raise and row_prune are written with restrict). */
#ifndef VT_DECODE_DEGEN_OPS_H
#define VT_DECODE_DEGEN_OPS_H

#include <stdint.h>

#include "vitesse.h"

typedef struct vt_degen_ops {
  vt_simd level;
  /* Writes to idx the indices j of x[0, n) with x[j] > thr, ascending, and returns their count.
   * idx has room for n entries; those past the count may be written, none past n. */
  int32_t (*scan_above)(const double *x, int32_t n, double thr, int32_t *idx);
  /* row[j] = (p + A[j]) + E[j]: one step of a path, left to right. */
  void (*row_step)(double *row, double p, const double *A, const double *E, int32_t n);
  /* row[j] = (P[j] + E[j]) + (into[j] + tau): a prefix, then a suffix summed right to left. */
  void (*row_join)(double *row, const double *P, const double *E, const double *into, double tau,
                   int32_t n);
  /* row_join with P[j] = p for every j. */
  void (*row_join_c)(double *row, double p, const double *E, const double *into, double tau,
                     int32_t n);
  /* key[j] = (g[j] + h[j]) + tau: the A* keys of one prefix's extensions (astar.c). Writes to idx
   * the indices j with key[j] > thr, ascending, as scan_above, returns their count, and sets
   * *below to the largest key[j] < lo (-inf when there is none). */
  int32_t (*row_keys)(double *key, const double *g, const double *h, double tau, int32_t n,
                      double thr, double lo, int32_t *idx, double *below);
  /* Returns 1 when every x[j] * scale (scale a power of two, |x[j] * scale| < 2^51) is an
   * integer or -inf: (w + 1.5 * 2^52) - 1.5 * 2^52 == w. */
  int (*row_integral)(const double *x, int32_t n, double scale);
  /* out[j] = x[idx[j]]: a row of emissions into rank space (idx: the rank, entries in [0, L)). */
  void (*gather)(double *out, const double *x, const int32_t *idx, int32_t n);
  /* out[j] = a[j] + b[j]. */
  void (*row_add)(double *out, const double *a, const double *b, int32_t n);
  /* For each j: v = a + M[j]; when v > row[j], row[j] = v and ptr[j] = node. */
  void (*row_raise)(double *row, int32_t *ptr, double a, const double *M, int32_t node, int32_t n);
  /* The pruning test of nodes [0, n): v = P[j] + E[j] + Q[j]; a node with v < cut or v == -inf
   * gets P[j] = Q[j] = -inf. Adds to *pruned the nodes cut by v < cut that were not -inf, and
   * returns 1 + the last node kept (0 when none is). */
  int32_t (*row_prune)(double *P, const double *E, double *Q, int32_t n, double cut,
                       int64_t *pruned);
} vt_degen_ops;

/* Returns the row operations of `level`, or NULL when this build or CPU cannot run them. */
const vt_degen_ops *vt_degen_ops_for(vt_simd level);

/* Per-level tables, defined in degen_ops_<level>.c. */
extern const vt_degen_ops vt_degen_ops_scalar;
#if defined(VT_HAVE_AVX2)
extern const vt_degen_ops vt_degen_ops_avx2;
#endif
#if defined(VT_HAVE_AVX512)
extern const vt_degen_ops vt_degen_ops_avx512;
#endif

#endif
