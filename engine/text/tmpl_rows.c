/* engine/text/tmpl_rows.c: features through the index of cell values (see tmpl_rows.h). */
#include "text/tmpl_rows.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/rowadd.h"

int32_t *vt_tix_cells(const vt_tmpl_index *x, const vt_tmplset *ts, const vt_tokens *tk,
                      const int64_t *hit, vt_arena *arena) {
  const size_t n = (size_t)tk->T * (size_t)x->n_cs, padn = (size_t)x->pad * (size_t)x->n_cs;
  int32_t *cid = VT_ARENA_NEW(arena, int32_t, n + 2 * padn + 1);
  uint64_t *h = VT_ARENA_NEW(arena, uint64_t, n + 1);
  const char **p = VT_ARENA_NEW(arena, const char *, n + 1);
  size_t *len = VT_ARENA_NEW(arena, size_t, n + 1);
  if (!cid || !h || !p || !len) return NULL;
  size_t room = 0; /* for the lower-cased texts */
  for (int32_t c = 0; c < x->n_cs; c++)
    if (ts->items[x->cs_item[c]].caps)
      for (size_t t = 0; t < (size_t)tk->T; t++)
        room += tk->fields[2 * (t * (size_t)tk->ncols + (size_t)x->cs_col[c]) + 1];
  char *buf = room ? VT_ARENA_NEW(arena, char, room) : NULL;
  if (room && !buf) return NULL;
  /* every text and its hash first, prefetching its slot, then the probes: their misses overlap */
  for (size_t i = 0, t = 0; t < (size_t)tk->T; t++)
    for (int32_t c = 0; c < x->n_cs; c++, i++) {
      const uint32_t *f = tk->fields + 2 * (t * (size_t)tk->ncols + (size_t)x->cs_col[c]);
      const vt_tmpl_item *it = &ts->items[x->cs_item[c]];
      len[i] = SIZE_MAX;
      if (hit && hit[t] >= 0 && !x->cs_shared[c]) continue; /* not read: its row is cached */
      p[i] = tk->base + f[0];
      len[i] = f[1];
      if (it->kind != VT_TI_X || it->caps) {
        len[i] = vt_tmpl_item_text(ts, it, p[i], len[i], buf, &p[i]);
        if (it->caps) buf += f[1];
      }
      h[i] = vt_tix_hash(x, p[i], len[i]);
      __builtin_prefetch(&x->vslots[(uint32_t)h[i] & x->vmask]);
    }
  /* the sentinels' ids around the tokens' */
  for (int32_t d = 1; d <= x->pad; d++)
    for (int32_t c = 0; c < x->n_cs; c++) {
      const int32_t *sent = x->sent + (size_t)c * 2 * (VT_TIX_SENT + 1);
      cid[(size_t)(x->pad - d) * (size_t)x->n_cs + (size_t)c] = sent[d];
      cid[padn + n + (size_t)(d - 1) * (size_t)x->n_cs + (size_t)c] = sent[VT_TIX_SENT + 1 + d];
    }
  cid += padn;
  for (size_t i = 0; i < n; i++)
    cid[i] = len[i] != SIZE_MAX ? vt_tix_value(x, p[i], len[i], h[i]) : -1;
  return cid;
}

const uint8_t *vt_tix_record(const vt_textmodel *m, const int32_t *cid, int32_t k, int32_t t,
                             int32_t T) {
  const vt_tmpl_index *x = m->tix;
  uint64_t key;
  int32_t tail[VT_TIX_MAX_CELLS];
  if (!vt_tix_key_at(x, &m->tmpl, k, cid, t, T, &key, tail)) return NULL;
  const uint32_t n_tail = x->ncell[k] > 2 ? x->ncell[k] - 2u : 0;
  const vt_tix_entry *e = vt_tix_find(x, vt_tix_slot(x, key), key, tail, n_tail);
  return e ? vt_tix_rec(m, e->rec) : NULL;
}

/* Keys of template k at every position into key[t * stride] and their slots into at[...]
 * (UINT64_MAX: a cell no record holds), prefetching each slot. One template at a time, so that
 * its cells' rows and slots stay in registers. */
