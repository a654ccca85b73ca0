/* engine/models/model_file.c: writes and loads the binary model file (see model_file.h). */
#define _POSIX_C_SOURCE 200809L
#include "models/model_file.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/errmsg.h"
#include "core/memlimit.h"
#include "io/binfile.h"
#include "io/filemap.h"
#include "io/outfile.h"
#include "text/strhash.h"
#include "text/tmpl_index_build.h"

enum { SEC_META = 1, SEC_LABELS, SEC_TEMPLATES, SEC_FEATURES, SEC_HASH, SEC_TRANS, N_SEC = 6 };
static const char *const SEC_NAME[N_SEC + 1] = {"",         "META", "LABELS", "TEMPLATES",
                                                "FEATURES", "HASH", "TRANS"};
static const vt_binfile_format FORMAT = {{0x89, 'V', 'T', 'M', 'O', 'D', 'L', '\n'},
                                         VT_MODEL_VERSION,
                                         "vitesse model file",
                                         N_SEC,
                                         SEC_NAME};
#define META_SIZE 128
#define MAX_LABELS 46340 /* L * L fits in an int32 pair key */

/* ---- writing ----------------------------------------------------------------------------------
 */

/* Writes `img` to `path`, or, when `mem` is not NULL, lays it out in memory as an opened container
 * (vt_binfile_layout; `path` names it in messages). */
