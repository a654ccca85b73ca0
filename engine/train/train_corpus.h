/* engine/train/train_corpus.h: corpora compiled for training: every template expanded once into
 * feature ids, every label into a label id, so that epochs touch no text.
 *
 * A vt_trainset holds the dictionaries shared by the training and the development corpus: the
 * training corpus adds to them; once frozen (rare features dropped, ids renumbered densely into
 * weight ids), the development corpus only looks them up. */
#ifndef VT_TRAIN_TRAIN_CORPUS_H
#define VT_TRAIN_TRAIN_CORPUS_H

#include <stdint.h>

#include "io/sentbatch.h"
#include "text/featdict.h"
#include "text/template.h"
#include "vitesse.h"

typedef struct vt_tcorpus {
  int64_t n_sent, n_tok;
  int64_t *sent_off; /* n_sent + 1 token offsets */
  int32_t *gold;     /* n_tok label ids; -1 for a label unknown to the model (dev only) */
  int32_t *ufeat;    /* n_tok * n_u unigram feature ids, -1 = none */
  int32_t *bfeat;    /* n_tok * n_b bigram feature ids (row of t = 0 unused), -1 = none */
  int32_t n_u, n_b;
  int32_t max_T;
  int64_t cap_sent, cap_tok;
} vt_tcorpus;

typedef struct vt_trainset {
  const vt_tmplset *ts;
  vt_featdict feats;  /* feature strings (U... and B...) */
  vt_featdict labels; /* label names; counts are training frequencies */
  int32_t label_col;  /* -1 = last column */
  int32_t ncols;      /* columns of the first training sentence */
  uint8_t *col_used;  /* col_used[c]: a template reads column c (c <= ts->max_col) */
  char *buf;          /* a token's feature strings, one slot of `slot` bytes a template */
  size_t buf_cap, slot;
  size_t *flen;    /* ts->n: their lengths */
  uint64_t *fhash; /* ts->n: their hashes (vt_featdict_hash) */
  int frozen;
  int32_t n_weights; /* features kept by vt_trainset_freeze */
  int32_t *remap;    /* feature dictionary id -> weight id, or -1 */
  int32_t *dict_of;  /* weight id -> feature dictionary id */
  uint8_t *bigram;   /* weight id -> 1 for a bigram feature */
} vt_trainset;

/* Prepares dictionaries for templates `ts` (kept by pointer) and label column `label_col`
 * (-1: the last). Returns VT_OK or VT_ENOMEM. */
vt_status vt_trainset_init(vt_trainset *d, const vt_tmplset *ts, int32_t label_col);

/* Frees the dictionaries. */
void vt_trainset_free(vt_trainset *d);

/* Appends every sentence of `b` with T >= 1 to `c`. Before freezing, features and labels are
 * added to the dictionaries; after, they are looked up. Checks that each sentence has its label
 * column and every column the templates read, that no template reads the label column and
 * that no label holds a control byte or a NUL (vt_label_control). Returns VT_OK, VT_EFORMAT
 * ("FILE:LINE: problem" in err) or VT_ENOMEM. */
vt_status vt_trainset_compile(vt_trainset *d, vt_tcorpus *c, const vt_sentbatch *b, char *err,
                              size_t errlen);

/* Keeps the features seen at least `min_count` times, numbers them densely (in order of first
 * appearance) and rewrites the ids of `train`. Returns VT_OK or VT_ENOMEM. */
vt_status vt_trainset_freeze(vt_trainset *d, vt_tcorpus *train, uint32_t min_count);

/* Frees a compiled corpus; *c becomes zeroed. */
void vt_tcorpus_free(vt_tcorpus *c);

#endif
