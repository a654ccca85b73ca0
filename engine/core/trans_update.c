/* engine/core/trans_update.c: vt_trans_update, in-place changes to a bound transition model.
 *
 * Keeps every derived table equal to what a fresh vt_trans_create would compute, through the
 * per-part builders of bounds.c: the rank-space copies get the changed cells, the suffix maxima
 * are recomputed for the rows and columns touched only, the row-suffix table both_max in
 * O(K L), and the global extremes (a_max, mag_a, q_a) from the rows' in O(L). A row's extremes
 * follow its cells through counts of the cells attaining them, and are rescanned (O(L)) only
 * when a count falls to 0. A change of n cells over r rows and c columns costs
 * O(n + (r + c + K) L), never O(L^2): the perceptron changes a few cells a sentence, and shards
 * that train in rounds bring a round's cells back to the mixed weights every few sentences
 * (train_ipm.c).
 * tests/test_trans_update.c checks the tables against a fresh binding after many random updates. */
#include <math.h>

#include "core/bounds.h"
#include "core/trans_layout.h"

static int score_ok(double v) { return !isnan(v) && v != INFINITY; }

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
  /* touched[0..n_rows): the rank rows changed, touched[L..L + n_cols): the rank columns; seen
   * flags them (rows in seen[0..L), columns in seen[L..2L)) and is all 0 again on return */
  int32_t *rows = b->touched, *cols = b->touched + L, n_rows = 0, n_cols = 0;
  uint8_t *row_seen = b->seen, *col_seen = b->seen + L;
  for (int32_t c = 0; c < n; c++) {
    const double v = a[c];
    double *cell = &trans->A[(size_t)prev[c] * ld + (size_t)cur[c]];
    const double old = *cell;
    *cell = v;
    const int32_t ri = trans->rank_of[prev[c]], rj = trans->rank_of[cur[c]];
    if (b->Ar != trans->A) b->Ar[(size_t)ri * ld + rj] = v;
    b->Art[(size_t)rj * ld + ri] = v;
    if (!row_seen[ri]) row_seen[ri] = 1, rows[n_rows++] = ri;
    if (!col_seen[rj]) col_seen[rj] = 1, cols[n_cols++] = rj;
    /* row state 2: an extreme of the row lost its last cell; rescanned below */
    if (row_seen[ri] == 1 && vt_bounds_row_change(trans, ri, old, v)) row_seen[ri] = 2;
  }
  if (S)
    for (int32_t y = 0; y < L; y++) trans->S[y] = S[y];
  if (F)
    for (int32_t y = 0; y < L; y++) trans->F[y] = F[y];
  for (int32_t i = 0; i < n_rows; i++) {
    vt_bounds_row(trans, rows[i]);
    if (row_seen[rows[i]] == 2) vt_bounds_row_extremes(trans, rows[i]);
    row_seen[rows[i]] = 0;
  }
  for (int32_t j = 0; j < n_cols; j++) {
    vt_bounds_col(trans, cols[j]);
    col_seen[cols[j]] = 0;
  }
  if (n_rows) {
    vt_bounds_both(trans);
    vt_bounds_global(trans);
  }
  if (S || F) vt_bounds_edges(trans);
  return VT_OK;
}
