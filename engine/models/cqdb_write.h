/* engine/models/cqdb_write.h: CRFsuite's constant string dictionary, CQDB, as the crf1d model
 * file holds two of them (labels, attributes; CRFsuite 0.12's lib/cqdb/src/cqdb.c).
 *
 * A chunk, offsets relative to its start, integers u32 little-endian: "CQDB", chunk size, flag
 * 0, byte-order mark 0x62445371, number of ids, offset of the id -> record array; 256 table
 * references {offset, slots}; the records {id, key size, key + NUL} in id order; the 256 tables
 * (an empty one is left out, its reference 0), each 2 slots per key {hash, record offset},
 * filled in id order by linear probing from slot (hash >> 8) % slots; the id -> record array.
 * A key's hash is Bob Jenkins' lookup3 hashlittle of its bytes and the NUL, seed 0; its table
 * is hash % 256. */
#ifndef VT_MODELS_CQDB_WRITE_H
#define VT_MODELS_CQDB_WRITE_H

#include <stddef.h>
#include <stdint.h>

/* Bob Jenkins' lookup3 hashlittle (public domain): the 32-bit hash of the `len` bytes at `key`
 * with seed `initval`, read byte by byte, so the same value on any host. len 0 gives
 * 0xdeadbeef + initval. */
uint32_t vt_lookup3_hashlittle(const void *key, size_t len, uint32_t initval);

/* The bytes of a CQDB chunk holding the strings 0..n-1 of a pool (string i is pool[off[i],
 * off[i+1]), without a NUL). n = 0 gives the bare header and table references. */
uint64_t vt_cqdb_size(const uint32_t *off, uint32_t n);

/* Writes that chunk, vt_cqdb_size(off, n) bytes (which the caller keeps below 4 GiB), at `dst`.
 * The strings must hold no NUL byte. Returns 0, or -1 when out of memory (dst then partly
 * written). */
int vt_cqdb_fill(unsigned char *dst, const uint32_t *off, const char *pool, uint32_t n);

#endif
