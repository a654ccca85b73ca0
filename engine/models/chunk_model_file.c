/* engine/models/chunk_model_file.c: writes and loads the joint label-chunk model file (see
 * chunk_model_file.h). */
#define _POSIX_C_SOURCE 200809L
#include "models/chunk_model_file.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/errmsg.h"
#include "io/binfile.h"
#include "io/outfile.h"

enum { SEC_META = 1, SEC_POS, SEC_CHUNKS, SEC_WORDS, SEC_ROWS, SEC_OUTS, SEC_WEIGHTS, N_SEC = 7 };
static const char *const SEC_NAME[N_SEC + 1] = {"",      "META", "POS",  "CHUNKS",
                                                "WORDS", "ROWS", "OUTS", "WEIGHTS"};
static const vt_binfile_format FORMAT = {{0x89, 'V', 'T', 'C', 'H', 'N', 'K', '\n'},
                                         VT_CHUNK_MODEL_VERSION,
                                         "joint label-chunk model",
                                         N_SEC,
                                         SEC_NAME};
#define META_SIZE 64
#define MAX_TAGS 4096

/* ---- writing ----------------------------------------------------------------------------------
 */

/* A names section: u32 offsets[n + 1], then the bytes. */
static unsigned char *names_pack(const vt_featdict *d, uint64_t *size) {
  const uint64_t head = 4 * ((uint64_t)d->n + 1), bytes = d->off[d->n];
  if (bytes > UINT32_MAX) return NULL;
  unsigned char *p = malloc((size_t)(head + bytes) + 1);
  if (!p) return NULL;
  for (int32_t i = 0; i <= d->n; i++) vt_bin_put32(p + 4 * (size_t)i, (uint32_t)d->off[i]);
  memcpy(p + head, d->pool, (size_t)bytes);
  *size = head + bytes;
  return p;
}

int vt_chunk_model_write(const char *path, const vt_chunk_model *m, char *err, size_t errlen) {
  int st = VT_ENOMEM;
  unsigned char meta[META_SIZE];
  unsigned char *names[3] = {NULL, NULL, NULL};
  uint64_t names_size[3] = {0, 0, 0};
  names[0] = names_pack(&m->pos_names, &names_size[0]);
  names[1] = names_pack(&m->chunk_names, &names_size[1]);
  names[2] = names_pack(&m->words, &names_size[2]);
  if (!names[0] || !names[1] || !names[2]) {
    vt_errorf(err, errlen, path, "out of memory (or over 4 GiB of words)");
    goto done;
  }
  memset(meta, 0, sizeof meta);
  vt_bin_put32(meta + 0, (uint32_t)m->c);
  vt_bin_put32(meta + 4, (uint32_t)m->p);
  vt_bin_put32(meta + 8, (uint32_t)m->collapse);
  vt_bin_put32(meta + 12, (uint32_t)m->max_chunk);
  vt_bin_put32(meta + 16, VT_CHUNK_NTMPL);
  vt_bin_put32(meta + 20, (uint32_t)m->words.n);
  vt_bin_put64(meta + 24, (uint64_t)m->n_rows);
  vt_bin_put64(meta + 32, (uint64_t)m->n_feat);
  vt_binfile_section sec[N_SEC];
  memset(sec, 0, sizeof sec);
  vt_binfile_section_add(&sec[0], meta, META_SIZE);
  for (int i = 0; i < 3; i++) vt_binfile_section_add(&sec[1 + i], names[i], names_size[i]);
  vt_binfile_section_add(&sec[4], m->rowptr, 8 * ((uint64_t)m->n_rows + 1));
  vt_binfile_section_add(&sec[5], m->outs, 4 * (uint64_t)m->n_feat);
  vt_binfile_section_add(&sec[6], m->w, 8 * (uint64_t)m->n_feat);
  st = vt_binfile_write(path, &FORMAT, sec, err, errlen);
done:
  for (int i = 0; i < 3; i++) free(names[i]);
  return st;
}

/* ---- loading ----------------------------------------------------------------------------------
 */

#define BAD(...) VT_BAD(fail, path, __VA_ARGS__)

int vt_chunk_model_sniff_bytes(const unsigned char *head, size_t n) {
  return n >= 8 && !memcmp(head, FORMAT.magic, 8);
}

/* Loads a names section of `count` names into dictionary d; NULL or a problem. The whole
 * offset table is checked against the section before any name is read. */
static const char *names_load(vt_featdict *d, vt_binsec s, uint64_t count) {
  const uint64_t head = 4 * (count + 1);
  const unsigned char *offs = vt_binsec_at(s, 0, head);
  if (!offs) return "is too short";
  if (!vt_binsec_offsets_ok(offs, count, s.size - head)) return "has bad offsets";
  vt_featdict_free(d);
  if (vt_featdict_init(d) != VT_OK) return "out of memory";
  for (uint64_t i = 0; i < count; i++) {
    const uint32_t at = vt_bin_get32(offs + 4 * i), n = vt_bin_get32(offs + 4 * (i + 1)) - at;
    const unsigned char *name = vt_binsec_at(s, head + at, n);
    int32_t id;
    if (!name) return "has bad offsets";
    if (vt_featdict_add(d, (const char *)name, n, &id) != VT_OK) return "out of memory";
    if ((uint64_t)id != i) return "has a name twice";
  }
  return NULL;
}

