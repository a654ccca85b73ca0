/* engine/text/tmpl_index.h: a template model's features keyed by the values of their cells, built
 * at load time, so that tagging finds a feature without building its string.
 *
 * A template expands to LIT0 CELL1 LIT1 ... CELLm LITm, each cell the text a macro makes of a
 * field: the field (%x), lower-cased (%X), the part a regex matches (%m), "true" or "false"
 * (%t). At load every feature record is split against every template of its kind (unigram or
 * bigram): each way its string reads as that template gives the cells' texts. Each distinct
 * text gets an id (a dictionary of values), and the tuple (template, id of cell 1, ..., id of
 * cell m) leads to the record. At tagging each token's fields are made into each text slot's
 * text once (a slot: a column and a command) and looked up once, and each feature is one probe
 * of a table of integer keys.
 *
 * Exact: template k expands to a record's string at a position iff one of the splits of that
 * string has the cells' texts there (every split is registered, so a string that reads two ways
 * is found from either), and a text no record holds has no id (the feature is unknown). A
 * template whose records split too many ways (literals the values hold, adjacent macros), or
 * whose key two records share, is left to the string path (vt_tmpl_index.fast is 0 for it). */
#ifndef VT_TEXT_TMPL_INDEX_H
#define VT_TEXT_TMPL_INDEX_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "text/strhash.h"
#include "text/template.h"
#include "vitesse.h"

/* Templates and value ids a key packs: 12 bits of template, 26 bits per id of the first two
 * cells (the other cells' ids are kept beside the entry and compared). */
#define VT_TIX_MAX_TMPL 4095
#define VT_TIX_MAX_ID 0x3FFFFFE
#define VT_TIX_NO_ID 0x3FFFFFF /* the second id of a one-cell template */
/* Sentinel ids kept per side (positions before the sentence, after it). */
#define VT_TIX_SENT 32
/* Cells (macros) a template the index finds may have. */
#define VT_TIX_MAX_CELLS 16
/* A value no record of a grid template holds in a slot (tmpl_index.h's grids). */
#define VT_TIX_NO_LID 0xFFFF

typedef struct vt_tix_entry {
  uint64_t key;  /* template << 52 | id1 << 26 | id2 */
  uint32_t rec;  /* record word offset + 1; 0 = empty */
  uint32_t tail; /* a template of 3 cells: the id of its third; of more: its ids of cells 3.. in
                  * tails, from here (vt_tix_tail_eq) */
} vt_tix_entry;

/* A cell of a template the index finds: where its macro reads. */
typedef struct vt_tix_cell {
  int32_t row;  /* relative row, or Wapiti's absolute one when abs */
  int32_t slot; /* text slot (cs_col, cs_item) */
  int32_t abs;
} vt_tix_cell;

