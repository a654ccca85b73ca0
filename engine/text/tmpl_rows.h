/* engine/text/tmpl_rows.h: a sentence's template features through the index of features by cell
 * values (tmpl_index.h): the cells' value ids, keys, records, and the emission rows of a model
 * whose unigram templates the index finds all (tmpl_rows.c). */
#ifndef VT_TEXT_TMPL_ROWS_H
#define VT_TEXT_TMPL_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "alloc/arena.h"
#include "io/sentbatch.h"
#include "text/textmodel.h"
#include "text/tmpl_index.h"
#include "vitesse.h"

/* The record an index entry's `rec` (word offset + 1; 0: none) names in model m, or NULL. */
static inline const uint8_t *vt_tix_rec(const vt_textmodel *m, uint32_t rec) {
  return rec ? m->recs + 4 * (uint64_t)(rec - 1) : NULL;
}

/* The id of the text the cell `cl` reads at position t of a T-token sentence (cid: the
 * sentence's text ids, x->n_cs per token; a sentinel's outside the sentence; ts: the model's
 * templates); -1 when no record holds it. */
static inline int32_t vt_tix_cell_id(const vt_tmpl_index *x, const vt_tmplset *ts,
                                     const vt_tix_cell *cl, const int32_t *cid, int32_t t,
                                     int32_t T) {
  const int64_t idx = !cl->abs      ? (int64_t)t + cl->row
                      : cl->row < 0 ? (int64_t)T + cl->row
                                    : (int64_t)cl->row - 1;
  return idx >= 0 && idx < T ? cid[(size_t)idx * (size_t)x->n_cs + (size_t)cl->slot]
                             : vt_tix_sentinel(x, ts, cl->slot, idx, T);
}

/* The key of template k (fast in x) at position t into *key, the ids of its cells 3.. into tail
 * (VT_TIX_MAX_CELLS - 2); 0 when a cell's value has no id (no record can match). */
static inline int vt_tix_key_at(const vt_tmpl_index *x, const vt_tmplset *ts, int32_t k,
                                const int32_t *cid, int32_t t, int32_t T, uint64_t *key,
                                int32_t *tail) {
  const vt_tix_cell *cl = x->cells + x->cell0[k];
  const int n = x->ncell[k];
  int32_t id[2] = {VT_TIX_NO_ID, VT_TIX_NO_ID};
  for (int c = 0; c < n; c++) {
    const int32_t v = vt_tix_cell_id(x, ts, &cl[c], cid, t, T);
    if (v < 0) return 0;
    if (c < 2)
      id[c] = v;
    else
      tail[c - 2] = v;
  }
  *key = vt_tix_key(k, id[0], id[1]);
  return 1;
}

/* The ids of the texts x's slots make of the T tokens' fields (x->n_cs per token, token-major;
 * -1: no record holds the text; ts: the model's templates), from `arena`; NULL when out of
 * memory. The x->pad positions before and after the sentence hold their sentinels' ids: the
 * result may be read at positions -x->pad .. T + x->pad - 1. With `hit` (may be NULL), a token
 * t with hit[t] >= 0 (its local row from a row cache) gets only the slots others read
 * (cs_shared); its other ids are -1. */
int32_t *vt_tix_cells(const vt_tmpl_index *x, const vt_tmplset *ts, const vt_tokens *tk,
                      const int64_t *hit, vt_arena *arena);

/* The record of template k (fast in m->tix) at position t of tk (T tokens, value ids cid), or
 * NULL when the model has no such feature. */
const uint8_t *vt_tix_record(const vt_textmodel *m, const int32_t *cid, int32_t k, int32_t t,
                             int32_t T);

/* Writes the T x L emissions of the tokens whose value ids are cid into E (every entry) when
 * m->tix finds every unigram template: per token the records of the unigram templates in
 * emission order (u_ord) added from 0.0, the bits vt_text_emissions gives.
 * *unknown gets how many of the T * n_u features the model lacks. Scratch from `arena`.
 * Returns VT_OK or VT_ENOMEM. */
vt_status vt_tix_emissions(const vt_textmodel *m, const int32_t *cid, int32_t T, vt_arena *arena,
                           double *E, int64_t *unknown);

#endif
