/* engine/models/cqdb_write.c: CQDB chunks and their hash (see cqdb_write.h). */
#include "models/cqdb_write.h"

#include <stdlib.h>
#include <string.h>

#include "io/binfile.h"

#define CQDB_TABLES 256
#define CQDB_HEAD (24 + CQDB_TABLES * 8) /* header and table references: records start here */
#define CQDB_BYTEORDER 0x62445371u

static inline uint32_t rotl(uint32_t x, int k) { return (x << k) | (x >> (32 - k)); }

/* Four key bytes from p as a little-endian word. */
static inline uint32_t word_at(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

uint32_t vt_lookup3_hashlittle(const void *key, size_t len, uint32_t initval) {
  const unsigned char *p = key;
  uint32_t a, b, c;
  a = b = c = 0xdeadbeefu + (uint32_t)len + initval;
  /* Whole 12-byte blocks but the last one (which may be whole too) go through the mix. */
  for (; len > 12; len -= 12, p += 12) {
    a += word_at(p);
    b += word_at(p + 4);
    c += word_at(p + 8);
    a -= c, a ^= rotl(c, 4), c += b;
    b -= a, b ^= rotl(a, 6), a += c;
    c -= b, c ^= rotl(b, 8), b += a;
    a -= c, a ^= rotl(c, 16), c += b;
    b -= a, b ^= rotl(a, 19), a += c;
    c -= b, c ^= rotl(b, 4), b += a;
  }
  if (len == 0) return c; /* an empty key (or none left after whole blocks) skips the final */
  /* The last 1..12 bytes, zero-padded into a, b, c as little-endian words. */
  unsigned char tail[12] = {0};
  memcpy(tail, p, len);
  a += word_at(tail);
  b += word_at(tail + 4);
  c += word_at(tail + 8);
  c ^= b, c -= rotl(b, 14);
  a ^= c, a -= rotl(c, 11);
  b ^= a, b -= rotl(a, 25);
  c ^= b, c -= rotl(b, 16);
  a ^= c, a -= rotl(c, 4);
  b ^= a, b -= rotl(a, 14);
  c ^= b, c -= rotl(b, 24);
  return c;
}

uint64_t vt_cqdb_size(const uint32_t *off, uint32_t n) {
  /* records (id, size, key, NUL), 2 slots of 8 bytes per key, 4 bytes per id backwards */
  return CQDB_HEAD + (uint64_t)(off[n] - off[0]) + (uint64_t)n * (9 + 16 + 4);
}

int vt_cqdb_fill(unsigned char *dst, const uint32_t *off, const char *pool, uint32_t n) {
  int rc = -1;
  uint32_t start[CQDB_TABLES + 1] = {0}, next[CQDB_TABLES];
  uint32_t *hash = malloc(((size_t)n + 1) * 4), *rec = malloc(((size_t)n + 1) * 4);
  uint32_t *order = malloc(((size_t)n + 1) * 4);
  if (!hash || !rec || !order) goto done;
  memset(dst, 0, CQDB_HEAD);
  memcpy(dst, "CQDB", 4);
  vt_bin_put32(dst + 12, CQDB_BYTEORDER);
  vt_bin_put32(dst + 16, n);
  uint64_t at = CQDB_HEAD;
  for (uint32_t i = 0; i < n; i++) { /* the records; each key hashed where it was written */
    uint32_t len = off[i + 1] - off[i];
    rec[i] = (uint32_t)at;
    vt_bin_put32(dst + at, i);
    vt_bin_put32(dst + at + 4, len + 1);
    memcpy(dst + at + 8, pool + off[i], len);
    dst[at + 8 + len] = 0;
    hash[i] = vt_lookup3_hashlittle(dst + at + 8, (size_t)len + 1, 0);
    start[hash[i] % CQDB_TABLES + 1]++;
    at += 9 + (uint64_t)len;
  }
  /* Ids grouped by table, in id order within a table (the order keys are probed in). */
  for (int t = 0; t < CQDB_TABLES; t++) start[t + 1] += start[t];
  memcpy(next, start, sizeof next);
  for (uint32_t i = 0; i < n; i++) order[next[hash[i] % CQDB_TABLES]++] = i;
  for (int t = 0; t < CQDB_TABLES; t++) {
    const uint32_t slots = 2 * (start[t + 1] - start[t]);
    unsigned char *tab = dst + at;
    vt_bin_put32(dst + 24 + 8 * t, slots ? (uint32_t)at : 0);
    vt_bin_put32(dst + 28 + 8 * t, slots);
    memset(tab, 0, (size_t)slots * 8);
    for (uint32_t j = start[t]; j < start[t + 1]; j++) {
      const uint32_t i = order[j];
      uint32_t k = (hash[i] >> 8) % slots;
      while (vt_bin_get32(tab + 8 * (size_t)k + 4)) k = (k + 1) % slots; /* 0: a free slot */
      vt_bin_put32(tab + 8 * (size_t)k, hash[i]);
      vt_bin_put32(tab + 8 * (size_t)k + 4, rec[i]);
    }
    at += (uint64_t)slots * 8;
  }
  vt_bin_put32(dst + 20, n ? (uint32_t)at : 0); /* no ids: no array, offset 0, as CRFsuite */
  for (uint32_t i = 0; i < n; i++, at += 4) vt_bin_put32(dst + at, rec[i]);
  vt_bin_put32(dst + 4, (uint32_t)at);
  rc = 0;
done:
  free(hash);
  free(rec);
  free(order);
  return rc;
}
