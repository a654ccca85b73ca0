/* engine/text/tmpl_index_build.c: building the index of features by cell values (see
 * tmpl_index.h) from a loaded model's records. */
#include "text/tmpl_index_build.h"

#include <stdlib.h>
#include <string.h>

#include "alloc/prefault.h"
#include "core/trans_layout.h"
#include "text/textmodel.h"
#include "text/tmpl_rows.h"

/* Bounds on the splitting of one record against one template: ways it reads, steps tried. A
 * template that needs more is left to the string path. */
enum { MAX_SPLITS = 64, MAX_STEPS = 4096, MAX_CELLS = VT_TIX_MAX_CELLS, MAX_ITEMS = 64 };

/* The work a build may take, per 4-byte word of the records (templates tried and splitting
 * steps, summed over the model): past it the model goes without an index (a file made to split
 * every record many ways against thousands of templates would otherwise take hours to load). */
#define WORK_PER_WORD 256

/* Appends value [s, s + n) when new; its id in *id. Returns 0, or -1 (out of memory, or more ids
 * than a key holds). */
static int value_add(vt_tmpl_index *x, const char *s, size_t n, int32_t *id) {
  const uint64_t h = vt_tix_hash(x, s, n);
  const uint32_t fp = (uint32_t)(h >> 32);
  uint32_t i = (uint32_t)h & x->vmask;
  for (;; i = (i + 1) & x->vmask) {
    const uint64_t v = x->vslots[i];
    if (!v) break;
    if ((uint32_t)(v >> 32) == fp) {
      const int32_t got = (int32_t)(uint32_t)v - 1;
      const uint64_t o = x->voff[got];
      if (x->voff[got + 1] - o == n && memcmp(x->vpool + o, s, n) == 0) {
        *id = got;
        return 0;
      }
    }
  }
  if (x->n_val >= VT_TIX_MAX_ID) return -1;
  if (x->n_val + 1 >= x->val_cap) {
    int32_t ncap = x->val_cap * 2;
    uint64_t *no = realloc(x->voff, ((size_t)ncap + 1) * sizeof *no);
    if (!no) return -1;
    x->voff = no;
    x->val_cap = ncap;
  }
  if (x->vpool_len + n > x->vpool_cap) {
    uint64_t ncap = x->vpool_cap * 2;
    while (ncap < x->vpool_len + n) ncap *= 2;
    char *np = realloc(x->vpool, (size_t)ncap);
    if (!np) return -1;
    x->vpool = np;
    x->vpool_cap = ncap;
  }
  memcpy(x->vpool + x->vpool_len, s, n);
  x->vpool_len += n;
  *id = x->n_val++;
  x->voff[*id + 1] = x->vpool_len;
  x->vslots[i] = (uint64_t)fp << 32 | (uint32_t)(*id + 1);
  if ((uint64_t)x->n_val * 2 > (uint64_t)x->vmask + 1) { /* at most half full */
    const uint32_t nmask = x->vmask * 2 + 1;
    uint64_t *ns = calloc((size_t)nmask + 1, sizeof *ns);
    if (!ns) return -1;
    for (int32_t v = 0; v < x->n_val; v++) {
      const uint64_t hv = vt_tix_hash(x, x->vpool + x->voff[v], x->voff[v + 1] - x->voff[v]);
      uint32_t j = (uint32_t)hv & nmask;
      while (ns[j]) j = (j + 1) & nmask;
      ns[j] = (hv >> 32) << 32 | (uint32_t)(v + 1);
    }
    free(x->vslots);
    x->vslots = ns;
    x->vmask = nmask;
  }
  return 0;
}

/* Doubles the entry table. Returns 0 or -1. */
static int entries_grow(vt_tmpl_index *x) {
  const uint32_t nmask = x->mask * 2 + 1;
  vt_tix_entry *ns = calloc((size_t)nmask + 1, sizeof *ns);
  if (!ns) return -1;
  vt_tix_entry *old = x->slots;
  const uint32_t omask = x->mask;
  x->slots = ns;
  x->mask = nmask;
  for (uint64_t i = 0; i <= omask; i++) {
    if (!old[i].rec) continue;
    uint32_t j = vt_tix_slot(x, old[i].key);
    while (ns[j].rec) j = (j + 1) & nmask;
    ns[j] = old[i];
  }
  free(old);
  return 0;
}

