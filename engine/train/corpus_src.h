/* engine/train/corpus_src.h: where a training or test corpus comes from, files or sentences held
 * in memory (vt_sentence_in), read the same way: batches of whole sentences, the in-memory ones
 * laid out as the corpus reader would have read them from a tab-separated file (so the two give
 * the same model). */
#ifndef VT_TRAIN_CORPUS_SRC_H
#define VT_TRAIN_CORPUS_SRC_H

#include "io/conll.h"
#include "vitesse.h"

typedef struct vt_corpus_src {
  const char *const *files; /* n_files corpus files, read in order ... */
  int n_files;
  const vt_sentence_in *sents; /* ... or n_sents sentences in memory (when not NULL) */
  int64_t n_sents;
  const char *name;          /* names in-memory sentences in messages ("NAME:LINE: problem") */
  const vt_train_part *part; /* ... or this part of a corpus file (when not NULL) */
} vt_corpus_src;

/* Hands every batch of `src`, read with `ro`, to `fn` in order; `fn` may return VT_ECANCELED to
 * stop early (then VT_OK is returned). Returns VT_OK or the first failure, its one-line message
 * in err. */
vt_status vt_corpus_src_each(const vt_corpus_src *src, const vt_reader_opts *ro, vt_conll_fn fn,
                             void *ctx, char *err, size_t errlen);

#endif