/* Loads from `path`, or, when `mem` is not NULL, from its `mem_len` bytes named `path`. */
static int load(vt_chunk_model *m, const char *path, const void *mem, size_t mem_len, char *err,
                size_t errlen) {
  vt_binfile bf;
  memset(&bf, 0, sizeof bf);
  vt_chunk_model_free(m);
  int st = vt_chunk_model_init(m);
  if (st != VT_OK) {
    vt_errorf(err, errlen, path, "out of memory");
    return st;
  }
  if ((st = (mem ? vt_binfile_open_mem(&bf, mem, mem_len, path, &FORMAT, err, errlen)
                 : vt_binfile_open(&bf, path, &FORMAT, err, errlen))) != VT_OK)
    return st;
  const vt_binsec *sec = bf.sec;
  if (sec[SEC_META].size != META_SIZE) BAD("corrupt model file: META size");
  const unsigned char *mt = sec[SEC_META].p;
  const uint32_t c = vt_bin_get32(mt), p = vt_bin_get32(mt + 4), words = vt_bin_get32(mt + 20);
  const uint64_t n_rows = vt_bin_get64(mt + 24), n_feat = vt_bin_get64(mt + 32);
  if (c < 1 || c > MAX_TAGS || p < 1 || p > MAX_TAGS) BAD("corrupt model file: %u x %u tags", c, p);
  if (vt_bin_get32(mt + 8) > VT_COLLAPSE_PAPER || vt_bin_get32(mt + 12) > INT32_MAX ||
      vt_bin_get32(mt + 16) != VT_CHUNK_NTMPL || words < 2 || words > INT32_MAX - 1)
    BAD("corrupt model file: META fields");
  m->c = (int32_t)c;
  m->p = (int32_t)p;
  m->collapse = (int32_t)vt_bin_get32(mt + 8);
  m->max_chunk = (int32_t)vt_bin_get32(mt + 12);
  const char *why;
  if ((why = names_load(&m->pos_names, sec[SEC_POS], p)))
    BAD("corrupt model file: POS names %s", why);
  if ((why = names_load(&m->chunk_names, sec[SEC_CHUNKS], c)))
    BAD("corrupt model file: chunk names %s", why);
  if ((why = names_load(&m->words, sec[SEC_WORDS], words)))
    BAD("corrupt model file: words %s", why);
  size_t nl;
  const char *o = vt_featdict_str(&m->chunk_names, 0, &nl);
  if (nl != 1 || *o != 'O') BAD("corrupt model file: chunk tag 0 is not O");
  m->row0[0] = 0;
  for (int k = 0; k < VT_CHUNK_NTMPL; k++) m->row0[k + 1] = m->row0[k] + vt_chunk_tmpl_values(m, k);
  if (n_rows != (uint64_t)m->row0[VT_CHUNK_NTMPL] || n_rows >= (uint64_t)INT64_MAX / 8 ||
      sec[SEC_ROWS].size != 8 * (n_rows + 1) || n_feat > (uint64_t)INT64_MAX / 8 ||
      sec[SEC_OUTS].size != 4 * n_feat || sec[SEC_WEIGHTS].size != 8 * n_feat)
    BAD("corrupt model file: feature table sizes");
  m->n_rows = (int64_t)n_rows;
  m->n_feat = (int64_t)n_feat;
  m->rowptr = malloc((size_t)sec[SEC_ROWS].size);
  m->outs = malloc((size_t)sec[SEC_OUTS].size + 4);
  m->w = malloc((size_t)sec[SEC_WEIGHTS].size + 8);
  if (!m->rowptr || !m->outs || !m->w) {
    vt_errorf(err, errlen, path, "out of memory");
    st = VT_ENOMEM;
    goto fail;
  }
  memcpy(m->rowptr, sec[SEC_ROWS].p, (size_t)sec[SEC_ROWS].size);
  memcpy(m->outs, sec[SEC_OUTS].p, (size_t)sec[SEC_OUTS].size);
  memcpy(m->w, sec[SEC_WEIGHTS].p, (size_t)sec[SEC_WEIGHTS].size);
  /* Every row's [start, end) is checked to lie inside OUTS before its entries are read. */
  if (m->rowptr[0] != 0 || m->rowptr[n_rows] != m->n_feat) BAD("corrupt model file: row table");
  for (int k = 0; k < VT_CHUNK_NTMPL; k++) {
    const int64_t dim = vt_chunk_tmpl_dim(m, k);
    for (int64_t r = m->row0[k]; r < m->row0[k + 1]; r++) {
      if (m->rowptr[r + 1] < m->rowptr[r] || m->rowptr[r + 1] > m->n_feat ||
          m->rowptr[r + 1] - m->rowptr[r] > dim)
        BAD("corrupt model file: row table");
      for (int64_t e = m->rowptr[r]; e < m->rowptr[r + 1]; e++)
        if (m->outs[e] < 0 || m->outs[e] >= dim ||
            (e > m->rowptr[r] && m->outs[e] <= m->outs[e - 1]))
          BAD("corrupt model file: feature outputs");
    }
  }
  for (int64_t e = 0; e < m->n_feat; e++)
    if (!isfinite(m->w[e])) BAD("corrupt model file: a weight is not finite");
  st = VT_OK;
fail:
  vt_binfile_close(&bf);
  return st;
}

int vt_chunk_model_load(vt_chunk_model *m, const char *path, char *err, size_t errlen) {
  return load(m, path, NULL, 0, err, errlen);
}

int vt_chunk_model_load_mem(vt_chunk_model *m, const void *data, size_t size, const char *name,
                            char *err, size_t errlen) {
  return load(m, name, data ? data : "", size, err, errlen);
}