/* One record split against one template. */
typedef struct split_ctx {
  vt_tmpl_index *x;
  const vt_tmplset *ts;
  const vt_tmpl_item *it; /* the template's items */
  uint32_t n_items;
  int32_t k;
  const char *s; /* the record's string */
  size_t len;
  uint32_t rec; /* its word offset + 1 */
  size_t cell_at[MAX_CELLS], cell_len[MAX_CELLS];
  int splits, steps;
  int bad; /* 1: too many ways, two records with one key, or out of memory (oom also set) */
  int oom;
} split_ctx;

/* Registers the split in c->cell_*: the cells' values get ids, the key leads to the record. */
static void emit(split_ctx *c, int ncell) {
  vt_tmpl_index *x = c->x;
  int32_t id[MAX_CELLS];
  for (int j = 0; j < ncell; j++)
    if (value_add(x, c->s + c->cell_at[j], c->cell_len[j], &id[j])) {
      c->bad = 1;
      c->oom = x->n_val < VT_TIX_MAX_ID;
      return;
    }
  const uint64_t key =
      vt_tix_key(c->k, ncell > 0 ? id[0] : VT_TIX_NO_ID, ncell > 1 ? id[1] : VT_TIX_NO_ID);
  const uint32_t n_tail = ncell > 2 ? (uint32_t)ncell - 2 : 0;
  uint32_t i = vt_tix_slot(x, key);
  for (; x->slots[i].rec; i = (i + 1) & x->mask) {
    const vt_tix_entry *e = &x->slots[i];
    if (e->key == key && (n_tail == 0 || vt_tix_tail_eq(x, e, id + 2, n_tail))) {
      if (e->rec != c->rec) c->bad = 1; /* two records, one string: leave it to the strings */
      return;
    }
  }
  uint32_t tail = n_tail == 1 ? (uint32_t)id[2] : 0; /* one tail id: in the entry */
  if (n_tail > 1) {
    if (x->tails_len + n_tail > x->tails_cap || x->tails_len + n_tail > UINT32_MAX) {
      uint64_t ncap = x->tails_cap ? x->tails_cap * 2 : 1024;
      while (ncap < x->tails_len + n_tail) ncap *= 2;
      uint32_t *nt =
          x->tails_len + n_tail > UINT32_MAX ? NULL : realloc(x->tails, (size_t)ncap * sizeof *nt);
      if (!nt) {
        c->bad = c->oom = 1;
        return;
      }
      x->tails = nt;
      x->tails_cap = ncap;
    }
    tail = (uint32_t)x->tails_len;
    memcpy(x->tails + tail, id + 2, n_tail * sizeof *id);
    x->tails_len += n_tail;
  }
  x->slots[i].key = key;
  x->slots[i].rec = c->rec;
  x->slots[i].tail = tail;
  x->n_ent++;
  if (x->n_ent * 2 > (uint64_t)x->mask + 1 && entries_grow(x)) c->bad = c->oom = 1;
}

/* Whether template k is direct (tmpl_index.h): a fast unigram template of one cell, not on an
 * absolute row, at most pad away. */
static int direct_fits(const vt_tmpl_index *x, const vt_tmplset *ts, int32_t k) {
  return x->fast[k] && !ts->t[k].bigram && x->ncell[k] == 1 &&
         vt_tix_near(x, x->cells + x->cell0[k]);
}

/* Lays out the direct templates' records by value id (tmpl_index.h), from the table's entries,
 * once every template's fast flag is final. Leaves dpos NULL when no template is direct or their
 * rows would hold more bytes than the table. Returns 0, or -1 when out of memory. */
