/* io/binfile.c: writes, maps and checks the sectioned model container (see binfile.h). */
#define _POSIX_C_SOURCE 200809L
#include "io/binfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/errmsg.h"
#include "io/filemap.h"
#include "io/outfile.h"

#define CORRUPT "corrupt model file: "

void vt_binfile_section_add(vt_binfile_section *s, const void *p, uint64_t n) {
  s->p[s->n_parts] = p;
  s->n[s->n_parts] = n;
  s->n_parts++;
}

static int fwrite_all(FILE *fp, const void *p, uint64_t n) {
  return n == 0 || fwrite(p, 1, (size_t)n, fp) == (size_t)n ? 0 : -1;
}

/* Writes the container to `fp` (a file being written, or a memory stream); returns 0 or -1 on a
 * write error. */
static int emit(FILE *fp, const vt_binfile_format *fmt, const vt_binfile_section *sec) {
  enum { N = VT_BINFILE_MAX_SECTIONS };
  unsigned char header[VT_BINFILE_HEADER + N * VT_BINFILE_ENTRY];
  const uint64_t head = VT_BINFILE_HEADER + (uint64_t)fmt->n_sec * VT_BINFILE_ENTRY;
  uint64_t offset[N], size[N];
  memset(header, 0, sizeof header);
  memcpy(header, fmt->magic, 8);
  vt_bin_put32(header + 8, fmt->version);
  vt_bin_put32(header + 12, (uint32_t)fmt->n_sec);
  uint64_t at = vt_bin_align64(head);
  for (int i = 0; i < fmt->n_sec; i++) {
    unsigned char *e = header + VT_BINFILE_HEADER + i * VT_BINFILE_ENTRY;
    uint32_t crc = 0;
    size[i] = 0;
    for (int k = 0; k < sec[i].n_parts; k++) {
      crc = vt_bin_crc(crc, sec[i].p[k], sec[i].n[k]);
      size[i] += sec[i].n[k];
    }
    offset[i] = at;
    vt_bin_put32(e, (uint32_t)(i + 1));
    vt_bin_put64(e + 8, at);
    vt_bin_put64(e + 16, size[i]);
    vt_bin_put32(e + 24, crc);
    at = vt_bin_align64(at + size[i]);
  }
  vt_bin_put64(header + 16, offset[fmt->n_sec - 1] + size[fmt->n_sec - 1]);
  vt_bin_put32(header + 24, vt_bin_crc(0, header, head));

  static const unsigned char zeros[64];
  int bad = fwrite_all(fp, header, head);
  at = head;
  for (int i = 0; i < fmt->n_sec && !bad; i++) {
    bad |= fwrite_all(fp, zeros, offset[i] - at);
    for (int k = 0; k < sec[i].n_parts && !bad; k++)
      bad |= fwrite_all(fp, sec[i].p[k], sec[i].n[k]);
    at = offset[i] + size[i];
  }
  return bad ? -1 : 0;
}

int vt_binfile_write(const char *path, const vt_binfile_format *fmt, const vt_binfile_section *sec,
                     char *err, size_t errlen) {
  vt_outfile of;
  memset(&of, 0, sizeof of);
  int st = vt_outfile_open(&of, path, err, errlen);
  if (st != VT_OK) return st;
  if (emit(of.fp, fmt, sec)) {
    vt_errorf(err, errlen, path, "write error: %s", strerror(errno));
    vt_outfile_abort(&of);
    return VT_EIO;
  }
  return vt_outfile_commit(&of, err, errlen);
}

int vt_binfile_layout(const vt_binfile_format *fmt, const vt_binfile_section *sec, vt_binfile *f) {
  memset(f, 0, sizeof *f);
  const uint64_t head = VT_BINFILE_HEADER + (uint64_t)fmt->n_sec * VT_BINFILE_ENTRY;
  uint64_t at = vt_bin_align64(head), end = at;
  for (int i = 0; i < fmt->n_sec; i++) {
    uint64_t n = 0;
    for (int k = 0; k < sec[i].n_parts; k++) n += sec[i].n[k];
    end = at + n;
    at = vt_bin_align64(end);
  }
  unsigned char *b = aligned_alloc(64, (size_t)vt_bin_align64(end));
  if (!b) return VT_ENOMEM;
  memset(b, 0, (size_t)vt_bin_align64(head)); /* the header and table: magic and sizes only */
  memcpy(b, fmt->magic, 8);
  vt_bin_put32(b + 8, fmt->version);
  vt_bin_put32(b + 12, (uint32_t)fmt->n_sec);
  vt_bin_put64(b + 16, end);
  at = vt_bin_align64(head);
  for (int i = 0; i < fmt->n_sec; i++) {
    unsigned char *p = b + at;
    for (int k = 0; k < sec[i].n_parts; k++) {
      if (sec[i].n[k]) memcpy(p, sec[i].p[k], (size_t)sec[i].n[k]);
      p += sec[i].n[k];
    }
    const uint64_t n = (uint64_t)(p - (b + at));
    unsigned char *e = b + VT_BINFILE_HEADER + i * VT_BINFILE_ENTRY;
    vt_bin_put32(e, (uint32_t)(i + 1));
    vt_bin_put64(e + 8, at);
    vt_bin_put64(e + 16, n);
    f->sec[i + 1] = (vt_binsec){b + at, n};
    const uint64_t next = vt_bin_align64(at + n);
    if (i + 1 < fmt->n_sec) memset(p, 0, (size_t)(next - (at + n)));
    at = next;
  }
  f->file = (vt_filemap){b, (size_t)end, 1};
  return VT_OK;
}