static int write_image(const char *path, const vt_textmodel_image *img, vt_binfile *mem, char *err,
                       size_t errlen) {
  int st = VT_ENOMEM;
  const int32_t L = img->L;
  unsigned char meta[META_SIZE];
  unsigned char *labels_head = NULL;
  uint32_t *slots = NULL;
  float *trans = NULL;
  if (L < 1 || L > MAX_LABELS || img->recs_len / 4 + 1 >= UINT32_MAX) {
    vt_errorf(err, errlen, path, "model too large to write");
    return VT_EINVAL;
  }

  memset(meta, 0, sizeof meta);
  int off_bits = 1;
  while (off_bits < 32 && ((uint64_t)1 << off_bits) <= img->recs_len / 4 + 1) off_bits++;
  int hash_bits = 4;
  while (((uint64_t)1 << hash_bits) < 2 * (uint64_t)img->n_feat + 2) hash_bits++;
  if (hash_bits > 31) {
    vt_errorf(err, errlen, path, "too many features to write");
    return VT_EINVAL;
  }
  vt_bin_put32(meta + 0, (uint32_t)L);
  vt_bin_put32(meta + 4, img->n_feat);
  vt_bin_put32(meta + 8, (uint32_t)img->key_bytes);
  vt_bin_put32(meta + 12, (uint32_t)hash_bits);
  vt_bin_put32(meta + 16, (uint32_t)off_bits);
  vt_bin_put32(meta + 20, img->obs_bigram ? 1u : 0u);
  vt_bin_put32(meta + 24, (uint32_t)img->meta.label_col);
  vt_bin_put32(meta + 28, (uint32_t)img->meta.ncols);
  vt_bin_put32(meta + 32, (uint32_t)img->meta.epochs);
  vt_bin_put32(meta + 36, img->meta.reader);
  vt_bin_put64(meta + 40, img->meta.seed);
  vt_bin_put64(meta + 48, img->meta.train_sentences);
  vt_bin_put64(meta + 56, img->meta.train_tokens);
  memcpy(meta + 64, img->meta.decoder, sizeof img->meta.decoder);
  meta[64 + sizeof img->meta.decoder - 1] = 0;
  vt_bin_put32(meta + 96, img->meta.origin);

  /* LABELS: frequencies, rank and name offsets in one buffer, then the names. */
  size_t lh = (size_t)L * 8 + (size_t)L * 4 + ((size_t)L + 1) * 4;
  labels_head = malloc(lh);
  /* HASH: every record's string, at its hash. */
  size_t n_slots = (size_t)1 << hash_bits;
  slots = calloc(n_slots, sizeof *slots);
  size_t tn = (size_t)L * (size_t)L + 2 * (size_t)L;
  trans = malloc(tn * sizeof *trans);
  if (!labels_head || !slots || !trans) goto fail;
  memcpy(labels_head, img->label_freq, (size_t)L * 8);
  memcpy(labels_head + (size_t)L * 8, img->rank, (size_t)L * 4);
  memcpy(labels_head + (size_t)L * 12, img->label_off, ((size_t)L + 1) * 4);
  uint64_t pos = 0;
  for (uint32_t f = 0; f < img->n_feat; f++) {
    vt_feat ft;
    vt_feat_read(img->recs + pos, img->key_bytes, &ft);
    uint64_t h = vt_strhash(ft.str, ft.len);
    uint32_t i = (uint32_t)h & (uint32_t)(n_slots - 1);
    while (slots[i]) i = (i + 1) & (uint32_t)(n_slots - 1);
    slots[i] = vt_textmodel_tag(h, off_bits) << (off_bits & 31) | (uint32_t)(pos / 4 + 1);
    if (off_bits >= 32) slots[i] = (uint32_t)(pos / 4 + 1);
    pos += vt_feat_size(ft.len, ft.nnz, vt_feat_key_bytes(&ft, img->key_bytes));
  }
  memcpy(trans, img->A, (size_t)L * (size_t)L * sizeof *trans);
  memcpy(trans + (size_t)L * L, img->S, (size_t)L * sizeof *trans);
  memcpy(trans + (size_t)L * L + L, img->F, (size_t)L * sizeof *trans);

  vt_binfile_section sec[N_SEC];
  memset(sec, 0, sizeof sec);
  vt_binfile_section_add(&sec[0], meta, META_SIZE);
  vt_binfile_section_add(&sec[1], labels_head, lh);
  vt_binfile_section_add(&sec[1], img->label_bytes, img->label_off[L]);
  vt_binfile_section_add(&sec[2], img->tmpl_text, img->tmpl_len);
  vt_binfile_section_add(&sec[3], img->recs, img->recs_len);
  vt_binfile_section_add(&sec[4], slots, n_slots * 4);
  vt_binfile_section_add(&sec[5], trans, tn * 4);
  if (!mem) {
    st = vt_binfile_write(path, &FORMAT, sec, err, errlen);
    goto done;
  }
  st = vt_binfile_layout(&FORMAT, sec, mem);
  if (st == VT_OK) goto done;
fail:
  vt_errorf(err, errlen, path, "out of memory");
done:
  free(labels_head);
  free(slots);
  free(trans);
  return st;
}

int vt_textmodel_write(const char *path, const vt_textmodel_image *img, char *err, size_t errlen) {
  return write_image(path, img, NULL, err, errlen);
}

int vt_textmodel_save(const vt_textmodel *m, const char *path, char *err, size_t errlen) {
  const size_t LL = (size_t)m->L * (size_t)m->L;
  float *t = malloc((LL + 2 * (size_t)m->L) * sizeof *t);
  if (!t) {
    vt_errorf(err, errlen, path, "out of memory");
    return VT_ENOMEM;
  }
  for (size_t i = 0; i < LL; i++) t[i] = (float)m->A[i];
  for (int32_t y = 0; y < m->L; y++) {
    t[LL + (size_t)y] = (float)m->S[y];
    t[LL + (size_t)m->L + (size_t)y] = (float)m->F[y];
  }
  vt_textmodel_image img = {m->L,        m->label_bytes, m->label_off,  m->label_freq,
                            m->rank,     m->tmpl_text,   m->tmpl_len,   m->recs,
                            m->recs_len, m->n_feat,      m->key_bytes,  m->obs_bigram,
                            t,           t + LL,         t + LL + m->L, m->meta};
  int st = vt_textmodel_write(path, &img, err, errlen);
  free(t);
  return st;
}

