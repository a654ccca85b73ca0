/* engine/text/crfs_index.c: building the tagger's attribute index (crfs_index.h). */
#include "text/crfs_index.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/prefault.h"
#include "text/strhash.h"

/* Bytes of a record's name, padded. */
static uint64_t pad8(uint64_t n) { return (n + 7) & ~7ull; }

/* Whether attribute a's features go in a dense row: they cover a third of the labels or more,
 * or three labels and a sixth of them (a row of vector additions then takes fewer instructions
 * than the scattered ones: at 22 labels a run took 1-4% less time with the sixth than with the
 * third alone, for 4% more memory; at 8 labels a third is three), and their labels are
 * distinct. */
static int dense_fits(const vt_crfs_attrs *m, uint32_t a, unsigned char *seen) {
  const uint32_t b = m->st_off[a], n = m->st_off[a + 1] - b;
  const uint64_t L = (uint64_t)m->L;
  if (n == 0 || ((uint64_t)n * 3 < L && (n < 3 || (uint64_t)n * 6 < L))) return 0;
  int ok = 1;
  for (uint32_t f = b; f < b + n && ok; f++) {
    const uint32_t y = m->st_label[f];
    ok = !seen[y];
    seen[y] = 1;
  }
  for (uint32_t f = b; f < b + n; f++) seen[m->st_label[f]] = 0;
  return ok;
}

/* Attributes hashed ahead of their insertion. */
#define BUILD_AHEAD 16

/* The hash of attribute a's name; its slot is prefetched. */
static uint64_t name_hash(const vt_crfs_index *x, const vt_crfs_attrs *m, uint32_t a) {
  const uint64_t h = vt_crfs_index_hash(x, m->pool + m->off[a], m->off[a + 1] - m->off[a]);
  __builtin_prefetch(&x->slots[(uint32_t)h & x->mask], 1);
  return h;
}

vt_status vt_crfs_index_build(vt_crfs_index *x, const vt_crfs_attrs *m, uint32_t *dup) {
  vt_status st = VT_ENOMEM;
  const uint32_t A = m->A, L = (uint32_t)m->L;
  const uint32_t Lp = (L + VT_CRFS_ROW_PAD - 1) / VT_CRFS_ROW_PAD * VT_CRFS_ROW_PAD;
  unsigned char *seen = calloc(L, 1), *dense = calloc((size_t)A + 1, 1);
  memset(x, 0, sizeof *x);
  if (!seen || !dense) goto done;
  const uint64_t key = vt_hash_key();
  vt_nh_key_init(&x->key, key);
  uint64_t bytes = 16; /* unit 0 and 1 unused: a slot's unit is never 0 */
  for (uint32_t f = 0; f < m->st_off[A]; f++)
    if (fabs(m->st_w[f]) > x->wmax) x->wmax = fabs(m->st_w[f]);
  for (uint32_t a = 0; a < A; a++) {
    const uint64_t n = m->st_off[a + 1] - m->st_off[a];
    dense[a] = (unsigned char)dense_fits(m, a, seen);
    x->dense += dense[a];
    bytes += sizeof(vt_crfs_rec) + pad8(m->off[a + 1] - m->off[a]) +
             (dense[a] ? 8ull * Lp : 8 * n + pad8(4 * n));
  }
  if (bytes / 8 > UINT32_MAX) goto done;
  uint64_t n_slots = 16;
  while (n_slots < (uint64_t)A + A / 2 + 1) n_slots *= 2; /* at most two-thirds full */
  if (n_slots - 1 > UINT32_MAX) goto done;
  x->slots = vt_mem_alloc_big((size_t)n_slots * sizeof *x->slots);
  x->recs = vt_mem_alloc_big((size_t)bytes);
  if (!x->slots || !x->recs) goto done;
  vt_mem_prefault(x->slots, (size_t)n_slots * sizeof *x->slots); /* both written all over */
  vt_mem_prefault(x->recs, (size_t)bytes);
  memset(x->slots, 0, (size_t)n_slots * sizeof *x->slots);
  x->mask = (uint32_t)(n_slots - 1);
  x->rec_bytes = bytes;
  memset(x->recs, 0, 16);
  uint64_t at = 16;
  /* Each name is hashed and its slot prefetched BUILD_AHEAD attributes before it is inserted:
   * the slots are random places in a table larger than the caches, so the misses overlap. The
   * insertions keep attribute order: the same table. */
  uint64_t ahead[BUILD_AHEAD];
  for (uint32_t a = 0; a < A && a < BUILD_AHEAD; a++) ahead[a] = name_hash(x, m, a);
  for (uint32_t a = 0; a < A; a++) {
    const char *s = m->pool + m->off[a];
    const uint32_t len = m->off[a + 1] - m->off[a];
    const uint32_t b = m->st_off[a], n = m->st_off[a + 1] - b;
    const uint64_t h = ahead[a % BUILD_AHEAD];
    if (a + BUILD_AHEAD < A) ahead[a % BUILD_AHEAD] = name_hash(x, m, a + BUILD_AHEAD);
    uint32_t i = (uint32_t)h & x->mask;
    if (vt_crfs_index_probe(x, h, s, len, &i)) {
      *dup = a;
      st = VT_EFORMAT;
      goto done;
    }
    while (x->slots[i]) i = (i + 1) & x->mask;
    x->slots[i] = (h >> 32) << 32 | (at / 8);
    vt_crfs_rec *r = (vt_crfs_rec *)(void *)(x->recs + at);
    r->len = len;
    r->id = a;
    r->dense = dense[a];
    r->n = dense[a] ? Lp : n;
    char *name = (char *)(r + 1);
    memset(name, 0, (size_t)pad8(len));
    memcpy(name, s, len);
    double *w = (double *)(void *)(name + pad8(len));
    if (dense[a]) {
      for (uint32_t y = 0; y < Lp; y++) w[y] = 0.0;
      for (uint32_t f = b; f < b + n; f++) w[m->st_label[f]] = m->st_w[f];
    } else {
      uint32_t *lab = (uint32_t *)(void *)(w + n);
      memcpy(w, m->st_w + b, (size_t)n * 8);
      memcpy(lab, m->st_label + b, (size_t)n * 4);
      if (n & 1) lab[n] = 0;
    }
    at += sizeof(vt_crfs_rec) + pad8(len) + (dense[a] ? 8ull * Lp : 8ull * n + pad8(4ull * n));
  }
  st = VT_OK;
done:
  free(seen);
  free(dense);
  if (st != VT_OK) vt_crfs_index_free(x);
  return st;
}

void vt_crfs_index_free(vt_crfs_index *x) {
  free(x->slots);
  free(x->recs);
  memset(x, 0, sizeof *x);
}

int64_t vt_crfs_index_find(const vt_crfs_index *x, const char *s, size_t n) {
  if (!x->slots) return -1;
  const uint64_t h = vt_crfs_index_hash(x, s, n);
  uint32_t i = (uint32_t)h & x->mask;
  const vt_crfs_rec *r = vt_crfs_index_probe(x, h, s, n, &i);
  return r ? (int64_t)r->id : -1;
}
