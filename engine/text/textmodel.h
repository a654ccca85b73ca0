/* engine/text/textmodel.h: a trained tagging model, as loaded from a model file
 * (engine/models/model_file.h).
 *
 * Read-only once loaded, and shared by every thread: labels (names, training frequencies and
 * rank order), the compiled templates, the feature table, sparse per-feature weights and the
 * transition model. Features live in "records" inside the mapped file, 4-byte aligned:
 *   u32 len; u32 nnz | dense << 30 | bigram << 31; len bytes of the feature string (zero-padded
 *   to 4); nnz keys (u16 when key_bytes is 2, else u32; padded to 4; none when dense); nnz
 *   float weights.
 * A unigram record keys labels; a bigram record (observation-dependent `B` templates) keys label
 * pairs prev * L + cur. A sparse record stores only non-zero weights; a dense unigram record
 * (for features that score many labels: faster to add) stores all L weights, keyless. */
#ifndef VT_TEXT_TEXTMODEL_H
#define VT_TEXT_TEXTMODEL_H

#include <stddef.h>
#include <stdint.h>

#include "core/rowadd.h"
#include "io/filemap.h"
#include "text/template.h"
#include "vitesse.h"

/* What a model records about its training (META section). */
typedef struct vt_textmodel_meta {
  int32_t label_col; /* label column used in training; -1 = last */
  int32_t ncols;     /* columns of the training corpus */
  int32_t epochs;
  uint32_t reader; /* bit 0: --comments, bit 1: --conllu, bits 2-3: vt_conll_sep */
  uint64_t seed;
  uint64_t train_sentences, train_tokens;
  char decoder[32]; /* algorithm used in training (NUL-terminated) */
  uint32_t origin;  /* VT_ORIGIN_*: the toolkit that trained it */
} vt_textmodel_meta;

/* vt_textmodel_meta.origin: trained by vitesse, or imported from CRF++ or Wapiti. */
enum { VT_ORIGIN_VITESSE = 0, VT_ORIGIN_CRFPP = 1, VT_ORIGIN_WAPITI = 2 };

/* The reader options as META keeps them: bit 0 comments, bit 1 CoNLL-U, bits 2-3 the separator. */
static inline uint32_t vt_textmodel_reader_pack(const vt_reader_opts *o) {
  return (o->comments ? 1u : 0u) | (o->conllu ? 2u : 0u) | ((uint32_t)o->sep & 3u) << 2;
}

/* Sets the sep, comments and conllu fields of `o` from packed META bits. */
static inline void vt_textmodel_reader_unpack(uint32_t packed, vt_reader_opts *o) {
  o->comments = (int)(packed & 1);
  o->conllu = (int)(packed >> 1 & 1);
  o->sep = (vt_sep)(packed >> 2 & 3);
}

/* Everything a model file holds, as the trainer hands it to the writer. */
typedef struct vt_textmodel_image {
  int32_t L;
  const char *label_bytes;
  const uint32_t *label_off; /* L + 1 */
  const uint64_t *label_freq;
  const int32_t *rank;
  const char *tmpl_text;
  size_t tmpl_len;
  const uint8_t *recs; /* n_feat records back to back (engine/text/textmodel.h) */
  uint64_t recs_len;
  uint32_t n_feat;
  int key_bytes;
  int obs_bigram;
  const float *A, *S, *F;
  vt_textmodel_meta meta;
} vt_textmodel_image;

typedef struct vt_textmodel {
  int32_t L;
  const uint32_t *label_off; /* L + 1 offsets into label_bytes */
  const char *label_bytes;
  const uint64_t *label_freq;
  const int32_t *rank; /* labels by decreasing training frequency */
  vt_tmplset tmpl;
  const char *tmpl_text;
  size_t tmpl_len;
  const uint8_t *recs; /* feature records */
  uint64_t recs_len;
  uint32_t n_feat;
  int key_bytes;         /* 2 or 4 */
  const uint32_t *slots; /* hash table: tag << off_bits | (record word offset + 1) */
  uint32_t slot_mask;
  int off_bits;
  int obs_bigram;            /* has observation-dependent bigram templates */
  double *A, *S, *F;         /* L*L row-major, L, L (owned) */
  vt_trans *trans;           /* bound from A, S, F and rank (owned) */
  struct vt_tmpl_index *tix; /* features by cell values (tmpl_index.h; NULL: none; held, and
                                shared with the model's replicas) */
  vt_textmodel_meta meta;
  vt_filemap file; /* the file mapped or read, which the arrays above point into (owned; a
                     replica's is its own copy, freed with its block, not closed) */
} vt_textmodel;