#define BAD(...) VT_BAD(fail, path, __VA_ARGS__)

/* Checks the container held in f->file (see vt_binfile_open); `path` names it in messages. */
static int check(vt_binfile *f, const char *path, const vt_binfile_format *fmt, char *err,
                 size_t errlen) {
  int st;
  const unsigned char *b = f->file.p;
  const uint64_t size = f->file.len;
  if (size < 8 || memcmp(b, fmt->magic, 8) != 0) BAD("not a %s (bad magic)", fmt->kind);
  if (size < VT_BINFILE_HEADER)
    BAD("truncated %s (%llu bytes)", fmt->kind, (unsigned long long)size);
  const uint32_t version = vt_bin_get32(b + 8);
  if (version != fmt->version)
    BAD("%s version %u; this vitesse reads version %u", fmt->kind, version, fmt->version);
  const uint64_t fsize = vt_bin_get64(b + 16);
  if (fsize != size)
    BAD("truncated or extended %s: %llu bytes, the header says %llu", fmt->kind,
        (unsigned long long)size, (unsigned long long)fsize);
  const uint32_t n_sec = vt_bin_get32(b + 12);
  if (n_sec < 1 || n_sec > VT_BINFILE_MAX_TABLE ||
      VT_BINFILE_HEADER + (uint64_t)n_sec * VT_BINFILE_ENTRY > size)
    BAD(CORRUPT "bad section count %u", n_sec);
  {
    unsigned char hz[VT_BINFILE_HEADER];
    memcpy(hz, b, VT_BINFILE_HEADER);
    vt_bin_put32(hz + 24, 0);
    uint32_t crc = vt_bin_crc(vt_bin_crc(0, hz, VT_BINFILE_HEADER), b + VT_BINFILE_HEADER,
                              (uint64_t)n_sec * VT_BINFILE_ENTRY);
    /* A fuzzing build (VT_FUZZ) skips the CRC comparisons: mutated files must reach the
     * section parsers rather than stop here (tests/fuzz/README.md). */
#ifndef VT_FUZZ_NO_CHECKSUM
    if (crc != vt_bin_get32(b + 24)) BAD(CORRUPT "header checksum mismatch");
#else
    (void)crc;
#endif
  }
  for (uint32_t i = 0; i < n_sec; i++) {
    const unsigned char *e = b + VT_BINFILE_HEADER + (size_t)i * VT_BINFILE_ENTRY;
    const uint32_t id = vt_bin_get32(e);
    const uint64_t off = vt_bin_get64(e + 8), n = vt_bin_get64(e + 16);
    if (off % 64 || off > size || n > size - off) BAD(CORRUPT "section %u out of bounds", id);
    if (id < 1 || id > (uint32_t)fmt->n_sec) continue; /* unknown sections are skipped */
    if (f->sec[id].p) BAD(CORRUPT "section %s twice", fmt->sec_name[id]);
#ifndef VT_FUZZ_NO_CHECKSUM /* as above: a fuzzing build skips the CRC comparison */
    if (vt_bin_crc(0, b + off, n) != vt_bin_get32(e + 24))
      BAD(CORRUPT "checksum mismatch in section %s", fmt->sec_name[id]);
#endif
    f->sec[id] = (vt_binsec){b + off, n};
  }
  for (int id = 1; id <= fmt->n_sec; id++)
    if (!f->sec[id].p) BAD(CORRUPT "no %s section", fmt->sec_name[id]);
  return VT_OK;
fail:
  vt_binfile_close(f);
  return st;
}

int vt_binfile_open(vt_binfile *f, const char *path, const vt_binfile_format *fmt, char *err,
                    size_t errlen) {
  memset(f, 0, sizeof *f);
  int st = vt_filemap_open(&f->file, path, err, errlen);
  return st != VT_OK ? st : check(f, path, fmt, err, errlen);
}

int vt_binfile_open_mem(vt_binfile *f, const void *data, size_t size, const char *name,
                        const vt_binfile_format *fmt, char *err, size_t errlen) {
  memset(f, 0, sizeof *f);
  f->file.p = aligned_alloc(64, (size + 64) / 64 * 64);
  if (!f->file.p) {
    vt_errorf(err, errlen, name, "out of memory");
    return VT_ENOMEM;
  }
  if (size) memcpy(f->file.p, data, size);
  f->file.len = size;
  f->file.heap = 1;
  return check(f, name, fmt, err, errlen);
}

void vt_binfile_close(vt_binfile *f) {
  vt_filemap_close(&f->file);
  memset(f, 0, sizeof *f);
}

void vt_binfile_release(vt_binfile *f, vt_filemap *file) {
  *file = f->file;
  memset(f, 0, sizeof *f);
}

const unsigned char *vt_binsec_at(vt_binsec s, uint64_t off, uint64_t n) {
  if (off > s.size || n > s.size - off) return NULL;
  return s.p + off;
}

int vt_binsec_offsets_ok(const unsigned char *offs, uint64_t count, uint64_t bytes) {
  uint32_t prev = vt_bin_get32(offs);
  if (prev != 0) return 0;
  for (uint64_t i = 1; i <= count; i++) {
    uint32_t next = vt_bin_get32(offs + 4 * i);
    if (next < prev) return 0;
    prev = next;
  }
  return prev == bytes;
}
