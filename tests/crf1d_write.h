/* tests/crf1d_write.h: writes CRFsuite 0.12 crf1d model files for the tests, from the format
 * layout of CRFsuite 0.12's crf1dmodel.c and cqdb.c (written from their description): header, FEAT,
 * two CQDB dictionaries (Bob Jenkins' lookup3 hashlittle, public domain, over key + NUL, 256
 * tables, linear probing), LFRF and AFRF reference chunks. */
#ifndef VT_TESTS_CRF1D_WRITE_H
#define VT_TESTS_CRF1D_WRITE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct crf1d_feat {
  uint32_t type, src, dst; /* 0 state (attribute -> label), 1 transition (label -> label) */
  double w;
} crf1d_feat;

typedef struct crf1d_buf {
  unsigned char *p;
  size_t len, cap;
} crf1d_buf;

static inline void crf1d_put(crf1d_buf *b, const void *s, size_t n) {
  if (b->cap - b->len < n) {
    size_t c = b->cap ? b->cap : 4096;
    while (c - b->len < n) c *= 2;
    b->p = realloc(b->p, c);
    b->cap = c;
  }
  memcpy(b->p + b->len, s, n);
  b->len += n;
}

static inline void crf1d_u32(crf1d_buf *b, uint32_t v) {
  unsigned char x[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                        (unsigned char)(v >> 24)};
  crf1d_put(b, x, 4);
}

static inline void crf1d_set32(crf1d_buf *b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; i++) b->p[at + (size_t)i] = (unsigned char)(v >> (8 * i));
}

#define CRF1D_ROT(x, k) (((x) << (k)) | ((x) >> (32 - (k))))

/* lookup3's hashlittle, byte by byte (the same value on any host). */
static inline uint32_t crf1d_hash(const unsigned char *k, size_t length, uint32_t initval) {
  uint32_t a, b, c;
  a = b = c = 0xdeadbeefu + (uint32_t)length + initval;
  while (length > 12) {
    a += k[0] + ((uint32_t)k[1] << 8) + ((uint32_t)k[2] << 16) + ((uint32_t)k[3] << 24);
    b += k[4] + ((uint32_t)k[5] << 8) + ((uint32_t)k[6] << 16) + ((uint32_t)k[7] << 24);
    c += k[8] + ((uint32_t)k[9] << 8) + ((uint32_t)k[10] << 16) + ((uint32_t)k[11] << 24);
    a -= c, a ^= CRF1D_ROT(c, 4), c += b;
    b -= a, b ^= CRF1D_ROT(a, 6), a += c;
    c -= b, c ^= CRF1D_ROT(b, 8), b += a;
    a -= c, a ^= CRF1D_ROT(c, 16), c += b;
    b -= a, b ^= CRF1D_ROT(a, 19), a += c;
    c -= b, c ^= CRF1D_ROT(b, 4), b += a;
    length -= 12;
    k += 12;
  }
  switch (length) {
  case 12: c += (uint32_t)k[11] << 24; /* fall through */
  case 11: c += (uint32_t)k[10] << 16; /* fall through */
  case 10: c += (uint32_t)k[9] << 8;   /* fall through */
  case 9: c += k[8];                   /* fall through */
  case 8: b += (uint32_t)k[7] << 24;   /* fall through */
  case 7: b += (uint32_t)k[6] << 16;   /* fall through */
  case 6: b += (uint32_t)k[5] << 8;    /* fall through */
  case 5: b += k[4];                   /* fall through */
  case 4: a += (uint32_t)k[3] << 24;   /* fall through */
  case 3: a += (uint32_t)k[2] << 16;   /* fall through */
  case 2: a += (uint32_t)k[1] << 8;    /* fall through */
  case 1: a += k[0]; break;
  case 0: return c;
  }
  c ^= b, c -= CRF1D_ROT(b, 14);
  a ^= c, a -= CRF1D_ROT(c, 11);
  b ^= a, b -= CRF1D_ROT(a, 25);
  c ^= b, c -= CRF1D_ROT(b, 16);
  a ^= c, a -= CRF1D_ROT(c, 4);
  b ^= a, b -= CRF1D_ROT(a, 14);
  c ^= b, c -= CRF1D_ROT(b, 24);
  return c;
}

