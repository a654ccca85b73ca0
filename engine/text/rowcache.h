/* engine/text/rowcache.h: a per-worker cache of the emission rows that depend on the current token
 * alone.
 *
 * Most unigram templates read only the current token (`%x[0,0]`, its prefixes, suffixes and
 * shapes, a bias): call them local. Their summed weights are a function of the token's fields
 * in the columns they read (the key), so a tagger that sees a frequent word again can copy the
 * summed row instead of expanding, hashing, looking up and adding a dozen features. The
 * emission code (engine/text/batch_tag.c) always sums the local templates first, in template order,
 * from 0.0, then the others: a cached row is bit for bit the partial sum a miss computes, so
 * output never depends on what a cache holds (nor on which worker tagged a sentence).
 *
 * Direct-mapped: a key hashes to one entry; a miss replaces it only when it has no uses left
 * (each hit adds one, each miss that wanted it takes one). The key bytes are stored and
 * compared in full (a hash match alone is never trusted). One cache serves one model and one
 * thread. */
#ifndef VT_TEXT_ROWCACHE_H
#define VT_TEXT_ROWCACHE_H

#include <stddef.h>
#include <stdint.h>

#include "text/textmodel.h"

/* Keys longer than this are not cached (such tokens take the ordinary path). */
#define VT_ROWCACHE_KEY_MAX 44

typedef struct vt_rowcache_entry {
  uint64_t hash;
  uint32_t klen;   /* UINT32_MAX: empty */
  int32_t unknown; /* local feature strings the model lacks (for the statistics) */
  uint32_t uses;   /* hits minus the misses that wanted the entry since (admission) */
  unsigned char key[VT_ROWCACHE_KEY_MAX];
} vt_rowcache_entry;

typedef struct vt_rowcache {
  const vt_textmodel *model; /* the model the rows belong to */
  uint32_t mask;             /* entries - 1 */
  size_t ld;                 /* doubles per row (L rounded up to 8) */
  vt_rowcache_entry *entries;
  double *rows;
  int64_t hits, misses;
} vt_rowcache;

/* Writes the key of token t of `tk` (the fields of the columns in `cols`, each as a 4-byte
 * length and its bytes) into key (VT_ROWCACHE_KEY_MAX bytes); returns its length, or 0 when it
 * does not fit (the token is then not cached). */
uint32_t vt_rowcache_key(const vt_tokens *tk, int32_t t, uint32_t cols, unsigned char *key);

/* Looks token t of `tk` up (key columns `cols`): returns the index of the entry holding its row
 * (counting a use), or -1. On -1, *slot is the entry the caller must fill once the row is
 * computed (entries[*slot] gets hash *hash, the key, unknown, uses 0; rows + *slot * ld the
 * row), or -1 when the token is not to be cached: its key does not fit, or the entry keeps its
 * row (a hit earns an entry a use, a miss that wants it costs one, and only an entry without
 * uses is replaced, so rare words do not push out frequent ones). An entry to fill is emptied
 * at once, so a later token of the same sentence cannot hit the row before it is rewritten:
 * a caller probes every token of a sentence first, then reads and fills rows in token order. */
int64_t vt_rowcache_probe(vt_rowcache *c, const vt_tokens *tk, int32_t t, uint32_t cols,
                          int64_t *slot, uint64_t *hash);

/* Creates a cache for model `m` holding as many rows as fit in about `max_bytes` (a power of
 * two, at least 16 and at most 65,536 entries). Returns VT_OK, VT_EINVAL (m NULL) or
 * VT_ENOMEM (*out is then NULL). */
vt_status vt_rowcache_create(vt_rowcache **out, const vt_textmodel *m, size_t max_bytes);

/* Frees the cache. NULL is a no-op. */
void vt_rowcache_destroy(vt_rowcache *c);

#endif
