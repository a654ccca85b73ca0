/* io/binfmt.h: little-endian fields and CRC-32 for vitesse's binary files (model_file.c and
 * chunk_model_file.c share one container layout: header, section table, 64-byte aligned
 * sections, a CRC-32 per section). vitesse runs on little-endian hosts only (see npy.h). */
#ifndef VT_IO_BINFMT_H
#define VT_IO_BINFMT_H

#include <stdint.h>
#include <string.h>
#include <zlib.h>

/* CRC-32 of n bytes at p, continuing from crc (0 to start); n may exceed zlib's uInt. */
static inline uint32_t vt_bin_crc(uint32_t crc, const void *p, uint64_t n) {
  const unsigned char *b = p;
  while (n) {
    uInt part = n > (1u << 30) ? (1u << 30) : (uInt)n;
    crc = (uint32_t)crc32(crc, b, part);
    b += part;
    n -= part;
  }
  return crc;
}

/* Store / load a little-endian u32 or u64 at p (any alignment). */
static inline void vt_bin_put32(unsigned char *p, uint32_t v) { memcpy(p, &v, 4); }
static inline void vt_bin_put64(unsigned char *p, uint64_t v) { memcpy(p, &v, 8); }
static inline uint32_t vt_bin_get32(const unsigned char *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}
static inline uint64_t vt_bin_get64(const unsigned char *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}

/* n rounded up to a multiple of 64 (section alignment). */
static inline uint64_t vt_bin_align64(uint64_t n) { return (n + 63) & ~63ull; }

#endif
