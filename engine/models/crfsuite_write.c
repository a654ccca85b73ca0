/* engine/models/crfsuite_write.c: CRFsuite models written as crf1d files (see crfsuite_write.h). */
#define _POSIX_C_SOURCE 200809L
#include "models/crfsuite_write.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/errmsg.h"
#include "io/binfile.h"
#include "io/outfile.h"
#include "models/cqdb_write.h"

#define CRF1D_HEADER 48
#define CRF1D_VERSION 100
#define CHUNK_HEAD 12 /* a chunk's magic, size and count */
#define FEATURE_SIZE 20

/* 1 when a transition of weight w is written: every weight but +0, which an absent feature
 * scores in CRFsuite (-0 is written: adding it can keep a sum's sign where +0 would not). */
static int trans_kept(double w) { return w != 0.0 || signbit(w); }

/* Puts one feature record at p. */
static void feature_put(unsigned char *p, uint32_t type, uint32_t src, uint32_t dst, double w) {
  vt_bin_put32(p, type);
  vt_bin_put32(p + 4, src);
  vt_bin_put32(p + 8, dst);
  memcpy(p + 12, &w, 8); /* little-endian host (io/binfile.h), as CRFsuite stores it */
}

/* Puts a chunk's head: magic, size, count. */
static void chunk_put(unsigned char *p, const char *magic, uint64_t size, uint64_t num) {
  memcpy(p, magic, 4);
  vt_bin_put32(p + 4, (uint32_t)size);
  vt_bin_put32(p + 8, (uint32_t)num);
}

#define REFUSE(...)                                                                                \
  do {                                                                                             \
    vt_errorf(err, errlen, name, "cannot be written as a CRFsuite model: " __VA_ARGS__);           \
    st = VT_EINVAL;                                                                                \
    goto fail;                                                                                     \
  } while (0)

