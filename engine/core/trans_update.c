/* engine/core/trans_update.c: vt_trans_update, in-place changes to a bound transition model.
 *
 * Keeps every derived table equal to what a fresh vt_trans_create would compute, through the
 * per-part builders of bounds.c:
 * the rank-space copies get the changed cells, the suffix maxima are recomputed for the rows
 * and columns touched only, the row-suffix table both_max in O(K L), and the global maxima
 * (a_max, mag_a, q_a) fully only when the last cell that attained one of them changed: each
 * keeps a count of the cells attaining it. With integer weights most cells share the smallest
 * quantum, so a rescan at each change cost the perceptron a third of its training time.
 * tests/test_trans_update.c checks the tables against a fresh binding after many random updates. */
#include <math.h>

#include "core/bounds.h"
#include "core/trans_layout.h"

/* Above this many cells, a full rebuild is as cheap as the incremental refresh. */
#define MAX_INCREMENTAL 256

static int score_ok(double v) { return !isnan(v) && v != INFINITY; }

/* Adds v to the set list[0..*n) unless present. */
static void add_unique(int32_t *list, int32_t *n, int32_t v) {
  for (int32_t i = 0; i < *n; i++)
    if (list[i] == v) return;
  list[(*n)++] = v;
}

vt_status vt_trans_update(vt_trans *trans, int32_t n, const int32_t *prev, const int32_t *cur,
                          const double *a, const double *S, const double *F) {
  const int32_t L = trans->L, ld = trans->ld;
  if (n < 0 || (n > 0 && (!prev || !cur || !a))) return VT_EINVAL;
  for (int32_t c = 0; c < n; c++)
    if (prev[c] < 0 || prev[c] >= L || cur[c] < 0 || cur[c] >= L) return VT_EINVAL;
  for (int32_t c = 0; c < n; c++)
    if (!score_ok(a[c])) return VT_EFORMAT;
  for (int32_t y = 0; y < L; y++)
    if ((S && !score_ok(S[y])) || (F && !score_ok(F[y]))) return VT_EFORMAT;

  vt_bounds *b = &trans->bd;
  int32_t rows[MAX_INCREMENTAL], cols[MAX_INCREMENTAL], n_rows = 0, n_cols = 0;
  int full = n > MAX_INCREMENTAL, remax = 0;
  for (int32_t c = 0; c < n; c++) {
    size_t cell = (size_t)prev[c] * ld + (size_t)cur[c];
    double old = trans->A[cell], v = a[c];
    trans->A[cell] = v;
    if (full) continue;
    int32_t ri = trans->rank_of[prev[c]], rj = trans->rank_of[cur[c]];
    if (b->Ar != trans->A) b->Ar[(size_t)ri * ld + rj] = v;
    b->Art[(size_t)rj * ld + ri] = v;
    add_unique(rows, &n_rows, ri);
    add_unique(cols, &n_cols, rj);
    if (remax) continue; /* the global values are rescanned at the end */
    /* The old value leaves the counts of the extremes it attained; one left at 0 needs the
     * rescan. Then the new value joins them, or sets a new extreme. */
    remax = (old == b->a_max && --b->n_amax == 0) ||
            (isfinite(old) && fabs(old) == b->mag_a && --b->n_mag == 0) ||
            (vt_quantum_log2(old) == b->q_a && --b->n_q == 0);
    if (remax) continue;
    if (v > b->a_max) {
      b->a_max = v;
      b->n_amax = 1;
    } else if (v == b->a_max) {
      b->n_amax++;
    }
    if (isfinite(v) && fabs(v) > b->mag_a) {
      b->mag_a = fabs(v);
      b->n_mag = 1;
    } else if (isfinite(v) && fabs(v) == b->mag_a) {
      b->n_mag++;
    }
    const int32_t qv = vt_quantum_log2(v);
    if (qv < b->q_a) {
      b->q_a = qv;
      b->n_q = 1;
    } else if (qv == b->q_a) {
      b->n_q++;
    }
  }
  if (S)
    for (int32_t y = 0; y < L; y++) trans->S[y] = S[y];
  if (F)
    for (int32_t y = 0; y < L; y++) trans->F[y] = F[y];
  if (full) return vt_bounds_build(trans);
  for (int32_t i = 0; i < n_rows; i++) vt_bounds_row(trans, rows[i]);
  for (int32_t j = 0; j < n_cols; j++) vt_bounds_col(trans, cols[j]);
  if (n_rows) vt_bounds_both(trans);
  if (remax) vt_bounds_global(trans);
  if (S || F) vt_bounds_edges(trans);
  return VT_OK;
}
