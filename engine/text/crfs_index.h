/* engine/text/crfs_index.h: a CRFsuite model's attributes laid out for the tagger's lookups,
 * built at load time from the model's arrays (crfs.h).
 *
 * Each attribute is one record: its name, then its state features, either as a sparse list of
 * weights and labels or, when they cover enough of the labels (crfs_index.c: a third, or a sixth
 * and three), as a dense row of L weights.
 * A table of 64-bit slots (a 32-bit fingerprint of the name's hash beside the record's place)
 * leads to the records: a probe that misses compares fingerprints only, never a name, so a
 * lookup costs one cache miss in the table and one in the record, whose name and weights lie
 * together. The hash is keyed with the process's key (strhash.h): names made to share a hash
 * cannot flood the table. */
#ifndef VT_TEXT_CRFS_INDEX_H
#define VT_TEXT_CRFS_INDEX_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "text/strhash.h"
#include "vitesse.h"

/* A record's head; the name follows, zero-padded to 8 bytes, then the weights. */
typedef struct vt_crfs_rec {
  uint32_t len;   /* name bytes */
  uint32_t id;    /* attribute id */
  uint32_t n;     /* sparse: state features; dense: L rounded up to VT_CRFS_ROW_PAD */
  uint32_t dense; /* 1: n weights by label, L of them and zeros to fill (0.0 where the attribute
                   * has no feature: a row starts at +0.0 and so is never -0.0, and x + 0.0 = x
                   * for every other x, so adding it changes no bit, in this row or in the next
                   * one's first labels); 0: n weights, then their n labels */
} vt_crfs_rec;

/* Dense rows are whole blocks of this many weights: a row of L labels adds into the emission row
 * and the first labels of the next, so emission rows need this many doubles after the last. */
#define VT_CRFS_ROW_PAD 8

typedef struct vt_crfs_index {
  uint64_t *slots; /* mask + 1 slots: (fingerprint << 32) | record unit; 0 = empty */
  uint32_t mask;
  vt_nh_key key;       /* the hash's key */
  unsigned char *recs; /* records, 8-byte units, unit 0 unused */
  uint64_t rec_bytes;
  uint32_t dense; /* attributes stored dense */
  double wmax;    /* the largest |weight| of a state feature */
} vt_crfs_index;

/* The keyed hash of the index: `n` bytes at s (reads only those bytes). The rows compute the
 * same value at their level (vt_crfs_rows_ops.hash). */
static inline uint64_t vt_crfs_index_hash(const vt_crfs_index *x, const char *s, size_t n) {
  return vt_strhash_nh(&x->key, s, n);
}

/* The record at slot value v. */
static inline const vt_crfs_rec *vt_crfs_index_rec(const vt_crfs_index *x, uint64_t v) {
  return (const vt_crfs_rec *)(const void *)(x->recs + 8 * (v & 0xFFFFFFFFu));
}

/* The name of record r (zero-padded to 8 bytes). */
static inline const char *vt_crfs_rec_name(const vt_crfs_rec *r) { return (const char *)(r + 1); }

/* The weights of record r (dense: by label; sparse: r->n, their labels after them). */
static inline const double *vt_crfs_rec_w(const vt_crfs_rec *r) {
  return (const double *)(const void *)((const char *)(r + 1) + ((r->len + 7u) & ~7u));
}

/* Whether record r is named by the `n` bytes at s. */
static inline int vt_crfs_rec_is(const vt_crfs_rec *r, const char *s, size_t n) {
  return r->len == n && vt_bytes_eq(vt_crfs_rec_name(r), s, n);
}

/* The record of the `n` bytes at s whose hash is h, probing from slot *at (at first h & mask; to
 * go on past a record found, the slot after it); *at gets the slot where it was found. NULL when
 * absent. */
static inline const vt_crfs_rec *vt_crfs_index_probe(const vt_crfs_index *x, uint64_t h,
                                                     const char *s, size_t n, uint32_t *at) {
  const uint32_t fp = (uint32_t)(h >> 32);
  for (uint32_t i = *at;; i = (i + 1) & x->mask) {
    const uint64_t v = x->slots[i];
    if (!v) return NULL;
    if ((uint32_t)(v >> 32) == fp) {
      const vt_crfs_rec *r = vt_crfs_index_rec(x, v);
      if (vt_crfs_rec_is(r, s, n)) {
        *at = i;
        return r;
      }
    }
  }
}

/* A model's attributes as its arrays hold them (crfs.h): A names, and each one's state features
 * (labels < L, weights) back to back in file order. */
typedef struct vt_crfs_attrs {
  uint32_t A;
  int32_t L;
  const uint32_t *off; /* A + 1 offsets into pool */
  const char *pool;
  const uint32_t *st_off; /* A + 1 offsets into st_label and st_w */
  const uint32_t *st_label;
  const double *st_w;
} vt_crfs_attrs;

/* Builds the index of the attributes `a` into *x. Returns VT_OK, VT_EFORMAT (two attributes with
 * one name: *dup gets the later id) or VT_ENOMEM. */
vt_status vt_crfs_index_build(vt_crfs_index *x, const vt_crfs_attrs *a, uint32_t *dup);

/* Frees what the index holds (zeroing it). */
void vt_crfs_index_free(vt_crfs_index *x);

/* The id of the `n` bytes at s, or -1. */
int64_t vt_crfs_index_find(const vt_crfs_index *x, const char *s, size_t n);

#endif