/* ---- loading ----------------------------------------------------------------------------------
 */

#define BAD(...) VT_BAD(fail, path, __VA_ARGS__)

static int finite_all(const float *v, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!isfinite(v[i])) return 0;
  return 1;
}

/* Walks the feature records: bounds, keys, values; marks record starts in `starts`. */
static const char *check_records(const vt_textmodel *m, uint8_t *starts) {
  uint64_t pos = 0;
  const uint64_t L2 = (uint64_t)m->L * (uint64_t)m->L;
  for (uint32_t f = 0; f < m->n_feat; f++) {
    if (m->recs_len - pos < 8) return "feature record past the end of its section";
    vt_feat ft;
    vt_feat_read(m->recs + pos, m->key_bytes, &ft);
    if (ft.bigram && !m->obs_bigram) return "bigram feature in a model without bigram templates";
    if (ft.dense && (ft.bigram || ft.nnz != (uint32_t)m->L)) return "malformed dense record";
    int kb = vt_feat_key_bytes(&ft, m->key_bytes);
    uint64_t size = vt_feat_size(ft.len, ft.nnz, kb);
    if (size > m->recs_len - pos) return "feature record past the end of its section";
    starts[pos / 4 / 8] |= (uint8_t)(1u << (pos / 4 % 8));
    uint64_t lim = ft.bigram ? L2 : (uint64_t)m->L;
    for (uint32_t k = 0; k < ft.nnz && kb; k++) {
      uint64_t key = kb == 2 ? ((const uint16_t *)ft.keys)[k] : ((const uint32_t *)ft.keys)[k];
      if (key >= lim) return "feature weight for a label out of range";
    }
    if (!finite_all(ft.vals, ft.nnz)) return "non-finite feature weight";
    pos += size;
  }
  if (pos != m->recs_len) return "feature section size does not match its records";
  return NULL;
}

int vt_textmodel_sniff(const unsigned char *head, size_t n) {
  return n >= 8 && memcmp(head, FORMAT.magic, 8) == 0;
}

/* Loads from `path`; when `mem` is not NULL, from its `mem_len` bytes named `path`; when `laid` is
 * not NULL, from that container (vt_binfile_layout), which it takes. */
