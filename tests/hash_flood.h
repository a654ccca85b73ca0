/* tests/hash_flood.h: strings made to share one value of the unkeyed string hash (the hash model
 * files keep: engine/text/strhash.h), as an attacker makes them. Every step of that hash can be
 * inverted (the splitmix64 finalizer, the odd multiplier), so of a 16-byte string's two words the
 * first can be solved from the second for any wanted value. For the hash-flooding tests
 * (test_textmodel, test_crfsuite) and the fuzz seeds (crfsuite_seeds). */
#ifndef VT_TESTS_HASH_FLOOD_H
#define VT_TESTS_HASH_FLOOD_H

#include <stdint.h>
#include <string.h>

#define HF_M 0x9FB21C651E98DF25ull /* the hash's multiplier */

/* The splitmix64 finalizer, as strhash.h's vt_mix64. */
static inline uint64_t hf_mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* The inverse of hf_mix64. */
static inline uint64_t hf_unmix64(uint64_t z) {
  z = (z ^ (z >> 31) ^ (z >> 62)) * 0x319642B2D24D8EC3ull;
  z = (z ^ (z >> 27) ^ (z >> 54)) * 0x96DE1B173F119089ull;
  return z ^ (z >> 30) ^ (z >> 60);
}

/* The inverse of an odd m modulo 2^64. */
static inline uint64_t hf_inverse_odd(uint64_t m) {
  uint64_t x = m; /* Newton: each step doubles the correct low bits */
  for (int i = 0; i < 6; i++) x *= 2 - m * x;
  return x;
}

/* Writes n distinct 16-byte names into out[i][0..15] (out[i][16] = NUL) whose unkeyed hash is
 * vt_mix64(target): no byte is NUL, tab, newline or CR (each is one attribute of an item line
 * once ':' and '\' are escaped); the second word counts in base 32, one printable digit a byte. */
static inline void hf_names(char (*out)[17], int n, uint64_t target) {
  const uint64_t Minv = hf_inverse_odd(HF_M);
  const uint64_t h0 = 0x9E3779B97F4A7C15ull ^ (16ull * 0xC2B2AE3D27D4EB4Full);
  int made = 0;
  for (uint64_t i = 1; made < n; i++) {
    uint64_t w2 = 0;
    for (int j = 0; j < 8; j++) w2 |= (uint64_t)('A' + ((i >> (5 * j)) & 31)) << (8 * j);
    const uint64_t h1 = (target * Minv) ^ hf_mix64(w2); /* h2 = (h1 ^ mix(w2)) * M = target */
    const uint64_t w1 = hf_unmix64((h1 * Minv) ^ h0);   /* h1 = (h0 ^ mix(w1)) * M */
    int ok = 1;
    for (int j = 0; j < 8; j++) {
      const unsigned char ch = (unsigned char)(w1 >> (8 * j));
      ok &= ch != 0 && ch != '\t' && ch != '\n' && ch != '\r';
    }
    if (!ok) continue;
    memcpy(out[made], &w1, 8);
    memcpy(out[made] + 8, &w2, 8);
    out[made][16] = '\0';
    made++;
  }
}

#endif