typedef struct vt_tmpl_index {
  atomic_int refs; /* the models that hold it (a model and its replicas share one) */
  uint64_t k0, k1; /* the hash's key (the process's, strhash.h) */
  /* values: slots of (fingerprint << 32 | id + 1), the strings in vpool at voff[id] */
  uint64_t *vslots;
  uint32_t vmask;
  char *vpool;
  uint64_t vpool_len, vpool_cap;
  uint64_t *voff; /* n_val + 1 */
  int32_t n_val, val_cap;
  /* (template, ids) -> record */
  vt_tix_entry *slots;
  uint32_t mask;
  uint64_t n_ent;
  uint32_t *tails;
  uint64_t tails_len, tails_cap;
  int32_t n_tmpl;
  int32_t L;
  uint8_t *fast;      /* per template: found through the table */
  uint8_t *ncell;     /* per template: its cells (macros) */
  uint32_t *cell0;    /* per template: its first cell in cells (fast templates only) */
  vt_tix_cell *cells; /* the fast templates' cells, in order */
  /* Text slots: what the fast templates' macros make of a field, one per column and command
   * (%x, %X, each %t or %m regex): its column and a macro that makes it. */
  int32_t n_cs;
  int32_t *cs_col;    /* n_cs columns */
  uint32_t *cs_item;  /* n_cs items of the template set */
  uint8_t *cs_shared; /* per slot: read by a template that is not local (rowcache.h) or by a
                         bigram template, so needed at a token whose local row came from a row
                         cache */
  int32_t pad;        /* relative rows up to this far (at most VT_TIX_SENT) read the padded ids
                         of vt_tix_cells directly */
  int32_t *sent;      /* per slot, before and after the sentence, distance 0..VT_TIX_SENT: the id
                         of the text the slot makes of the sentinel there (distance 0 unused) */
  /* Direct templates: unigram templates of one cell on a near row (at most pad away), found by
   * the cell's value id without the table. Per text slot sl, its direct templates have places
   * 0..dn[sl]-1 and each value id a row of dn[sl] records: template k's record for id v is
   * drec[dbase[sl] + v * dn[sl] + dpos[k]] (word offset + 1; 0: none), the entry of key
   * (k, v) in the table. dpos is NULL when there are none (or their rows would outweigh the
   * table); dpos[k] is -1 for a template that is not direct. */
  int32_t *dpos;
  uint32_t *dn;
  uint64_t *dbase;
  uint32_t *drec;
  /* Grid templates: unigram templates of two or more near cells whose cells hold few values,
   * found by their cells' local ids in a grid of records, without the table. A slot a grid
   * template reads numbers the values in its records 0, 1, ..., those in more records first:
   * value v's local id is lid[lrow[sl] * n_val + v] (VT_TIX_NO_LID: no record holds v there).
   * Cell i of x->cells (of a grid template) spans local ids 0..gdim[i]-1. Template k's record
   * for cells of local ids l1..lm is grec[gbase[k] + p], p the ids read as digits of bases
   * gdim (l1 the most significant): word offset + 1, 0: none (also where some l is past its
   * span), the entry of the table for the same key. gbase is NULL when no template is a grid;
   * gbase[k] is UINT64_MAX for a template that is not. */
  uint64_t *gbase;
  uint32_t *gdim;
  int32_t *lrow;
  uint16_t *lid;
  uint32_t *grec;
  /* Observation-dependent edges by value: when the model's one bigram template (beside the
   * label bigram, which is A) has one cell, position t's edge scores (A plus the deltas of that
   * template's record at t) depend only on the cell's value id v at t: they are matrix
   * obs_map[v] of obs_mats (-1, and a value with no id: matrix obs_n, A itself), each L*L
   * doubles and vt_pad_up(L) zeros, obs_stride apart; obs_k is the template. obs_mats is NULL
   * for other models, or when the matrices would take more than 4 MB. */
  double *obs_mats;
  int32_t *obs_map;
  int32_t obs_k, obs_n;
  size_t obs_stride;
  int any_fast;   /* some unigram template is fast */
  int all_fast;   /* every unigram template is fast */
  int wapiti;     /* the templates' dialect (sentinels) */
  int local_fast; /* every local unigram template (rowcache.h) is fast: a row cache saves
                     nothing */
} vt_tmpl_index;

/* Whether template k is found by its cell's value id (the direct templates above). */
static inline int vt_tix_direct(const vt_tmpl_index *x, int32_t k) {
  return x->dpos && x->dpos[k] >= 0;
}

/* Whether template k is found by its cells' local ids (the grid templates above). */
static inline int vt_tix_grid(const vt_tmpl_index *x, int32_t k) {
  return x->gbase && x->gbase[k] != UINT64_MAX;
}

/* The keyed hash of `n` bytes at s (reads only those bytes). */
static inline uint64_t vt_tix_hash(const vt_tmpl_index *x, const char *s, size_t n) {
  return vt_strhash_wide(x->k0, x->k1, s, n);
}

/* The id of value [s, s + n) whose hash is h, or -1 when no record holds it. */
static inline int32_t vt_tix_value(const vt_tmpl_index *x, const char *s, size_t n, uint64_t h) {
  const uint32_t fp = (uint32_t)(h >> 32);
  for (uint32_t i = (uint32_t)h & x->vmask;; i = (i + 1) & x->vmask) {
    const uint64_t v = x->vslots[i];
    if (!v) return -1;
    if ((uint32_t)(v >> 32) == fp) {
      const int32_t id = (int32_t)(uint32_t)v - 1;
      const uint64_t o = x->voff[id];
      if (x->voff[id + 1] - o == n && vt_bytes_eq(x->vpool + o, s, n)) return id;
    }
  }
}