/* Appends a CQDB chunk holding keys[0..n) with ids 0..n-1. */
static inline void crf1d_cqdb(crf1d_buf *out, const char *const *keys, uint32_t n) {
  crf1d_buf b = {0};
  uint32_t *hash = calloc(n + 1, 4), *roff = calloc(n + 1, 4), *cnt = calloc(256, 4);
  crf1d_put(&b, "CQDB", 4);
  for (int i = 0; i < 5 + 512; i++) crf1d_u32(&b, 0); /* header and table refs, set below */
  for (uint32_t i = 0; i < n; i++) {
    size_t ks = strlen(keys[i]) + 1;
    hash[i] = crf1d_hash((const unsigned char *)keys[i], ks, 0);
    roff[i] = (uint32_t)b.len;
    crf1d_u32(&b, i);
    crf1d_u32(&b, (uint32_t)ks);
    crf1d_put(&b, keys[i], ks);
    cnt[hash[i] % 256]++;
  }
  for (uint32_t t = 0; t < 256; t++) {
    uint32_t num = cnt[t] * 2;
    crf1d_set32(&b, 24 + 8 * t, num ? (uint32_t)b.len : 0);
    crf1d_set32(&b, 28 + 8 * t, num);
    if (!num) continue;
    uint32_t *slot = calloc(2 * num, 4);
    for (uint32_t i = 0; i < n; i++) {
      if (hash[i] % 256 != t) continue;
      uint32_t k = (hash[i] >> 8) % num;
      while (slot[2 * k + 1]) k = (k + 1) % num;
      slot[2 * k] = hash[i];
      slot[2 * k + 1] = roff[i];
    }
    for (uint32_t k = 0; k < 2 * num; k++) crf1d_u32(&b, slot[k]);
    free(slot);
  }
  crf1d_set32(&b, 16, n);
  crf1d_set32(&b, 20, (uint32_t)b.len);
  for (uint32_t i = 0; i < n; i++) crf1d_u32(&b, roff[i]);
  crf1d_set32(&b, 4, (uint32_t)b.len);
  crf1d_set32(&b, 12, 0x62445371u);
  crf1d_put(out, b.p, b.len);
  free(b.p);
  free(hash);
  free(roff);
  free(cnt);
}

/* Appends a reference chunk: `num` entries, entry i (< used) listing the features f with
 * key(f) == i, where key is src for `type` features (in feature order; linear in nf + used). */
static inline void crf1d_refs(crf1d_buf *b, const char *magic, uint32_t num, uint32_t used,
                              const crf1d_feat *f, uint32_t nf, uint32_t type) {
  while (b->len % 4) crf1d_put(b, "", 1);
  size_t at = b->len;
  crf1d_put(b, magic, 4);
  crf1d_u32(b, 12 + 4 * num);
  crf1d_u32(b, num);
  for (uint32_t i = 0; i < num; i++) crf1d_u32(b, 0);
  uint32_t *start = calloc((size_t)used + 1, sizeof *start), *list = malloc((nf + 1) * 4u);
  for (uint32_t j = 0; j < nf; j++)
    if (f[j].type == type && f[j].src < used) start[f[j].src + 1]++;
  for (uint32_t i = 0; i < used; i++) start[i + 1] += start[i];
  for (uint32_t j = 0; j < nf; j++)
    if (f[j].type == type && f[j].src < used) list[start[f[j].src]++] = j;
  for (uint32_t i = used; i > 0; i--) start[i] = start[i - 1]; /* back to the starts */
  start[0] = 0;
  for (uint32_t i = 0; i < used; i++) {
    crf1d_set32(b, at + 12 + 4 * i, (uint32_t)b->len);
    crf1d_u32(b, start[i + 1] - start[i]);
    for (uint32_t k = start[i]; k < start[i + 1]; k++) crf1d_u32(b, list[k]);
  }
  free(start);
  free(list);
}

/* The bytes of a crf1d model (caller frees b->p). */
static inline void crf1d_build(crf1d_buf *b, const char *const *labels, uint32_t L,
                               const char *const *attrs, uint32_t A, const crf1d_feat *f,
                               uint32_t nf) {
  memset(b, 0, sizeof *b);
  crf1d_put(b, "lCRF", 4);
  crf1d_u32(b, 0);
  crf1d_put(b, "FOMC", 4);
  crf1d_u32(b, 100);
  crf1d_u32(b, 0); /* num_features: never set by CRFsuite's writer */
  crf1d_u32(b, L);
  crf1d_u32(b, A);
  for (int i = 0; i < 5; i++) crf1d_u32(b, 0);
  crf1d_set32(b, 28, (uint32_t)b->len);
  crf1d_put(b, "FEAT", 4);
  crf1d_u32(b, 12 + 20 * nf);
  crf1d_u32(b, nf);
  for (uint32_t i = 0; i < nf; i++) {
    crf1d_u32(b, f[i].type);
    crf1d_u32(b, f[i].src);
    crf1d_u32(b, f[i].dst);
    crf1d_put(b, &f[i].w, 8); /* little-endian host */
  }
  crf1d_set32(b, 32, (uint32_t)b->len);
  crf1d_cqdb(b, labels, L);
  crf1d_set32(b, 36, (uint32_t)b->len);
  crf1d_cqdb(b, attrs, A);
  while (b->len % 4) crf1d_put(b, "", 1);
  crf1d_set32(b, 40, (uint32_t)b->len);
  crf1d_refs(b, "LFRF", L + 2, L, f, nf, 1);
  while (b->len % 4) crf1d_put(b, "", 1);
  crf1d_set32(b, 44, (uint32_t)b->len);
  crf1d_refs(b, "AFRF", A, A, f, nf, 0);
  crf1d_set32(b, 4, (uint32_t)b->len);
}

/* Writes the bytes to `path`; 0 or -1. */
static inline int crf1d_save(const crf1d_buf *b, const char *path) {
  FILE *fp = fopen(path, "wb");
  if (!fp) return -1;
  int ok = fwrite(b->p, 1, b->len, fp) == b->len;
  return fclose(fp) == 0 && ok ? 0 : -1;
}

#endif
