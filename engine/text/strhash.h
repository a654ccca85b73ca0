/* engine/text/strhash.h: the 64-bit string hash of feature and label dictionaries and of the model
 * file's hash table, and the short-string helpers its users share (compare, copy). The hash's
 * values are stored in model files, so it must never change: it reads 8-byte little-endian words
 * (vitesse runs on little-endian hosts only).
 *
 * The tables built at run time from input (the training's feature dictionary, tag dictionaries)
 * hash with a key of the process instead (vt_strhash_keyed, vt_hash_key): the unkeyed hash can be
 * inverted step by step, so any number of strings with one value can be made to flood a table
 * (thousands of probes per lookup); with a key unknown to whoever wrote the input they cannot.
 * Nothing written depends on the key: ids follow insertion order, never slots. */
#ifndef VT_TEXT_STRHASH_H
#define VT_TEXT_STRHASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The splitmix64 finalizer: a bijective 64-bit mixer. */
static inline uint64_t vt_mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Returns the hash of the `n` bytes at `data` (any bytes, NUL included) under `key`: key 0 is
 * vt_strhash, the hash model files hold; another key changes every step. */
static inline uint64_t vt_strhash_keyed(const void *data, size_t n, uint64_t key) {
  const unsigned char *p = (const unsigned char *)data;
  uint64_t h = 0x9E3779B97F4A7C15ull ^ ((uint64_t)n * 0xC2B2AE3D27D4EB4Full) ^ key;
  while (n >= 8) {
    uint64_t w;
    memcpy(&w, p, 8);
    h = (h ^ vt_mix64(w ^ key)) * 0x9FB21C651E98DF25ull;
    p += 8;
    n -= 8;
  }
  if (n) {
    uint64_t w = 0;
    memcpy(&w, p, n);
    h = (h ^ vt_mix64(w ^ key ^ 0xFF51AFD7ED558CCDull)) * 0x9FB21C651E98DF25ull;
  }
  return vt_mix64(h);
}

/* Returns the hash of the `n` bytes at `data` (any bytes, NUL included): the unkeyed one. */
static inline uint64_t vt_strhash(const void *data, size_t n) {
  return vt_strhash_keyed(data, n, 0);
}

/* The high and low halves of a * b, folded: the mixing step of the keyed hashes below. */
static inline uint64_t vt_mum(uint64_t a, uint64_t b) {
  __extension__ typedef unsigned __int128 u128;
  const u128 r = (u128)a * b;
  return (uint64_t)r ^ (uint64_t)(r >> 64);
}

/* A keyed hash of the `n` bytes at s (reads only those bytes), with two 64-bit keys (k1 odd):
 * 128-bit multiply-fold rounds over 16 bytes at a time, the lookups' hash of the attribute and
 * template indexes (crfs_index.h, tmpl_index.h). Keys drawn per process (vt_hash_key) keep
 * names made to collide from flooding a table. */
static inline uint64_t vt_strhash_wide(uint64_t k0, uint64_t k1, const char *s, size_t n) {
  const unsigned char *p = (const unsigned char *)s;
  uint64_t a, b, seed = k0;
  if (n <= 16) {
    if (n >= 4) {
      uint32_t w0, w1, w2, w3;
      const size_t q = (n >> 3) << 2;
      memcpy(&w0, p, 4);
      memcpy(&w1, p + q, 4);
      memcpy(&w2, p + n - 4, 4);
      memcpy(&w3, p + n - 4 - q, 4);
      a = (uint64_t)w0 << 32 | w1;
      b = (uint64_t)w2 << 32 | w3;
    } else if (n > 0) {
      a = (uint64_t)p[0] << 16 | (uint64_t)p[n >> 1] << 8 | p[n - 1];
      b = 0;
    } else {
      a = b = 0;
    }
  } else {
    size_t i = n;
    while (i > 16) {
      uint64_t w0, w1;
      memcpy(&w0, p, 8);
      memcpy(&w1, p + 8, 8);
      seed = vt_mum(w0 ^ k1, w1 ^ seed);
      p += 16;
      i -= 16;
    }
    memcpy(&a, p + i - 16, 8);
    memcpy(&b, p + i - 8, 8);
  }
  uint64_t h = vt_mum(a ^ k1, b ^ seed);
  return vt_mum(h ^ k0, (uint64_t)n ^ k1);
}