static int direct_build(vt_tmpl_index *x, const vt_tmplset *ts) {
  uint64_t places = 0;
  for (int32_t k = 0; k < ts->n; k++) places += direct_fits(x, ts, k);
  if (!places || places * (uint64_t)x->n_val * 4 > ((uint64_t)x->mask + 1) * sizeof *x->slots)
    return 0;
  x->dpos = malloc((size_t)ts->n * sizeof *x->dpos);
  x->dn = calloc((size_t)x->n_cs + 1, sizeof *x->dn);
  x->dbase = calloc((size_t)x->n_cs + 1, sizeof *x->dbase);
  x->drec = calloc((size_t)(places * (uint64_t)x->n_val) + 1, sizeof *x->drec);
  if (!x->dpos || !x->dn || !x->dbase || !x->drec) return -1;
  for (int32_t k = 0; k < ts->n; k++)
    x->dpos[k] = direct_fits(x, ts, k) ? (int32_t)x->dn[x->cells[x->cell0[k]].slot]++ : -1;
  for (int32_t sl = 1; sl <= x->n_cs; sl++)
    x->dbase[sl] = x->dbase[sl - 1] + (uint64_t)x->dn[sl - 1] * (uint64_t)x->n_val;
  for (uint64_t i = 0; i <= x->mask; i++) {
    const vt_tix_entry *e = &x->slots[i];
    if (!e->rec) continue;
    const int32_t k = vt_tix_key_tmpl(e->key);
    if (x->dpos[k] < 0) continue;
    const int32_t sl = x->cells[x->cell0[k]].slot;
    const uint64_t v = (uint64_t)vt_tix_key_id1(e->key);
    x->drec[x->dbase[sl] + v * x->dn[sl] + (uint64_t)x->dpos[k]] = e->rec;
  }
  return 0;
}

/* Cells a grid may have per record of its template: a grid is at most this sparse. */
#define GRID_FILL 64
/* Cells of one grid at most (1 MB): at 4 MB a grid of POS and word cells made vitesse's own
 * chunking model no faster. */
#define GRID_MAX ((uint64_t)1 << 18)

/* Whether template k may be a grid (tmpl_index.h): a fast unigram template of two or more cells,
 * none on an absolute row or more than pad away. */
static int grid_may(const vt_tmpl_index *x, const vt_tmplset *ts, int32_t k) {
  if (!x->fast[k] || ts->t[k].bigram || x->ncell[k] < 2) return 0;
  const vt_tix_cell *c = x->cells + x->cell0[k];
  for (int i = 0; i < x->ncell[k]; i++)
    if (!vt_tix_near(x, &c[i])) return 0;
  return 1;
}

/* The value ids of entry e's n cells. */
static void entry_ids(const vt_tmpl_index *x, const vt_tix_entry *e, int n, int32_t *id) {
  id[0] = vt_tix_key_id1(e->key);
  id[1] = vt_tix_key_id2(e->key);
  for (int j = 2; j < n; j++)
    id[j] = (int32_t)(n == 3 ? e->tail : x->tails[e->tail + (uint32_t)j - 2]);
}

/* A value of a slot and how many grid records hold it there. */
typedef struct lid_use {
  uint32_t n;
  int32_t v;
} lid_use;

static int lid_use_cmp(const void *a, const void *b) {
  const lid_use *p = a, *q = b;
  if (p->n != q->n) return p->n > q->n ? -1 : 1;
  return (p->v > q->v) - (p->v < q->v);
}

/* Lays out the grid templates' records (tmpl_index.h) from the table's entries, after
 * direct_build. A slot's local ids go to the values in most records of the templates that may be
 * grids first, so that a cell of a grid spans the values its template's records hold there
 * (a slot may hold more: a word/POS template whose words hold a '/' reads some of them as POS
 * values), the common ones first. A template is a grid when its grid has at most GRID_MAX cells
 * and GRID_FILL per record, and the grids together take no more bytes than the table; gbase
 * stays NULL when none is. Returns 0, or -1 when out of memory. */
