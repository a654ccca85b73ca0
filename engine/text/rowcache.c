/* engine/text/rowcache.c: the row cache (rowcache.h): the local-template order, keys, probing. */
#include "text/rowcache.h"

#include <stdlib.h>
#include <string.h>

#include "text/strhash.h"

_Static_assert(sizeof(vt_rowcache_entry) == 64, "a cache entry is one cache line");

/* Entries at most; the fuzzing build keeps the cache small (a tagger per input would otherwise
 * clear megabytes, and a small cache reaches its eviction path). */
#ifdef VT_FUZZ_SMALL_BUFFERS
#define MAX_ENTRIES 64
#else
#define MAX_ENTRIES 65536
#endif

vt_status vt_rowcache_create(vt_rowcache **out, const vt_textmodel *m, size_t max_bytes) {
  *out = NULL;
  if (!m) return VT_EINVAL;
  vt_rowcache *c = calloc(1, sizeof *c);
  if (!c) return VT_ENOMEM;
  c->model = m;
  c->ld = ((size_t)m->L + 7) & ~(size_t)7;
  size_t per = c->ld * sizeof(double) + sizeof(vt_rowcache_entry), n = 16;
  while (n < MAX_ENTRIES && 2 * n * per <= max_bytes) n *= 2;
  c->mask = (uint32_t)(n - 1);
  c->entries = aligned_alloc(64, n * sizeof *c->entries);
  c->rows = aligned_alloc(64, n * c->ld * sizeof(double));
  if (!c->entries || !c->rows) {
    vt_rowcache_destroy(c);
    return VT_ENOMEM;
  }
  memset(c->entries, 0, n * sizeof *c->entries);
  for (size_t i = 0; i < n; i++) c->entries[i].klen = UINT32_MAX; /* empty, no uses */
  *out = c;
  return VT_OK;
}

void vt_rowcache_destroy(vt_rowcache *c) {
  if (!c) return;
  free(c->entries);
  free(c->rows);
  free(c);
}

uint32_t vt_rowcache_key(const vt_tokens *tk, int32_t t, uint32_t cols, unsigned char *key) {
  uint32_t n = 0;
  for (int32_t c = 0; c < tk->ncols && c < 31; c++) {
    if (!(cols >> c & 1)) continue;
    const uint32_t *f = tk->fields + 2 * ((size_t)t * (size_t)tk->ncols + (size_t)c);
    if (n + 4 + f[1] > VT_ROWCACHE_KEY_MAX) return 0;
    memcpy(key + n, &f[1], 4);
    memcpy(key + n + 4, tk->base + f[0], f[1]);
    n += 4 + f[1];
  }
  return n;
}

int64_t vt_rowcache_probe(vt_rowcache *c, const vt_tokens *tk, int32_t t, uint32_t cols,
                          int64_t *slot, uint64_t *hash) {
  unsigned char key[VT_ROWCACHE_KEY_MAX + 8]; /* + 8: vt_strhash_padded's reads */
  *slot = -1;
  uint32_t n = vt_rowcache_key(tk, t, cols, key);
  if (n == 0) return -1;
  memset(key + n, 0, 8);
  uint64_t h = vt_strhash_padded(key, n);
  uint32_t e = (uint32_t)h & c->mask;
  vt_rowcache_entry *en = &c->entries[e];
  *hash = h;
  if (en->hash == h && en->klen == n && !memcmp(en->key, key, n)) {
    en->uses += en->uses < UINT32_MAX;
    return e;
  }
  if (en->uses > 0) { /* a row in use stays; it loses a use per key it turns away */
    en->uses--;
    return -1;
  }
  en->klen = UINT32_MAX;
  *slot = e;
  return -1;
}