/* The key of vt_strhash_nh: NH's 16 words (Black et al., UMAC), the sums their pairs add for the
 * zero words past a short string, and the final mix's two words. */
typedef struct vt_nh_key {
  uint32_t k[16];
  uint64_t tail[9]; /* tail[j]: the sum over pairs i >= j of k[2i] * k[2i + 1] */
  uint64_t k0, k1;  /* k1 odd */
} vt_nh_key;

/* Draws the key of vt_strhash_nh from `seed` (nonzero: vt_hash_key(), mixed with a constant of
 * the table's own). */
static inline void vt_nh_key_init(vt_nh_key *K, uint64_t seed) {
  for (int i = 0; i < 8; i++) {
    const uint64_t w = vt_mix64(seed + 0x9E3779B97F4A7C15ull * (uint64_t)(i + 1));
    K->k[2 * i] = (uint32_t)w;
    K->k[2 * i + 1] = (uint32_t)(w >> 32);
  }
  K->tail[8] = 0;
  for (int i = 7; i >= 0; i--)
    K->tail[i] = K->tail[i + 1] + (uint64_t)K->k[2 * i] * K->k[2 * i + 1];
  K->k0 = vt_mix64(seed ^ 0xA0761D6478BD642Full);
  K->k1 = vt_mix64(seed ^ 0xE7037ED1A0B428DBull) | 1;
}

/* NH's term of the 64-bit little-endian word w at pair j: (low + k[2j]) (high + k[2j + 1]), each
 * sum mod 2^32, their product in 64 bits. */
static inline uint64_t vt_nh_pair(const vt_nh_key *K, size_t j, uint64_t w) {
  return (uint64_t)(uint32_t)((uint32_t)w + K->k[2 * j]) *
         (uint32_t)((uint32_t)(w >> 32) + K->k[2 * j + 1]);
}

/* The hash of a string of n bytes whose NH sum is `sum`. */
static inline uint64_t vt_nh_final(const vt_nh_key *K, uint64_t sum, size_t n) {
  return vt_mum(sum ^ K->k1, (uint64_t)n ^ K->k0);
}

/* A keyed hash of the `n` bytes at s (reads only those bytes) for lookups of short names: up to
 * 64 bytes, NH over the bytes zero-padded to 64 (eight products, one per 8 bytes; the NH sums of
 * two distinct strings of one length are equal under at most 2^-32 of the keys), then one
 * multiply-fold with the length; longer strings take vt_strhash_wide. A level with 64-byte
 * vectors computes the same value in a few instructions (crfs_rows_body.h). */
static inline uint64_t vt_strhash_nh(const vt_nh_key *K, const char *s, size_t n) {
  if (n > 64) return vt_strhash_wide(K->k0, K->k1, s, n);
  const unsigned char *p = (const unsigned char *)s;
  const size_t q = n / 8, r = n % 8;
  uint64_t sum = K->tail[q + (r != 0)];
  for (size_t j = 0; j < q; j++) {
    uint64_t w;
    memcpy(&w, p + 8 * j, 8);
    sum += vt_nh_pair(K, j, w);
  }
  if (r) { /* the last r bytes, zero above */
    uint64_t w;
    if (n >= 8) {
      memcpy(&w, p + n - 8, 8);
      w >>= 8 * (8 - r);
    } else if (r >= 4) {
      uint32_t lo, hi;
      memcpy(&lo, p, 4);
      memcpy(&hi, p + r - 4, 4);
      w = (uint64_t)lo | (uint64_t)hi << (8 * (r - 4));
    } else {
      w = (uint64_t)p[0] | (uint64_t)p[r >> 1] << (8 * (r >> 1)) |
          (uint64_t)p[r - 1] << (8 * (r - 1));
    }
    sum += vt_nh_pair(K, q, w);
  }
  return vt_nh_final(K, sum, n);
}

