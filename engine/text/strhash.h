/* engine/text/strhash.h: the 64-bit string hash of feature and label dictionaries and of the model
 * file's hash table. Its values are stored in model files, so it must never change: it reads
 * 8-byte little-endian words (vitesse runs on little-endian hosts only).
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