static void template_keys(const vt_tmpl_index *x, const vt_tmplset *ts, int32_t k,
                          const int32_t *cid, int32_t T, size_t stride, uint64_t *key,
                          uint32_t *at) {
  const vt_tix_cell *cl = x->cells + x->cell0[k];
  const int n = x->ncell[k];
  const uint64_t base = (uint64_t)k << 52;
  const size_t ncs = (size_t)x->n_cs;
  int near = n <= 2;
  for (int c = 0; c < n; c++) near &= vt_tix_near(x, &cl[c]);
  /* near cells read the padded ids directly (vt_tix_cells), sentinels included */
  const int32_t *c0 =
      n > 0 && near ? cid + (ptrdiff_t)cl[0].row * (ptrdiff_t)ncs + cl[0].slot : NULL;
  const int32_t *c1 =
      n > 1 && near ? cid + (ptrdiff_t)cl[1].row * (ptrdiff_t)ncs + cl[1].slot : NULL;
  int32_t tail[VT_TIX_MAX_CELLS];
  for (int32_t t = 0; t < T; t++) {
    uint64_t kk = UINT64_MAX;
    if (n == 0) {
      kk = base | (uint64_t)VT_TIX_NO_ID << 26 | VT_TIX_NO_ID;
    } else if (near && n == 1) {
      const int32_t a = c0[(size_t)t * ncs];
      if (a >= 0) kk = base | (uint64_t)a << 26 | VT_TIX_NO_ID;
    } else if (near) {
      const int32_t a = c0[(size_t)t * ncs], b = c1[(size_t)t * ncs];
      if ((a | b) >= 0) kk = base | (uint64_t)a << 26 | (uint64_t)b;
    } else if (!vt_tix_key_at(x, ts, k, cid, t, T, &kk, tail)) {
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

/* Sets *out to the record entry value r names (0: NULL), prefetching it. */
static inline void put_rec(const vt_textmodel *m, uint32_t r, const uint8_t **out) {
  *out = vt_tix_rec(m, r);
  if (r) __builtin_prefetch(*out);
}

/* Records of direct template k (tmpl_index.h) at every position into rec[t * stride] (NULL:
 * none), prefetching each: its cell's value id leads to its row of records. */
static void direct_records(const vt_textmodel *m, int32_t k, const int32_t *cid, int32_t T,
                           size_t stride, const uint8_t **rec) {
  const vt_tmpl_index *x = m->tix;
  const vt_tix_cell *cl = x->cells + x->cell0[k];
  const size_t ncs = (size_t)x->n_cs, dn = x->dn[cl->slot];
  const uint32_t *d = x->drec + x->dbase[cl->slot] + (size_t)x->dpos[k];
  const int32_t *c0 = cid + (ptrdiff_t)cl->row * (ptrdiff_t)ncs + cl->slot;
  for (int32_t t = 0; t < T; t++) {
    const int32_t a = c0[(size_t)t * ncs];
    put_rec(m, a >= 0 ? d[(size_t)a * dn] : 0, &rec[(size_t)t * stride]);
  }
}

/* Records of grid template k (tmpl_index.h) at every position into rec[t * stride] (NULL:
 * none), prefetching each: its cells' local ids lead to its place in the grid. */
static void grid_records(const vt_textmodel *m, int32_t k, const int32_t *cid, int32_t T,
                         size_t stride, const uint8_t **rec) {
  const vt_tmpl_index *x = m->tix;
  const vt_tix_cell *cl = x->cells + x->cell0[k];
  const int n = x->ncell[k];
  const size_t ncs = (size_t)x->n_cs;
  const uint32_t *g = x->grec + x->gbase[k];
  const int32_t *c[VT_TIX_MAX_CELLS];
  const uint16_t *lid[VT_TIX_MAX_CELLS];
  uint32_t base[VT_TIX_MAX_CELLS];
  for (int i = 0; i < n; i++) {
    c[i] = cid + (ptrdiff_t)cl[i].row * (ptrdiff_t)ncs + cl[i].slot;
    lid[i] = x->lid + (size_t)x->lrow[cl[i].slot] * (size_t)x->n_val;
    base[i] = x->gdim[x->cell0[k] + (uint32_t)i];
  }
  for (int32_t t = 0; t < T; t++) {
    uint64_t at = 0;
    int none = 0;
    for (int i = 0; i < n; i++) {
      const int32_t a = c[i][(size_t)t * ncs];
      const uint32_t l = a >= 0 ? lid[i][a] : VT_TIX_NO_LID;
      none |= l >= base[i];
      at = at * base[i] + l;
    }
    put_rec(m, none ? 0 : g[at], &rec[(size_t)t * stride]);
  }
}

/* Prefetches the n bytes at p. */
static inline void prefetch_bytes(const void *p, size_t n) {
  const char *c = p;
  __builtin_prefetch(c);
  if (n > 64) __builtin_prefetch(c + 64);
  if (n > 128) __builtin_prefetch(c + 128);
  for (size_t b = 192; b < n; b += 64) __builtin_prefetch(c + b);
}

vt_status vt_tix_emissions(const vt_textmodel *m, const int32_t *cid, int32_t T, vt_arena *arena,
                           double *E, int64_t *unknown) {
  const vt_tmpl_index *x = m->tix;
  const vt_tmplset *ts = &m->tmpl;
  const size_t nu = (size_t)ts->n_u, L = (size_t)m->L, nl = (size_t)T * nu;
  uint64_t *key = VT_ARENA_NEW(arena, uint64_t, nl + 1);
  uint32_t *at = VT_ARENA_NEW(arena, uint32_t, nl + 1);
  const uint8_t **rec = VT_ARENA_NEW(arena, const uint8_t *, nl + 1);
  if (!key || !at || !rec) return VT_ENOMEM;
  /* the keys, template by template; then the slots, prefetching the records they lead to; then
   * the sums, token by token in template order: the misses of a sentence overlap */
  for (size_t j = 0; j < nu; j++) {
    const int32_t k = ts->u_ord[j];
    if (vt_tix_direct(x, k))
      direct_records(m, k, cid, T, nu, rec + j);
    else if (vt_tix_grid(x, k))
      grid_records(m, k, cid, T, nu, rec + j);
    else
      template_keys(x, ts, k, cid, T, nu, key + j, at + j);
  }
  int32_t tail[VT_TIX_MAX_CELLS];
  for (int32_t t = 0; t < T; t++)
    for (size_t j = 0; j < nu; j++) {
      const size_t i = (size_t)t * nu + j;
      const int32_t k = ts->u_ord[j];
      if (vt_tix_direct(x, k) || vt_tix_grid(x, k)) {
        if (rec[i]) prefetch_bytes(rec[i], 72 + 4 * L);
        continue;
      }
      rec[i] = NULL;
      if (key[i] == UINT64_MAX) continue;
      const uint32_t n_tail = x->ncell[k] > 2 ? x->ncell[k] - 2u : 0;
      uint64_t kk = key[i];
      if (n_tail) vt_tix_key_at(x, ts, k, cid, t, T, &kk, tail);
      const vt_tix_entry *e = vt_tix_find(x, at[i], kk, tail, n_tail);
      if (!e) continue;
      rec[i] = vt_tix_rec(m, e->rec);
      prefetch_bytes(rec[i], 72 + 4 * L); /* a dense record with a name of up to 64 bytes */
    }
  vt_rowsum_f32_fn sum = vt_rowsum_f32();
  const float **row = (const float **)(void *)key; /* the keys are spent: their room holds these */
  int64_t miss = 0;
  for (int32_t t = 0; t < T; t++) {
    double *e = E + (size_t)t * L;
    const uint8_t *const *r = rec + (size_t)t * nu;
    /* the records in template order: each run of dense ones summed in registers, a sparse one
     * added where it comes: the bits of adding them one by one. The first run has a loop of its
     * own: a token of dense records only (CRF++'s) takes one sum and no flag (a CRF++ run 2%
     * faster than with one loop for both; vitesse's own model, which mixes them, 1.5% slower). */
    size_t n = 0, j = 0;
    for (; j < nu; j++) {
      if (!r[j]) {
        miss++;
        continue;
      }
      vt_feat f;
      vt_feat_read(r[j], m->key_bytes, &f);
      if (!f.dense) break;
      row[n++] = f.vals;
    }
    sum(e, row, n, L, 0);
    n = 0;
    for (; j < nu; j++) { /* from the first sparse record on */
      if (!r[j]) {
        miss++;
        continue;
      }
      vt_feat f;
      vt_feat_read(r[j], m->key_bytes, &f);
      if (f.dense) {
        row[n++] = f.vals;
        continue;
      }
      sum(e, row, n, L, 1);
      n = 0;
      vt_feat_add_sparse(&f, m->key_bytes, e);
    }
    if (n) sum(e, row, n, L, 1);
  }
  *unknown = miss;
  return VT_OK;
}
