/* engine/text/strhash.h: the 64-bit string hash of feature and label dictionaries and of the model
 * file's hash table. Its values are stored in model files, so it must never change: it reads
 * 8-byte little-endian words (vitesse runs on little-endian hosts only). */
#ifndef VT_ENGINE_STRHASH_H
#define VT_ENGINE_STRHASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The splitmix64 finalizer: a bijective 64-bit mixer. */
static inline uint64_t vt_mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Returns the hash of the `n` bytes at `data` (any bytes, NUL included). */
static inline uint64_t vt_strhash(const void *data, size_t n) {
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
    uint64_t w = 0;
    memcpy(&w, p, n);
    h = (h ^ vt_mix64(w ^ 0xFF51AFD7ED558CCDull)) * 0x9FB21C651E98DF25ull;
  }
  return vt_mix64(h);
}

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

#endif
