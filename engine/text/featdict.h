/* engine/text/featdict.h: an exact string -> id dictionary (feature strings, label names).
 *
 * Open addressing over 64-bit slots holding (32 bits of the hash, id + 1); a hit on the hash bits
 * is confirmed by comparing the stored bytes, so two strings never share an id. Ids are dense,
 * 0 .. n-1 in order of first insertion; each id keeps a count of its insertions. The hash is
 * keyed per process (strhash.h), so input cannot flood the table, and no id depends on it. */
#ifndef VT_TEXT_FEATDICT_H
#define VT_TEXT_FEATDICT_H

#include <stddef.h>
#include <stdint.h>

#include "vitesse.h"

typedef struct vt_featdict {
  uint64_t *slots; /* (hash >> 32) << 32 | (id + 1); 0 = empty */
  uint64_t mask;   /* slot count - 1 (a power of two minus one) */
  char *pool;      /* the strings, back to back */
  size_t pool_len, pool_cap;
  uint64_t *off;   /* n + 1 offsets into pool: string id is pool[off[id] .. off[id+1]) */
  uint32_t *count; /* insertions per id */
  int32_t n, cap;
  uint64_t key, key1; /* the process's hash keys (strhash.h): slots only, never ids */
} vt_featdict;

/* Initializes an empty dictionary. Returns VT_OK or VT_ENOMEM (*d is then empty and freeable). */
vt_status vt_featdict_init(vt_featdict *d);

/* Frees everything; *d becomes a zeroed struct. Fine on a zeroed struct. */
void vt_featdict_free(vt_featdict *d);

/* Returns the id of the `len` bytes at `s`, or -1 when absent. */
int32_t vt_featdict_find(const vt_featdict *d, const char *s, size_t len);

/* Finds or inserts the `len` bytes at `s`, adds one to its count and stores its id in *id.
 * Returns VT_OK, VT_ENOMEM, or VT_EINVAL past INT32_MAX - 1 entries. */
vt_status vt_featdict_add(vt_featdict *d, const char *s, size_t len, int32_t *id);

/* Many lookups at once: a reader that hashes a line's strings first (vt_featdict_hash), then
 * brings their slots toward the cache (vt_featdict_prefetch stage 0), then the offsets of the
 * entries those slots hold (stage 1), then their bytes (stage 2), and only then looks them up
 * in order (the _hashed calls), overlaps the cache misses of the whole line instead of taking
 * three dependent ones a string. The hints change nothing; the ids are vt_featdict_add's. */
uint64_t vt_featdict_hash(const vt_featdict *d, const char *s, size_t len);
void vt_featdict_prefetch(const vt_featdict *d, uint64_t h, int stage);

/* vt_featdict_add and vt_featdict_find with h = vt_featdict_hash(d, s, len). */
vt_status vt_featdict_add_hashed(vt_featdict *d, const char *s, size_t len, uint64_t h,
                                 int32_t *id);
int32_t vt_featdict_find_hashed(const vt_featdict *d, const char *s, size_t len, uint64_t h);

/* The first byte of the label s[0, n) that a model cannot hold (a control byte: below 0x20,
 * or 0x7f; a newline would forge a sentence break in tagging's output, a tab a column, a NUL
 * cut the name short), or NULL. The readers of training data refuse these labels (item files,
 * column corpora, joint corpora), and the model loader the same. */
const unsigned char *vt_label_control(const unsigned char *s, size_t n);

/* The bytes of entry `id` (0 <= id < n) and their length. */
static inline const char *vt_featdict_str(const vt_featdict *d, int32_t id, size_t *len) {
  *len = (size_t)(d->off[id + 1] - d->off[id]);
  return d->pool + d->off[id];
}

#endif
