/* io/binfile.h: the checksummed, sectioned binary container both model files use
 * (engine/models/model_file.c, the text tagger's; engine/models/chunk_model_file.c, the joint
 * label-chunk model's).
 *
 * Layout, little-endian (vitesse runs on little-endian hosts only, see npy.h):
 *   header, 64 bytes: magic[8] (names the model type), u32 version, u32 section count,
 *     u64 file size, u32 CRC-32 of the header (this field read as 0) and of the section table;
 *     the rest zero;
 *   section table: one 32-byte entry per section: u32 id, 4 zero bytes, u64 offset, u64 size,
 *     u32 CRC-32 of the section's bytes, 4 zero bytes;
 *   the sections, each at a 64-byte aligned offset, zero padding between them; the file ends
 *     where the last section ends.
 * A format numbers its sections 1..n; a reader skips ids it does not know (a later writer may
 * add sections) and refuses a file missing one it knows. This module writes the container
 * atomically, maps it back, checks it, and offers bounds-checked access into a section; what a
 * section holds is the model file's business. */
#ifndef VT_IO_BINFILE_H
#define VT_IO_BINFILE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <zlib.h>

#include "io/filemap.h"
#include "vitesse.h"

#define VT_BINFILE_HEADER 64      /* bytes of the header */
#define VT_BINFILE_ENTRY 32       /* bytes of one section-table entry */
#define VT_BINFILE_MAX_TABLE 64   /* most entries a file's table may have */
#define VT_BINFILE_MAX_SECTIONS 8 /* most sections a format may know */
#define VT_BINFILE_MAX_PARTS 4    /* most pieces one written section may be gathered from */

/* One model type's container: its magic, version, what to call it in messages ("vitesse model
 * file"), and its section names, sec_name[1..n_sec] (sec_name[0] unused). */
typedef struct vt_binfile_format {
  unsigned char magic[8];
  uint32_t version;
  const char *kind;
  int n_sec;
  const char *const *sec_name;
} vt_binfile_format;

/* A section to write, gathered from up to VT_BINFILE_MAX_PARTS pieces (none: empty). */
typedef struct vt_binfile_section {
  int n_parts;
  const void *p[VT_BINFILE_MAX_PARTS];
  uint64_t n[VT_BINFILE_MAX_PARTS];
} vt_binfile_section;

/* A section as read: its bytes (64-byte aligned in memory) and their count. */
typedef struct vt_binsec {
  const unsigned char *p;
  uint64_t size;
} vt_binsec;

/* An opened container: the whole file, mapped (or, for a pipe, read into 64-byte aligned heap
 * memory: io/filemap.h), and its known sections by id. */
typedef struct vt_binfile {
  vt_filemap file;
  vt_binsec sec[VT_BINFILE_MAX_SECTIONS + 1];
} vt_binfile;

/* Appends n bytes at p to section s (at most VT_BINFILE_MAX_PARTS pieces; p is kept, not
 * copied, until vt_binfile_write returns). */
void vt_binfile_section_add(vt_binfile_section *s, const void *p, uint64_t n);

/* Writes the fmt->n_sec sections sec[0..n_sec-1] (ids 1..n_sec, in that order) to `path`
 * atomically (io/outfile.h). Returns VT_OK, VT_EIO or VT_ENOMEM; `err` (errlen bytes) gets one
 * line "PATH: problem" on failure, and nothing is left behind. */
int vt_binfile_write(const char *path, const vt_binfile_format *fmt, const vt_binfile_section *sec,
                     char *err, size_t errlen);

/* The container of sections sec[0..fmt->n_sec-1], laid out in 64-byte aligned heap memory as
 * vt_binfile_open would leave it in *f (end with vt_binfile_close or vt_binfile_release), for a
 * loader in the same process: one copy of the sections, and no checksums (the fields are zero:
 * the bytes were never a file). Returns VT_OK or VT_ENOMEM (*f zeroed). */
int vt_binfile_layout(const vt_binfile_format *fmt, const vt_binfile_section *sec, vt_binfile *f);

/* Opens `path` (a file or a pipe) and checks the container: magic, version, file size, section
 * table, every section inside the file and 64-byte aligned, no known id twice, every known id
 * present, and every checksum. On VT_OK, f->sec[id] is each known section; the caller ends with
 * vt_binfile_close (or takes the mapping with vt_binfile_release). Otherwise returns VT_EIO
 * (cannot open or read), VT_EFORMAT (not this format, another version, truncated, corrupt: the
 * message says which) or VT_ENOMEM, with one line "PATH: problem" in `err` and *f zeroed. */
int vt_binfile_open(vt_binfile *f, const char *path, const vt_binfile_format *fmt, char *err,
                    size_t errlen);

/* As vt_binfile_open, for the `size` bytes of a file held at `data` (copied into 64-byte aligned
 * heap memory); `name` names it in messages. */
int vt_binfile_open_mem(vt_binfile *f, const void *data, size_t size, const char *name,
                        const vt_binfile_format *fmt, char *err, size_t errlen);

/* Unmaps (or frees) the file and zeroes *f. A no-op on a zeroed or released struct. */
void vt_binfile_close(vt_binfile *f);

/* Hands the file to the caller, who ends it with vt_filemap_close, and zeroes *f; the sections'
 * pointers stay valid as long as the file. */
void vt_binfile_release(vt_binfile *f, vt_filemap *file);

/* Bytes [off, off + n) of section s, or NULL when that range is not wholly inside it (overflow
 * included). Every offset or length a model file stores goes through here, or through
 * vt_binsec_offsets_ok, before it is used. */
const unsigned char *vt_binsec_at(vt_binsec s, uint64_t off, uint64_t n);

/* Checks a table of count + 1 little-endian u32 offsets at `offs` into a pool of `bytes` bytes:
 * the first is 0, none decreases, the last is `bytes`. So every [offs[i], offs[i+1]) lies in
 * the pool. `offs` must hold 4 * (count + 1) readable bytes. Returns 1 when it holds, else 0. */
int vt_binsec_offsets_ok(const unsigned char *offs, uint64_t count, uint64_t bytes);

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