static int grid_build(vt_tmpl_index *x, const vt_tmplset *ts) {
  int st = -1;
  const size_t nv = (size_t)x->n_val, ncs = (size_t)x->n_cs;
  uint8_t *may = calloc((size_t)ts->n + 1, 1);
  uint64_t *n_ent = calloc((size_t)ts->n + 1, sizeof *n_ent);
  uint32_t *cnt = NULL;  /* per slot and value: the may-templates' records that hold it there */
  uint16_t *lids = NULL; /* per slot and value: its local id */
  lid_use *use = NULL;
  int32_t id[VT_TIX_MAX_CELLS];
  int any = 0;
  if (!may || !n_ent) goto done;
  for (int32_t k = 0; k < ts->n; k++) {
    may[k] = (uint8_t)grid_may(x, ts, k);
    any |= may[k];
  }
  st = 0;
  if (!any) goto done;
  st = -1;
  cnt = calloc(ncs * nv + 1, sizeof *cnt);
  lids = malloc(ncs * nv * sizeof *lids + 1);
  use = malloc((nv + 1) * sizeof *use);
  x->gdim = calloc((size_t)x->cell0[ts->n] + 1, sizeof *x->gdim);
  x->gbase = malloc(((size_t)ts->n + 1) * sizeof *x->gbase);
  x->lrow = malloc((ncs + 1) * sizeof *x->lrow);
  if (!cnt || !lids || !use || !x->gdim || !x->gbase || !x->lrow) goto done;
  for (uint64_t i = 0; i <= x->mask; i++) {
    const vt_tix_entry *e = &x->slots[i];
    const int32_t k = vt_tix_key_tmpl(e->key);
    if (!e->rec || !may[k]) continue;
    const vt_tix_cell *c = x->cells + x->cell0[k];
    n_ent[k]++;
    entry_ids(x, e, x->ncell[k], id);
    for (int j = 0; j < x->ncell[k]; j++) cnt[(size_t)c[j].slot * nv + (size_t)id[j]]++;
  }
  memset(lids, 0xFF, ncs * nv * sizeof *lids);
  for (size_t sl = 0; sl < ncs; sl++) { /* local ids, the values in most records first */
    size_t m = 0;
    for (size_t v = 0; v < nv; v++)
      if (cnt[sl * nv + v]) use[m++] = (lid_use){cnt[sl * nv + v], (int32_t)v};
    qsort(use, m, sizeof *use, lid_use_cmp);
    for (size_t i = 0; i < m && i < VT_TIX_NO_LID; i++)
      lids[sl * nv + (size_t)use[i].v] = (uint16_t)i;
  }
  for (uint64_t i = 0; i <= x->mask; i++) { /* each cell's span of local ids */
    const vt_tix_entry *e = &x->slots[i];
    const int32_t k = vt_tix_key_tmpl(e->key);
    if (!e->rec || !may[k]) continue;
    const vt_tix_cell *c = x->cells + x->cell0[k];
    uint32_t *dim = x->gdim + x->cell0[k];
    entry_ids(x, e, x->ncell[k], id);
    for (int j = 0; j < x->ncell[k]; j++) {
      const uint32_t l = lids[(size_t)c[j].slot * nv + (size_t)id[j]];
      if (l + 1 > dim[j]) dim[j] = l + 1; /* VT_TIX_NO_LID + 1: too many values for a grid */
    }
  }
  uint64_t total = 0;
  const uint64_t room = ((uint64_t)x->mask + 1) * sizeof *x->slots / sizeof *x->grec;
  int32_t rows = 0;
  for (size_t sl = 0; sl < ncs; sl++) x->lrow[sl] = -1;
  for (int32_t k = 0; k < ts->n; k++) {
    x->gbase[k] = UINT64_MAX;
    if (!may[k]) continue;
    const vt_tix_cell *c = x->cells + x->cell0[k];
    const uint32_t *dim = x->gdim + x->cell0[k];
    uint64_t cells = 1;
    for (int j = 0; j < x->ncell[k] && cells <= GRID_MAX; j++)
      cells = dim[j] <= VT_TIX_NO_LID ? cells * dim[j] : GRID_MAX + 1;
    if (cells > GRID_MAX || cells > GRID_FILL * n_ent[k] || total + cells > room) continue;
    x->gbase[k] = total;
    total += cells;
    for (int j = 0; j < x->ncell[k]; j++)
      if (x->lrow[c[j].slot] < 0) x->lrow[c[j].slot] = rows++;
  }
  if (!total) {
    free(x->gbase);
    x->gbase = NULL;
    st = 0;
    goto done;
  }
  x->lid = malloc((size_t)rows * nv * sizeof *x->lid + 1);
  x->grec = calloc((size_t)total, sizeof *x->grec);
  if (!x->lid || !x->grec) goto done;
  for (size_t sl = 0; sl < ncs; sl++)
    if (x->lrow[sl] >= 0)
      memcpy(x->lid + (size_t)x->lrow[sl] * nv, lids + sl * nv, nv * sizeof *lids);
  for (uint64_t i = 0; i <= x->mask; i++) {
    const vt_tix_entry *e = &x->slots[i];
    const int32_t k = vt_tix_key_tmpl(e->key);
    if (!e->rec || !vt_tix_grid(x, k)) continue;
    const vt_tix_cell *c = x->cells + x->cell0[k];
    uint64_t at = 0;
    entry_ids(x, e, x->ncell[k], id);
    for (int j = 0; j < x->ncell[k]; j++)
      at = at * x->gdim[x->cell0[k] + (uint32_t)j] + lids[(size_t)c[j].slot * nv + (size_t)id[j]];
    x->grec[x->gbase[k] + at] = e->rec;
  }
  st = 0;
done:
  free(may);
  free(n_ent);
  free(cnt);
  free(lids);
  free(use);
  return st;
}