/* The slot where key `key` starts its probe. */
static inline uint32_t vt_tix_slot(const vt_tmpl_index *x, uint64_t key) {
  return (uint32_t)(vt_mix64(key ^ x->k1) & x->mask);
}

/* Whether entry e holds the ids tail[0..n_tail) of cells 3.. (n_tail >= 1). */
static inline int vt_tix_tail_eq(const vt_tmpl_index *x, const vt_tix_entry *e, const int32_t *tail,
                                 uint32_t n_tail) {
  if (n_tail == 1) return e->tail == (uint32_t)tail[0];
  uint32_t j = 0;
  while (j < n_tail && x->tails[e->tail + j] == (uint32_t)tail[j]) j++;
  return j == n_tail;
}

/* The entry of (key, tail ids of n_tail cells) probing from slot `at` (vt_tix_slot), NULL when
 * absent. */
static inline const vt_tix_entry *vt_tix_find(const vt_tmpl_index *x, uint32_t at, uint64_t key,
                                              const int32_t *tail, uint32_t n_tail) {
  for (uint32_t i = at;; i = (i + 1) & x->mask) {
    const vt_tix_entry *e = &x->slots[i];
    if (!e->rec) return NULL;
    if (e->key == key && (n_tail == 0 || vt_tix_tail_eq(x, e, tail, n_tail))) return e;
  }
}

/* The key of template k with first ids a and b (b = VT_TIX_NO_ID for one cell). */
static inline uint64_t vt_tix_key(int32_t k, int32_t a, int32_t b) {
  return (uint64_t)k << 52 | (uint64_t)(uint32_t)a << 26 | (uint64_t)(uint32_t)b;
}

/* The template of key `key` (vt_tix_key). */
static inline int32_t vt_tix_key_tmpl(uint64_t key) { return (int32_t)(key >> 52); }

/* The id of the first cell of key `key` (vt_tix_key). */
static inline int32_t vt_tix_key_id1(uint64_t key) { return (int32_t)(key >> 26 & 0x3FFFFFF); }

/* The id of the second cell of key `key` (vt_tix_key). */
static inline int32_t vt_tix_key_id2(uint64_t key) { return (int32_t)(key & 0x3FFFFFF); }

/* Whether cell c reads a near row: a relative one at most x->pad away, whose id the padded ids
 * of vt_tix_cells hold (sentinels included). */
static inline int vt_tix_near(const vt_tmpl_index *x, const vt_tix_cell *c) {
  return !c->abs && c->row >= -x->pad && c->row <= x->pad;
}

/* The local templates' labels (n_local * L) past which copying their summed row from a row cache
 * (rowcache.h) costs less than adding their rows: then the cache serves the local templates and
 * no index is built (its load time and memory would buy the few other templates little). */
#define VT_TIX_LOCAL_WORK 256

/* Whether a row cache pays for a model (templates ts, L labels) with index x (may be NULL): when
 * there is no index, when it does not find every local template, or past VT_TIX_LOCAL_WORK. */
static inline int vt_tix_rowcache_pays(const vt_tmpl_index *x, const vt_tmplset *ts, int32_t L) {
  return !x || !x->local_fast || (int64_t)ts->n_local * L > VT_TIX_LOCAL_WORK;
}

/* Another holder of x (a replica of its model); returns x. NULL is a no-op. */
vt_tmpl_index *vt_tmpl_index_retain(vt_tmpl_index *x);

/* Drops a hold on x, freeing it with the last; NULL is a no-op. */
void vt_tmpl_index_free(vt_tmpl_index *x);

/* The id of the text slot sl makes of the sentinel a cell at position idx (outside [0, T))
 * reads, -1 when no record holds it (ts: the model's templates): the table's for the nearest
 * VT_TIX_SENT, else vt_tix_sentinel_text. */
int32_t vt_tix_sentinel(const vt_tmpl_index *x, const vt_tmplset *ts, int32_t sl, int64_t idx,
                        int32_t T);

/* As vt_tix_sentinel, from the sentinel's text: made, turned into the slot's text and looked up. */
int32_t vt_tix_sentinel_text(const vt_tmpl_index *x, const vt_tmplset *ts, int32_t sl, int64_t idx,
                             int32_t T);

#endif