/* A feature record's parts. */
typedef struct vt_feat {
  uint32_t len, nnz;
  int bigram, dense;
  const char *str;
  const void *keys; /* uint16_t or uint32_t */
  const float *vals;
} vt_feat;

static inline uint32_t vt_pad4(uint32_t n) { return (n + 3u) & ~3u; }

/* Size in bytes of a record with a `len`-byte string and `nnz` keys of `key_bytes` each
 * (key_bytes 0 for a dense record). */
static inline uint64_t vt_feat_size(uint32_t len, uint32_t nnz, int key_bytes) {
  return 8 + (uint64_t)vt_pad4(len) + (((uint64_t)nnz * (uint64_t)key_bytes + 3) & ~3ull) +
         4 * (uint64_t)nnz;
}

/* Key width of record `f` in a model whose sparse unigram keys have `key_bytes` bytes. */
static inline int vt_feat_key_bytes(const vt_feat *f, int key_bytes) {
  return f->bigram ? 4 : f->dense ? 0 : key_bytes;
}

/* Decodes the record at `rec` (sparse unigram keys have key_bytes, bigram keys 4). */
static inline void vt_feat_read(const uint8_t *rec, int key_bytes, vt_feat *f) {
  const uint32_t *h = (const uint32_t *)(const void *)rec;
  f->len = h[0];
  f->nnz = h[1] & 0x3FFFFFFFu;
  f->bigram = (int)(h[1] >> 31);
  f->dense = (int)(h[1] >> 30 & 1);
  f->str = (const char *)rec + 8;
  f->keys = rec + 8 + vt_pad4(f->len);
  int kb = vt_feat_key_bytes(f, key_bytes);
  f->vals = (const float *)(const void *)((const uint8_t *)f->keys +
                                          (((uint64_t)f->nnz * (uint64_t)kb + 3) & ~3ull));
}

/* Adds the weights of sparse unigram record f (vt_feat_read with key_bytes) to emission row e. */
static inline __attribute__((always_inline)) void vt_feat_add_sparse(const vt_feat *f,
                                                                     int key_bytes, double *e) {
  if (key_bytes == 2) {
    const uint16_t *k = f->keys;
    for (uint32_t i = 0; i < f->nnz; i++) e[k[i]] += f->vals[i];
  } else {
    const uint32_t *k = f->keys;
    for (uint32_t i = 0; i < f->nnz; i++) e[k[i]] += f->vals[i];
  }
}

/* Adds the weights of unigram record `rec` to emission row e (L entries). */
static inline __attribute__((always_inline)) void
vt_feat_add_unigram(const uint8_t *rec, int key_bytes, double *e, vt_rowadd_f32_fn add) {
  vt_feat f;
  vt_feat_read(rec, key_bytes, &f);
  if (f.dense)
    add(e, f.vals, f.nnz);
  else
    vt_feat_add_sparse(&f, key_bytes, e);
}

/* Returns the record of feature string [s, s + len), or NULL when the model does not have it. */
const uint8_t *vt_textmodel_find(const vt_textmodel *m, const char *s, size_t len);

/* Hash-table slot value parts for a string hash `h`, shared with the writer. */
static inline uint32_t vt_textmodel_tag(uint64_t h, int off_bits) {
  return off_bits >= 32 ? 0 : (uint32_t)(h >> 32) >> off_bits;
}

/* The name of label y (0 <= y < L) and its length. */
static inline const char *vt_textmodel_label(const vt_textmodel *m, int32_t y, size_t *len) {
  *len = m->label_off[y + 1] - m->label_off[y];
  return m->label_bytes + m->label_off[y];
}

/* Binds m->trans from m->A, m->S, m->F and m->rank. Returns a vt_status. */
vt_status vt_textmodel_bind(vt_textmodel *m);

/* Frees a loaded model (mapping, templates, transitions). NULL is a no-op. */
void vt_textmodel_free(vt_textmodel *m);

#endif