static int load(vt_textmodel **out, const char *path, const void *mem, size_t mem_len,
                vt_binfile *laid, char *err, size_t errlen) {
  int st = VT_ENOMEM;
  *out = NULL;
  uint8_t *starts = NULL;
  vt_binfile bf;
  memset(&bf, 0, sizeof bf);
  if (laid) { /* taken: freed below on any failure */
    bf = *laid;
    memset(laid, 0, sizeof *laid);
  }
  vt_textmodel *m = calloc(1, sizeof *m);
  if (!m) goto nomem;
  m->tmpl.max_col = -1;
  st = laid  ? VT_OK
       : mem ? vt_binfile_open_mem(&bf, mem, mem_len, path, &FORMAT, err, errlen)
             : vt_binfile_open(&bf, path, &FORMAT, err, errlen);
  if (st != VT_OK) goto fail;
  const unsigned char *sp[N_SEC + 1];
  uint64_t sz[N_SEC + 1];
  for (int id = 1; id <= N_SEC; id++) {
    sp[id] = bf.sec[id].p;
    sz[id] = bf.sec[id].size;
  }
  /* The model owns the mapping from here on (vt_textmodel_free unmaps it). */
  vt_binfile_release(&bf, &m->file);

  /* META */
  if (sz[SEC_META] != META_SIZE) BAD("corrupt model file: META section size");
  const unsigned char *mt = sp[SEC_META];
  m->L = (int32_t)vt_bin_get32(mt);
  m->n_feat = vt_bin_get32(mt + 4);
  m->key_bytes = (int)vt_bin_get32(mt + 8);
  uint32_t hash_bits = vt_bin_get32(mt + 12);
  m->off_bits = (int)vt_bin_get32(mt + 16);
  m->obs_bigram = (int)(vt_bin_get32(mt + 20) & 1);
  m->meta.label_col = (int32_t)vt_bin_get32(mt + 24);
  m->meta.ncols = (int32_t)vt_bin_get32(mt + 28);
  m->meta.epochs = (int32_t)vt_bin_get32(mt + 32);
  m->meta.reader = vt_bin_get32(mt + 36);
  m->meta.seed = vt_bin_get64(mt + 40);
  m->meta.train_sentences = vt_bin_get64(mt + 48);
  m->meta.train_tokens = vt_bin_get64(mt + 56);
  memcpy(m->meta.decoder, mt + 64, sizeof m->meta.decoder);
  m->meta.decoder[sizeof m->meta.decoder - 1] = 0;
  m->meta.origin = vt_bin_get32(mt + 96);
  const int32_t L = m->L;
  if (L < 1 || L > MAX_LABELS) BAD("corrupt model file: %d labels", L);
  {
    char what[64];
    snprintf(what, sizeof what, "a model of %d labels", L);
    st = vt_memlimit_check((uint64_t)L * (uint64_t)L * VT_MEM_PER_LABEL_PAIR, path, what, err,
                           errlen);
    if (st != VT_OK) goto fail;
  }
  if (!(m->key_bytes == 4 || (m->key_bytes == 2 && L <= 65535)))
    BAD("corrupt model file: key width %d", m->key_bytes);
  if (hash_bits < 4 || hash_bits > 31 || m->off_bits < 1 || m->off_bits > 32)
    BAD("corrupt model file: hash parameters");

  /* LABELS */
  uint64_t lh = (uint64_t)L * 16 + 4;
  if (sz[SEC_LABELS] < lh) BAD("corrupt model file: LABELS section size");
  m->label_freq = (const uint64_t *)(const void *)sp[SEC_LABELS];
  m->rank = (const int32_t *)(const void *)(sp[SEC_LABELS] + (size_t)L * 8);
  m->label_off = (const uint32_t *)(const void *)(sp[SEC_LABELS] + (size_t)L * 12);
  m->label_bytes = (const char *)sp[SEC_LABELS] + lh;
  if (!vt_binsec_offsets_ok(sp[SEC_LABELS] + (size_t)L * 12, (uint64_t)L, sz[SEC_LABELS] - lh))
    BAD("corrupt model file: label names");
  {
    starts = calloc((size_t)L, 1);
    if (!starts) goto nomem;
    for (int32_t r = 0; r < L; r++) {
      int32_t y = m->rank[r];
      if (y < 0 || y >= L || starts[y]) BAD("corrupt model file: rank is not a permutation");
      starts[y] = 1;
    }
    free(starts);
    starts = NULL;
  }

  /* TEMPLATES */
  m->tmpl_text = (const char *)sp[SEC_TEMPLATES];
  m->tmpl_len = sz[SEC_TEMPLATES];
  {
    char terr[256];
    st = vt_tmplset_parse(&m->tmpl, m->tmpl_text, m->tmpl_len, "templates", terr, sizeof terr);
    if (st == VT_ENOMEM) goto nomem;
    if (st != VT_OK) BAD("corrupt model file: %s", terr);
    if ((m->tmpl.n_b > 0) != m->obs_bigram) BAD("corrupt model file: template flags");
  }

  /* FEATURES and HASH */
  m->recs = sp[SEC_FEATURES];
  m->recs_len = sz[SEC_FEATURES];
  if (m->recs_len % 4 || m->recs_len / 4 + 1 >= ((uint64_t)1 << m->off_bits))
    BAD("corrupt model file: FEATURES section size");
  if (sz[SEC_HASH] != (uint64_t)4 << hash_bits || ((uint64_t)1 << hash_bits) <= m->n_feat)
    BAD("corrupt model file: HASH section size");
  m->slots = (const uint32_t *)(const void *)sp[SEC_HASH];
  m->slot_mask = (uint32_t)(((uint64_t)1 << hash_bits) - 1);
  starts = calloc((size_t)(m->recs_len / 32 + 1), 1);
  if (!starts) goto nomem;
  {
    const char *why = check_records(m, starts);
    if (why) BAD("corrupt model file: %s", why);
    uint32_t omask = m->off_bits >= 32 ? 0xFFFFFFFFu : (1u << m->off_bits) - 1;
    uint64_t used = 0;
    for (uint64_t i = 0; i <= m->slot_mask; i++) {
      uint32_t v = m->slots[i];
      if (!v) continue;
      used++;
      uint64_t w = (uint64_t)(v & omask);
      if (w == 0 || w - 1 >= m->recs_len / 4 || !(starts[(w - 1) / 8] & (1u << ((w - 1) % 8))))
        BAD("corrupt model file: hash slot points outside the feature records");
    }
    if (used != m->n_feat)
      BAD("corrupt model file: hash table holds %llu of %u features", (unsigned long long)used,
          m->n_feat);
    uint64_t longest = vt_slots_longest_run(m->slots, (uint64_t)m->slot_mask + 1);
    if (longest > VT_HASH_MAX_RUN)
      BAD("hash table has a run of %llu occupied slots (at most %d): strings made to share a "
          "hash?",
          (unsigned long long)longest, VT_HASH_MAX_RUN);
  }
  free(starts);
  starts = NULL;

  /* TRANS */
  size_t LL = (size_t)L * (size_t)L;
  if (sz[SEC_TRANS] != (LL + 2 * (size_t)L) * 4) BAD("corrupt model file: TRANS section size");
  const float *tf = (const float *)(const void *)sp[SEC_TRANS];
  if (!finite_all(tf, LL + 2 * (size_t)L)) BAD("corrupt model file: non-finite transition");
  m->A = malloc(LL * sizeof(double));
  m->S = malloc((size_t)L * sizeof(double));
  m->F = malloc((size_t)L * sizeof(double));
  if (!m->A || !m->S || !m->F) goto nomem;
  for (size_t i = 0; i < LL; i++) m->A[i] = tf[i];
  for (int32_t y = 0; y < L; y++) {
    m->S[y] = tf[LL + (size_t)y];
    m->F[y] = tf[LL + (size_t)L + (size_t)y];
  }
  st = vt_textmodel_bind(m);
  if (st != VT_OK) {
    vt_errorf(err, errlen, path, "cannot bind the transition model: %s", vt_strerror(st));
    goto fail;
  }
  if (vt_tmpl_index_build(m, &m->tix) != VT_OK) goto nomem;
  if (m->tix) { /* tagging reads the hash table only for templates the index does not find */
    vt_filemap_drop(&m->file, m->slots, (size_t)sz[SEC_HASH]);
  }
  *out = m;
  return VT_OK;
nomem:
  st = VT_ENOMEM;
  vt_errorf(err, errlen, path, "out of memory");
fail:
  vt_binfile_close(&bf);
  free(starts);
  vt_textmodel_free(m);
  return st;
}

int vt_textmodel_load(vt_textmodel **out, const char *path, char *err, size_t errlen) {
  return load(out, path, NULL, 0, NULL, err, errlen);
}

int vt_textmodel_load_mem(vt_textmodel **out, const void *data, size_t size, const char *name,
                          char *err, size_t errlen) {
  return load(out, name, data ? data : "", size, NULL, err, errlen);
}

int vt_textmodel_from_image(vt_textmodel **out, const vt_textmodel_image *img, const char *name,
                            char *err, size_t errlen) {
  vt_binfile bf;
  *out = NULL;
  int st = write_image(name, img, &bf, err, errlen);
  return st != VT_OK ? st : load(out, name, NULL, 0, &bf, err, errlen);
}