/* Bytes the matrices of observation-dependent edges may take (tmpl_index.h). */
#define OBS_MATS_BYTES ((uint64_t)4 << 20)

/* Writes A plus the deltas of bigram record rec (NULL: none) into M (L*L), in the record's order.
 * Returns 0, or -1 when a key lies outside the matrix. */
static int obs_fold(const vt_textmodel *m, const uint8_t *rec, double *M) {
  const size_t LL = (size_t)m->L * (size_t)m->L;
  memcpy(M, m->A, LL * sizeof *M);
  if (!rec) return 0;
  vt_feat f;
  vt_feat_read(rec, m->key_bytes, &f);
  const uint32_t *key = f.keys;
  for (uint32_t e = 0; e < f.nnz; e++) {
    if (key[e] >= LL) return -1;
    M[key[e]] += f.vals[e];
  }
  return 0;
}

/* Lays out the observation-dependent edges by value (tmpl_index.h) when the model has one
 * bigram template, of one cell, found through the table (after the fast flags are final).
 * Returns 0, or -1 when out of memory. */
static int obs_build(vt_tmpl_index *x, const vt_textmodel *m) {
  const vt_tmplset *ts = &m->tmpl;
  const size_t stride = (size_t)m->L * (size_t)m->L + (size_t)vt_pad_up(m->L);
  const int32_t k = ts->n_b == 1 ? ts->b_idx[0] : -1;
  x->obs_k = k;
  if (!m->obs_bigram || k < 0 || !x->fast[k] || x->ncell[k] != 1) return 0;
  int32_t n = 0;
  for (uint64_t i = 0; i <= x->mask; i++)
    n += x->slots[i].rec && vt_tix_key_tmpl(x->slots[i].key) == k;
  if ((uint64_t)(n + 1) * stride * sizeof *x->obs_mats > OBS_MATS_BYTES) return 0;
  x->obs_mats = calloc((size_t)(n + 1) * stride, sizeof *x->obs_mats);
  x->obs_map = malloc(((size_t)x->n_val + 1) * sizeof *x->obs_map);
  if (!x->obs_mats || !x->obs_map) return -1;
  for (int32_t v = 0; v < x->n_val; v++) x->obs_map[v] = -1;
  int bad = obs_fold(m, NULL, x->obs_mats + (size_t)n * stride);
  int32_t at = 0;
  for (uint64_t i = 0; i <= x->mask && !bad; i++) {
    const vt_tix_entry *e = &x->slots[i];
    if (!e->rec || vt_tix_key_tmpl(e->key) != k) continue;
    x->obs_map[vt_tix_key_id1(e->key)] = at;
    bad = obs_fold(m, vt_tix_rec(m, e->rec), x->obs_mats + (size_t)at++ * stride);
  }
  if (bad) { /* the deltas' own path, which reads the records as they are */
    free(x->obs_mats);
    free(x->obs_map);
    x->obs_mats = NULL;
    x->obs_map = NULL;
  }
  x->obs_n = n;
  x->obs_stride = stride;
  return 0;
}

