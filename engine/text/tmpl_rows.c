/* engine/text/tmpl_rows.c: features through the index of cell values (see tmpl_rows.h). */
#include "text/tmpl_rows.h"

#include <string.h>

#include "core/rowadd.h"

int32_t *vt_tix_cells(const vt_tmpl_index *x, const vt_tokens *tk, vt_arena *arena) {
  const size_t n = (size_t)tk->T * (size_t)x->n_cs;
  int32_t *cid = VT_ARENA_NEW(arena, int32_t, n + 1);
  uint64_t *h = VT_ARENA_NEW(arena, uint64_t, n + 1);
  if (!cid || !h) return NULL;
  /* every hash first, prefetching its slot, then the probes: their misses overlap */
  for (size_t i = 0, t = 0; t < (size_t)tk->T; t++)
    for (int32_t c = 0; c < x->n_cs; c++, i++) {
      const uint32_t *f = tk->fields + 2 * (t * (size_t)tk->ncols + (size_t)x->cs_col[c]);
      h[i] = vt_tix_hash(x, tk->base + f[0], f[1]);
      __builtin_prefetch(&x->vslots[(uint32_t)h[i] & x->vmask]);
    }
  for (size_t i = 0, t = 0; t < (size_t)tk->T; t++)
    for (int32_t c = 0; c < x->n_cs; c++, i++) {
      const uint32_t *f = tk->fields + 2 * (t * (size_t)tk->ncols + (size_t)x->cs_col[c]);
      cid[i] = vt_tix_value(x, tk->base + f[0], f[1], h[i]);
    }
  return cid;
}

const uint8_t *vt_tix_record(const vt_textmodel *m, const int32_t *cid, int32_t k, int32_t t,
                             int32_t T) {
  const vt_tmpl_index *x = m->tix;
  uint64_t key;
  int32_t tail[VT_TIX_MAX_CELLS];
  if (!vt_tix_key_at(x, k, cid, t, T, &key, tail)) return NULL;
  const uint32_t n_tail = x->ncell[k] > 2 ? x->ncell[k] - 2u : 0;
  const vt_tix_entry *e = vt_tix_find(x, vt_tix_slot(x, key), key, tail, n_tail);
  return e ? m->recs + 4 * (uint64_t)(e->rec - 1) : NULL;
}

/* Keys of template k at every position into key[t * stride] and their slots into at[...]
 * (UINT64_MAX: a cell no record holds), prefetching each slot. One template at a time, so that
 * its cells' rows and slots stay in registers. */
static void template_keys(const vt_tmpl_index *x, int32_t k, const int32_t *cid, int32_t T,
                          size_t stride, uint64_t *key, uint32_t *at) {
  const vt_tix_cell *cl = x->cells + x->cell0[k];
  const int n = x->ncell[k];
  const uint64_t base = (uint64_t)k << 52;
  int32_t tail[VT_TIX_MAX_CELLS];
  for (int32_t t = 0; t < T; t++) {
    uint64_t kk = UINT64_MAX;
    if (n == 0) {
      kk = base | (uint64_t)VT_TIX_NO_ID << 26 | VT_TIX_NO_ID;
    } else if (n == 1) {
      const int32_t a = vt_tix_cell_id(x, &cl[0], cid, t, T);
      if (a >= 0) kk = base | (uint64_t)a << 26 | VT_TIX_NO_ID;
    } else if (n == 2) {
      const int32_t a = vt_tix_cell_id(x, &cl[0], cid, t, T);
      const int32_t b = vt_tix_cell_id(x, &cl[1], cid, t, T);
      if ((a | b) >= 0) kk = base | (uint64_t)a << 26 | (uint64_t)b;
    } else if (!vt_tix_key_at(x, k, cid, t, T, &kk, tail)) {
      kk = UINT64_MAX;
    }
    key[(size_t)t * stride] = kk;
    if (kk != UINT64_MAX) {
      const uint32_t s = vt_tix_slot(x, kk);
      at[(size_t)t * stride] = s;
      __builtin_prefetch(&x->slots[s]);
    }
  }
}

vt_status vt_tix_emissions(const vt_textmodel *m, const int32_t *cid, int32_t T, vt_arena *arena,
                           double *E, int64_t *unknown) {
  const vt_tmpl_index *x = m->tix;
  const vt_tmplset *ts = &m->tmpl;
  const size_t nu = (size_t)ts->n_u, L = (size_t)m->L, nl = (size_t)T * nu;
  uint64_t *key = VT_ARENA_NEW(arena, uint64_t, nl + 1);
  uint32_t *at = VT_ARENA_NEW(arena, uint32_t, nl + 1);
  const double **row = VT_ARENA_NEW(arena, const double *, nl + 1);
  if (!key || !at || !row) return VT_ENOMEM;
  /* the keys, template by template; then the slots, prefetching the rows they lead to; then the
   * sums, token by token in template order: the misses of a sentence overlap */
  for (size_t j = 0; j < nu; j++) template_keys(x, ts->u_ord[j], cid, T, nu, key + j, at + j);
  int32_t tail[VT_TIX_MAX_CELLS];
  for (int32_t t = 0; t < T; t++)
    for (size_t j = 0; j < nu; j++) {
      const size_t i = (size_t)t * nu + j;
      row[i] = NULL;
      if (key[i] == UINT64_MAX) continue;
      const int32_t k = ts->u_ord[j];
      const uint32_t n_tail = x->ncell[k] > 2 ? x->ncell[k] - 2u : 0;
      uint64_t kk = key[i];
      if (n_tail) vt_tix_key_at(x, k, cid, t, T, &kk, tail);
      const vt_tix_entry *e = vt_tix_find(x, at[i], kk, tail, n_tail);
      if (!e) continue;
      const double *r = x->rows + (size_t)(e->row - 1) * L;
      for (size_t b = 0; b < L * sizeof *r; b += 64) __builtin_prefetch((const char *)r + b);
      row[i] = r;
    }
  vt_rowadd_f64_fn add = vt_rowadd_f64();
  int64_t miss = 0;
  for (int32_t t = 0; t < T; t++) {
    double *e = E + (size_t)t * L;
    memset(e, 0, L * sizeof *e);
    for (size_t j = 0; j < nu; j++) {
      const double *r = row[(size_t)t * nu + j];
      if (r)
        add(e, r, L);
      else
        miss++;
    }
  }
  *unknown = miss;
  return VT_OK;
}
