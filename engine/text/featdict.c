/* engine/text/featdict.c: the exact string dictionary (see featdict.h). */
#include "text/featdict.h"

#include <stdlib.h>
#include <string.h>

#include "text/strhash.h"

vt_status vt_featdict_init(vt_featdict *d) {
  memset(d, 0, sizeof *d);
  d->key = vt_hash_key();
  d->key1 = vt_mix64(d->key) | 1;
  d->mask = 1023;
  d->cap = 1024;
  d->pool_cap = 16384;
  d->slots = calloc(d->mask + 1, sizeof *d->slots);
  d->off = malloc(((size_t)d->cap + 1) * sizeof *d->off);
  d->count = malloc((size_t)d->cap * sizeof *d->count);
  d->pool = malloc(d->pool_cap);
  if (!d->slots || !d->off || !d->count || !d->pool) {
    vt_featdict_free(d);
    return VT_ENOMEM;
  }
  d->off[0] = 0;
  return VT_OK;
}

void vt_featdict_free(vt_featdict *d) {
  free(d->slots);
  free(d->off);
  free(d->count);
  free(d->pool);
  memset(d, 0, sizeof *d);
}

/* The slots' hash of s[0, len): the indexes' wide hash (strhash.h) under the dictionary's keys. */
static inline uint64_t dict_hash(const vt_featdict *d, const char *s, size_t len) {
  return vt_strhash_wide(d->key, d->key1, s, len);
}

/* Slot index where `s` lives or where it would be inserted. */
static uint64_t probe(const vt_featdict *d, const char *s, size_t len, uint64_t h) {
  const uint64_t tag = h >> 32;
  uint64_t i = h & d->mask;
  for (;;) {
    uint64_t v = d->slots[i];
    if (!v) return i;
    if (v >> 32 == tag) {
      int32_t id = (int32_t)(uint32_t)v - 1;
      size_t n;
      const char *t = vt_featdict_str(d, id, &n);
      if (n == len && memcmp(t, s, len) == 0) return i;
    }
    i = (i + 1) & d->mask;
  }
}

uint64_t vt_featdict_hash(const vt_featdict *d, const char *s, size_t len) {
  return dict_hash(d, s, len);
}

void vt_featdict_prefetch(const vt_featdict *d, uint64_t h, int stage) {
  if (!d->slots) return;
  const uint64_t *slot = &d->slots[h & d->mask];
  if (stage == 0) {
    __builtin_prefetch(slot);
    return;
  }
  const uint64_t v = *slot;
  if (!v || v >> 32 != h >> 32) return; /* empty, or another string's: nothing to compare */
  const int32_t id = (int32_t)(uint32_t)v - 1;
  if (stage == 1)
    __builtin_prefetch(&d->off[id]);
  else
    __builtin_prefetch(d->pool + d->off[id]);
}

int32_t vt_featdict_find_hashed(const vt_featdict *d, const char *s, size_t len, uint64_t h) {
  if (!d->slots) return -1;
  uint64_t v = d->slots[probe(d, s, len, h)];
  return v ? (int32_t)(uint32_t)v - 1 : -1;
}

int32_t vt_featdict_find(const vt_featdict *d, const char *s, size_t len) {
  return d->slots ? vt_featdict_find_hashed(d, s, len, dict_hash(d, s, len)) : -1;
}

/* Doubles the slot array (kept at most half full) and reinserts every id. */
static vt_status grow_slots(vt_featdict *d) {
  uint64_t nmask = d->mask * 2 + 1;
  uint64_t *ns = calloc(nmask + 1, sizeof *ns);
  if (!ns) return VT_ENOMEM;
  for (uint64_t i = 0; i <= d->mask; i++) {
    uint64_t v = d->slots[i];
    if (!v) continue;
    int32_t id = (int32_t)(uint32_t)v - 1;
    size_t n;
    const char *t = vt_featdict_str(d, id, &n);
    uint64_t j = dict_hash(d, t, n) & nmask;
    while (ns[j]) j = (j + 1) & nmask;
    ns[j] = v;
  }
  free(d->slots);
  d->slots = ns;
  d->mask = nmask;
  return VT_OK;
}

vt_status vt_featdict_add(vt_featdict *d, const char *s, size_t len, int32_t *id) {
  return vt_featdict_add_hashed(d, s, len, dict_hash(d, s, len), id);
}

vt_status vt_featdict_add_hashed(vt_featdict *d, const char *s, size_t len, uint64_t h,
                                 int32_t *id) {
  uint64_t i = probe(d, s, len, h);
  if (d->slots[i]) {
    *id = (int32_t)(uint32_t)d->slots[i] - 1;
    if (d->count[*id] < UINT32_MAX) d->count[*id]++;
    return VT_OK;
  }
  if (d->n >= INT32_MAX - 1) return VT_EINVAL;
  if (d->n == d->cap) {
    int32_t ncap = d->cap > INT32_MAX / 2 ? INT32_MAX - 1 : d->cap * 2;
    uint64_t *noff = realloc(d->off, ((size_t)ncap + 1) * sizeof *noff);
    if (!noff) return VT_ENOMEM;
    d->off = noff;
    uint32_t *ncount = realloc(d->count, (size_t)ncap * sizeof *ncount);
    if (!ncount) return VT_ENOMEM;
    d->count = ncount;
    d->cap = ncap;
  }
  if (d->pool_len + len > d->pool_cap) {
    size_t ncap = d->pool_cap * 2;
    while (ncap < d->pool_len + len) ncap *= 2;
    char *np = realloc(d->pool, ncap);
    if (!np) return VT_ENOMEM;
    d->pool = np;
    d->pool_cap = ncap;
  }
  if (len) memcpy(d->pool + d->pool_len, s, len);
  d->pool_len += len;
  int32_t nid = d->n++;
  d->off[nid + 1] = d->pool_len;
  d->count[nid] = 1;
  d->slots[i] = (h >> 32) << 32 | (uint64_t)(uint32_t)(nid + 1);
  *id = nid;
  if ((uint64_t)d->n * 2 > d->mask + 1) return grow_slots(d);
  return VT_OK;
}

const unsigned char *vt_label_control(const unsigned char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (s[i] < 0x20 || s[i] == 0x7f) return s + i;
  return NULL;
}