/* Reads the string from byte `pos` as items j.. of the template (`cell` cells read so far). */
static void split(split_ctx *c, uint32_t j, size_t pos, int cell) {
  if (c->bad || ++c->steps > MAX_STEPS) {
    c->bad = 1;
    return;
  }
  if (j == c->n_items) {
    if (pos != c->len) return;
    if (++c->splits > MAX_SPLITS) {
      c->bad = 1;
      return;
    }
    emit(c, cell);
    return;
  }
  const vt_tmpl_item *it = &c->it[j];
  if (it->kind == VT_TI_LIT) {
    if (c->len - pos >= it->len && memcmp(c->s + pos, c->ts->pool + it->off, it->len) == 0)
      split(c, j + 1, pos + it->len, cell);
    return;
  }
  c->cell_at[cell] = pos;
  if (j + 1 == c->n_items) { /* the last item: the rest */
    c->cell_len[cell] = c->len - pos;
    split(c, j + 1, c->len, cell + 1);
    return;
  }
  const vt_tmpl_item *nx = &c->it[j + 1];
  const char *lit = c->ts->pool + nx->off;
  for (size_t q = pos; q <= c->len && !c->bad; q++) {
    if (nx->kind == VT_TI_LIT) { /* the next literal must start at q */
      if (c->len - q < nx->len) break;
      const char *hit = memchr(c->s + q, lit[0], c->len - q);
      if (!hit) break;
      q = (size_t)(hit - c->s);
      if (c->len - q < nx->len) break;
      if (memcmp(hit, lit, nx->len) != 0) continue;
    }
    c->cell_len[cell] = q - pos;
    split(c, j + 1, q, cell + 1);
  }
}

/* A template and the first bytes of its first literal. */
typedef struct tmpl_pre {
  uint64_t key;
  int32_t k;
} tmpl_pre;

static int pre_cmp(const void *a, const void *b) {
  const tmpl_pre *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return x->k < y->k ? -1 : x->k > y->k;
}

/* Whether template k can be found through the index: at most MAX_CELLS macros and MAX_ITEMS
 * items (a unigram without macros, such as a bias, is one key). */
static int eligible(const vt_tmplset *ts, int32_t k) {
  const vt_tmpl *tm = &ts->t[k];
  if (tm->n_macros > MAX_CELLS || tm->n > MAX_ITEMS || (tm->bigram && tm->n_macros == 0)) return 0;
  const vt_tmpl_item *it = ts->items + tm->item0;
  for (uint32_t j = 0; j < tm->n; j++)
    if (it[j].kind == VT_TI_LIT && it[j].len == 0) return 0;
  return 1;
}

/* Whether macros a and b make the same text of a field: one column, one command, one case, one
 * regex. */
static int same_text(const vt_tmplset *ts, const vt_tmpl_item *a, const vt_tmpl_item *b) {
  if (a->col != b->col || a->kind != b->kind || a->caps != b->caps || a->fast != b->fast ||
      a->fast_n != b->fast_n)
    return 0;
  return a->kind == VT_TI_X || strcmp(ts->pool + a->off, ts->pool + b->off) == 0;
}