/* The key of this process's run-time tables: random, drawn once (the environment variable
 * VITESSE_HASH_KEY, a number, sets it for tests that check nothing depends on it). Never 0. */
uint64_t vt_hash_key(void);

/* Model files keep their hash tables (slots of 32 bits, 0 = empty) as written, hashed without a
 * key. A lookup probes to the end of its run of occupied slots, so a file whose strings were made
 * to share a hash would make every unknown string cost thousands of probes: loaders refuse a
 * table with a run longer than this (honest tables are at most half full, their runs a few dozen
 * slots long). */
#define VT_HASH_MAX_RUN 1024

/* The longest run of occupied slots in the table of n slots (a power of two, at least one
 * empty), counted around the end. */
uint64_t vt_slots_longest_run(const uint32_t *slots, uint64_t n);

/* vt_strhash(data, n), the same value, for bytes followed by at least 7 readable bytes (a buffer
 * padded by the caller): the last partial word is one 8-byte load, masked, instead of a byte
 * copy whose 8-byte reload stalls on store forwarding (the emission code's hot path). */
static inline uint64_t vt_strhash_padded(const void *data, size_t n) {
  const unsigned char *p = (const unsigned char *)data;
  uint64_t h = 0x9E3779B97F4A7C15ull ^ ((uint64_t)n * 0xC2B2AE3D27D4EB4Full);
  while (n >= 8) {
    uint64_t w;
    memcpy(&w, p, 8);
    h = (h ^ vt_mix64(w)) * 0x9FB21C651E98DF25ull;
    p += 8;
    n -= 8;
  }
  if (n) {
    uint64_t w;
    memcpy(&w, p, 8);
    w &= ~0ull >> (64 - 8 * n);
    h = (h ^ vt_mix64(w ^ 0xFF51AFD7ED558CCDull)) * 0x9FB21C651E98DF25ull;
  }
  return vt_mix64(h);
}

/* Copies the `n` bytes at src to dst (not overlapping), reading and writing only those: up to
 * 16 bytes in two overlapping loads and stores, not a call to memcpy (the fields and literals of
 * a feature, the fields and labels of a tagged line: a few bytes, where memcpy's calls were a
 * quarter of a feature expansion's instructions). */
static inline void vt_bytes_copy(char *dst, const char *src, size_t n) {
  if (n >= 8 && n <= 16) {
    uint64_t a, b;
    memcpy(&a, src, 8);
    memcpy(&b, src + n - 8, 8);
    memcpy(dst, &a, 8);
    memcpy(dst + n - 8, &b, 8);
  } else if (n >= 4 && n < 8) {
    uint32_t a, b;
    memcpy(&a, src, 4);
    memcpy(&b, src + n - 4, 4);
    memcpy(dst, &a, 4);
    memcpy(dst + n - 4, &b, 4);
  } else if (n < 4) {
    for (size_t i = 0; i < n; i++) dst[i] = src[i];
  } else {
    memcpy(dst, src, n);
  }
}

/* Whether the `n` bytes at a and at b are the same (reads only those bytes: 8-byte words, the
 * last one overlapping, instead of a call to memcmp for the short names of attributes and
 * features). */
static inline int vt_bytes_eq(const char *a, const char *b, size_t n) {
  uint64_t x, y, diff = 0;
  if (n >= 8) {
    size_t i = 0;
    for (; i + 8 < n; i += 8) {
      memcpy(&x, a + i, 8);
      memcpy(&y, b + i, 8);
      diff |= x ^ y;
    }
    memcpy(&x, a + n - 8, 8);
    memcpy(&y, b + n - 8, 8);
    return (diff | (x ^ y)) == 0;
  }
  if (n >= 4) {
    uint32_t c0, c1, d0, d1;
    memcpy(&c0, a, 4);
    memcpy(&d0, b, 4);
    memcpy(&c1, a + n - 4, 4);
    memcpy(&d1, b + n - 4, 4);
    return ((c0 ^ d0) | (c1 ^ d1)) == 0;
  }
  for (size_t i = 0; i < n; i++) diff |= (uint64_t)(unsigned char)(a[i] ^ b[i]);
  return diff == 0;
}

#endif