int vt_crfs_crf1d_bytes(const vt_crfs *m, const char *name, unsigned char **data, size_t *len,
                        char *err, size_t errlen) {
  int st = VT_ENOMEM;
  unsigned char *d = NULL;
  const uint64_t L = (uint64_t)m->L, A = m->A, ns = m->n_state;
  *data = NULL;
  *len = 0;
  /* CQDB keys are C strings, and CRFsuite finds an attribute by its name. */
  for (uint64_t y = 0; y < L; y++)
    if (memchr(m->label_pool + m->label_off[y], 0, m->label_off[y + 1] - m->label_off[y]))
      REFUSE("label %llu holds a NUL byte", (unsigned long long)y);
  for (uint64_t a = 0; a < A; a++) {
    const char *s = m->attr_pool + m->attr_off[a];
    const size_t n = m->attr_off[a + 1] - m->attr_off[a];
    if (memchr(s, 0, n)) REFUSE("attribute %llu holds a NUL byte", (unsigned long long)a);
    if (vt_crfs_attr_find(m, s, n) != (int64_t)a)
      REFUSE("attribute %llu is named twice", (unsigned long long)a);
  }
  uint64_t nt = 0;
  for (uint64_t p = 0; p < L * L; p++) nt += (uint64_t)trans_kept(m->tw[p]);
  const uint64_t nf = ns + nt;
  /* The layout, chunk by chunk, in CRFsuite's order; the reference chunks 4-byte aligned. */
  const uint64_t off_feat = CRF1D_HEADER, feat_size = CHUNK_HEAD + FEATURE_SIZE * nf;
  const uint64_t off_lab = off_feat + feat_size;
  const uint64_t off_att = off_lab + vt_cqdb_size(m->label_off, (uint32_t)L);
  const uint64_t off_lref = (off_att + vt_cqdb_size(m->attr_off, (uint32_t)A) + 3) & ~3ull;
  const uint64_t lref_size = CHUNK_HEAD + 4 * (L + 2) + 4 * L + 4 * nt;
  const uint64_t off_aref = off_lref + lref_size;
  const uint64_t aref_size = CHUNK_HEAD + 8 * A + 4 * ns;
  const uint64_t total = off_aref + aref_size;
  if (total > UINT32_MAX)
    REFUSE("%llu bytes, a crf1d file holds less than 4 GiB", (unsigned long long)total);
  if (!(d = calloc((size_t)total, 1))) goto nomem; /* zeroed: the padding and unused entries */

  memcpy(d, "lCRF", 4);
  vt_bin_put32(d + 4, (uint32_t)total);
  memcpy(d + 8, "FOMC", 4);
  vt_bin_put32(d + 12, CRF1D_VERSION);
  vt_bin_put32(d + 16, 0); /* num_features: CRFsuite's writer never sets it */
  vt_bin_put32(d + 20, (uint32_t)L);
  vt_bin_put32(d + 24, (uint32_t)A);
  vt_bin_put32(d + 28, (uint32_t)off_feat);
  vt_bin_put32(d + 32, (uint32_t)off_lab);
  vt_bin_put32(d + 36, (uint32_t)off_att);
  vt_bin_put32(d + 40, (uint32_t)off_lref);
  vt_bin_put32(d + 44, (uint32_t)off_aref);

  /* FEAT: state features (id = their index), then the kept transitions row by row. */
  unsigned char *f = d + off_feat;
  chunk_put(f, "FEAT", feat_size, nf);
  f += CHUNK_HEAD;
  for (uint64_t a = 0; a < A; a++)
    for (uint32_t k = m->st_off[a]; k < m->st_off[a + 1]; k++, f += FEATURE_SIZE)
      feature_put(f, 0, (uint32_t)a, m->st_label[k], m->st_w[k]);
  for (uint64_t i = 0; i < L; i++)
    for (uint64_t j = 0; j < L; j++)
      if (trans_kept(m->tw[i * L + j])) {
        feature_put(f, 1, (uint32_t)i, (uint32_t)j, m->tw[i * L + j]);
        f += FEATURE_SIZE;
      }

  if (vt_cqdb_fill(d + off_lab, m->label_off, m->label_pool, (uint32_t)L) ||
      vt_cqdb_fill(d + off_att, m->attr_off, m->attr_pool, (uint32_t)A))
    goto nomem;

  /* LFRF: each label's transitions out of it, whose ids run on from the state features. */
  unsigned char *r = d + off_lref, *list = r + CHUNK_HEAD + 4 * (L + 2);
  uint64_t fid = ns;
  chunk_put(r, "LFRF", lref_size, L + 2);
  for (uint64_t i = 0; i < L; i++) {
    uint32_t n = 0;
    vt_bin_put32(r + CHUNK_HEAD + 4 * i, (uint32_t)(list - d));
    for (uint64_t j = 0; j < L; j++)
      if (trans_kept(m->tw[i * L + j])) vt_bin_put32(list + 4 + 4 * n++, (uint32_t)fid++);
    vt_bin_put32(list, n);
    list += 4 + 4 * (uint64_t)n;
  }

  /* AFRF: each attribute's state features, in the model's order. */
  r = d + off_aref;
  list = r + CHUNK_HEAD + 4 * A;
  chunk_put(r, "AFRF", aref_size, A);
  for (uint64_t a = 0; a < A; a++) {
    const uint32_t b = m->st_off[a], n = m->st_off[a + 1] - b;
    vt_bin_put32(r + CHUNK_HEAD + 4 * a, (uint32_t)(list - d));
    vt_bin_put32(list, n);
    for (uint32_t k = 0; k < n; k++) vt_bin_put32(list + 4 + 4 * (uint64_t)k, b + k);
    list += 4 + 4 * (uint64_t)n;
  }

  *data = d;
  *len = (size_t)total;
  return VT_OK;
nomem:
  st = VT_ENOMEM;
  vt_errorf(err, errlen, name, "out of memory");
fail:
  free(d);
  return st;
}

int vt_crfs_write_crf1d(const char *path, const vt_crfs *m, char *err, size_t errlen) {
  unsigned char *data = NULL;
  size_t len = 0;
  vt_outfile of;
  memset(&of, 0, sizeof of);
  int st = vt_crfs_crf1d_bytes(m, path, &data, &len, err, errlen);
  if (st != VT_OK || (st = vt_outfile_open(&of, path, err, errlen)) != VT_OK) goto done;
  errno = 0;
  if (fwrite(data, 1, len, of.fp) != len) {
    vt_errorf(err, errlen, path, "write failed: %s", errno ? strerror(errno) : "I/O error");
    st = VT_EIO;
    goto done;
  }
  st = vt_outfile_commit(&of, err, errlen);
done:
  vt_outfile_abort(&of); /* a no-op once committed */
  free(data);
  return st;
}