vt_status vt_tmpl_index_build(const vt_textmodel *m, vt_tmpl_index **out) {
  vt_status st = VT_ENOMEM;
  const vt_tmplset *ts = &m->tmpl;
  *out = NULL;
  if (ts->n == 0 || ts->n > VT_TIX_MAX_TMPL || (int64_t)ts->n_local * m->L > VT_TIX_LOCAL_WORK)
    return VT_OK;
  split_ctx c;
  memset(&c, 0, sizeof c);
  vt_tmpl_index *x = calloc(1, sizeof *x);
  if (!x) return VT_ENOMEM;
  atomic_init(&x->refs, 1);
  x->L = m->L;
  const uint64_t key = vt_hash_key();
  x->k0 = vt_mix64(key ^ 0x3C6EF372FE94F82Bull);
  x->k1 = vt_mix64(key ^ 0xA54FF53A5F1D36F1ull) | 1;
  x->n_tmpl = ts->n;
  x->wapiti = ts->wapiti;
  x->fast = calloc((size_t)ts->n, 1);
  x->ncell = calloc((size_t)ts->n, 1);
  x->cell0 = calloc((size_t)ts->n + 1, sizeof *x->cell0);
  x->cells = malloc(((size_t)ts->n_items + 1) * sizeof *x->cells);
  x->cs_col = malloc(((size_t)ts->n_items + 1) * sizeof *x->cs_col);
  x->cs_item = malloc(((size_t)ts->n_items + 1) * sizeof *x->cs_item);
  x->vmask = 1023;
  x->val_cap = 1024;
  x->vpool_cap = 16384;
  /* room for every record at half load: most records split one way, so the table rarely grows
   * (a growth holds the old and new tables at once: the load's peak) */
  x->mask = 1023;
  while (x->mask < UINT32_MAX / 4 && (uint64_t)x->mask + 1 < 2 * (uint64_t)m->n_feat)
    x->mask = x->mask * 2 + 1;
  x->vslots = calloc((size_t)x->vmask + 1, sizeof *x->vslots);
  x->voff = calloc((size_t)x->val_cap + 1, sizeof *x->voff);
  x->vpool = malloc((size_t)x->vpool_cap);
  x->slots = vt_mem_alloc_big(((size_t)x->mask + 1) * sizeof *x->slots);
  if (!x->fast || !x->ncell || !x->cell0 || !x->cells || !x->cs_col || !x->cs_item || !x->vslots ||
      !x->voff || !x->vpool || !x->slots)
    goto fail;
  /* at half load, the entries land on every page of the table */
  vt_mem_prefault(x->slots, ((size_t)x->mask + 1) * sizeof *x->slots);
  memset(x->slots, 0, ((size_t)x->mask + 1) * sizeof *x->slots);
  int any = 0;
  uint32_t n_cells = 0;
  for (int32_t k = 0; k < ts->n; k++) {
    x->cell0[k] = n_cells;
    if (!eligible(ts, k)) continue;
    x->fast[k] = 1;
    x->ncell[k] = (uint8_t)ts->t[k].n_macros;
    any = 1;
    for (uint32_t j = ts->t[k].item0; j < ts->t[k].item0 + ts->t[k].n; j++) {
      const vt_tmpl_item *it = &ts->items[j];
      if (it->kind == VT_TI_LIT) continue;
      int32_t sl = 0;
      while (sl < x->n_cs && !same_text(ts, &ts->items[x->cs_item[sl]], it)) sl++;
      if (sl == x->n_cs) {
        x->cs_col[x->n_cs] = it->col;
        x->cs_item[x->n_cs++] = j;
      }
      x->cells[n_cells].row = it->row;
      x->cells[n_cells].slot = sl;
      x->cells[n_cells++].abs = it->abs;
    }
  }
  x->cell0[ts->n] = n_cells;
  if (!any) {
    st = VT_OK;
    goto fail;
  }
  /* Every record against every template of its kind. */
  memset(&c, 0, sizeof c);
  c.x = x;
  c.ts = ts;
  /* The templates a record may read: those whose first literal starts it. Each fast template's
   * first P bytes (P: the shortest such literal, at most 8) as a key, the templates sorted by
   * it; a record's first P bytes find their run by binary search. Templates that start with a
   * macro are tried on every record. */
  tmpl_pre *pre = malloc(((size_t)ts->n + 1) * sizeof *pre);
  if (!pre) goto fail;
  uint32_t P = 8;
  for (int32_t k = 0; k < ts->n; k++) {
    const vt_tmpl_item *it = ts->items + ts->t[k].item0;
    if (x->fast[k] && it->kind == VT_TI_LIT && it->len < P) P = it->len;
  }
  const uint64_t pmask = P >= 8 ? ~0ull : (1ull << (8 * P)) - 1;
  int32_t n_pre = 0, n_any = 0;
  for (int32_t k = 0; k < ts->n; k++) {
    const vt_tmpl_item *it = ts->items + ts->t[k].item0;
    if (!x->fast[k] || it->kind == VT_TI_LIT) continue;
    pre[n_pre].key = 0; /* first: tried on every record */
    pre[n_pre++].k = k;
    n_any++;
  }
  for (int32_t k = 0; k < ts->n; k++) {
    const vt_tmpl_item *it = ts->items + ts->t[k].item0;
    if (!x->fast[k] || it->kind != VT_TI_LIT) continue;
    pre[n_pre].key = 0;
    memcpy(&pre[n_pre].key, ts->pool + it->off, P);
    pre[n_pre++].k = k;
  }
  qsort(pre + n_any, (size_t)(n_pre - n_any), sizeof *pre, pre_cmp);
  /* the templates tried and the splitting steps, at most WORK_PER_WORD per word of records */
  const uint64_t budget = WORK_PER_WORD * (m->recs_len / 4) + 65536;
  uint64_t work = 0;
  for (uint64_t pos = 0; pos < m->recs_len;) {
    vt_feat f;
    vt_feat_read(m->recs + pos, m->key_bytes, &f);
    uint64_t head = 0;
    if (f.len >= P) memcpy(&head, f.str, P);
    int32_t lo = n_any, hi = n_pre; /* the run of templates whose key is head */
    if (f.len < P) {
      lo = hi;
    } else {
      int32_t a = n_any, b = n_pre;
      while (a < b) {
        const int32_t mid = a + (b - a) / 2;
        if (pre[mid].key < (head & pmask))
          a = mid + 1;
        else
          b = mid;
      }
      lo = a;
      for (hi = lo; hi < n_pre && pre[hi].key == (head & pmask); hi++) {
      }
    }
    for (int32_t q = 0; q < hi; q++) {
      if (q == n_any && q < lo) q = lo;
      if (q >= hi) break;
      if (++work > budget) { /* a load stays linear in the file: the strings path instead */
        free(pre);
        st = VT_OK;
        goto fail;
      }
      const int32_t k = pre[q].k;
      const vt_tmpl *tm = &ts->t[k];
      if (!x->fast[k] || tm->bigram != f.bigram || f.len < tm->lit_len) continue;
      const vt_tmpl_item *it = ts->items + tm->item0;
      if (it->kind == VT_TI_LIT && memcmp(f.str, ts->pool + it->off, it->len) != 0) continue;
      c.it = it;
      c.n_items = tm->n;
      c.k = k;
      c.s = f.str;
      c.len = f.len;
      c.rec = (uint32_t)(pos / 4 + 1);
      c.splits = c.steps = c.bad = 0;
      split(&c, 0, 0, 0);
      work += (uint64_t)c.steps;
      if (c.oom) {
        free(pre);
        goto fail;
      }
      if (c.bad) x->fast[k] = 0;
    }
    pos += vt_feat_size(f.len, f.nnz, vt_feat_key_bytes(&f, m->key_bytes));
  }
  free(pre);
  x->cs_shared = calloc((size_t)x->n_cs + 1, 1);
  if (!x->cs_shared) goto fail;
  for (int32_t k = 0; k < ts->n; k++) { /* the slots a token's neighbours or bigrams read */
    int local = 0;
    for (int32_t j = 0; j < ts->n_local; j++) local |= ts->u_ord[j] == k;
    if (!local)
      for (uint32_t i = x->cell0[k]; i < x->cell0[k + 1]; i++) x->cs_shared[x->cells[i].slot] = 1;
  }
  for (uint32_t i = 0; i < n_cells; i++) /* how far the relative rows read */
    if (!x->cells[i].abs) {
      const int64_t d = x->cells[i].row < 0 ? -(int64_t)x->cells[i].row : x->cells[i].row;
      if (d > x->pad) x->pad = d > VT_TIX_SENT ? VT_TIX_SENT : (int32_t)d;
    }
  if (direct_build(x, ts) || grid_build(x, ts) || obs_build(x, m)) goto fail;
  x->sent = malloc(((size_t)x->n_cs * 2 * (VT_TIX_SENT + 1) + 1) * sizeof *x->sent);
  if (!x->sent) goto fail;
  for (int32_t sl = 0; sl < x->n_cs; sl++)
    for (int side = 0; side < 2; side++)
      for (int64_t d = 1; d <= VT_TIX_SENT; d++) /* T = 0: after it, distance d is d - 1 */
        x->sent[((size_t)sl * 2 + (size_t)side) * (VT_TIX_SENT + 1) + (size_t)d] =
            vt_tix_sentinel_text(x, ts, sl, side ? d - 1 : -d, 0);
  x->all_fast = x->local_fast = 1;
  for (int32_t k = 0; k < ts->n_local; k++) x->local_fast &= x->fast[ts->u_ord[k]];
  for (int32_t k = 0; k < ts->n_u; k++) {
    if (x->fast[ts->u_idx[k]])
      x->any_fast = 1;
    else
      x->all_fast = 0;
  }
  *out = x;
  return VT_OK;
fail:
  vt_tmpl_index_free(x);
  return st;
}
