/* engine/train/chunk_train.h: training the joint label-chunk model (Shimizu & Haas 2006, section
 * 4): the voted perceptron of Algorithm 4.1 with the averaged weights of Collins (2002), and either
 * update 4.2 (w += f(x, y_i) - f(x, y)) or the max-margin update 4.3 (the same step scaled by
 * tau = max(0, min(1, (loss(y) - (s(y_i) - s(y))) / |f(y_i) - f(y)|^2)), MMVP), where y is the
 * decoder's best structure under the current weights and loss(y) counts the parts of y that
 * are not parts of y_i. */
#ifndef VT_TRAIN_CHUNK_TRAIN_H
#define VT_TRAIN_CHUNK_TRAIN_H

#include <stdint.h>

#include "chunk/chunk_corpus.h"
#include "chunk/chunk_model.h"
#include "vitesse.h"

/* Which (observation value, output) pairs get a weight. */
enum {
  VT_CFEAT_ALL = 0,     /* every output of each value seen in training, for parts of at most
                           VT_CFEAT_DENSE_MAX outputs; pairs seen in gold structures above that */
  VT_CFEAT_OBSERVED = 1 /* only pairs seen in gold structures (bias rows stay complete) */
};
enum { VT_CFEAT_DENSE_MAX = 256 };

/* Builds m's feature rows from the gold structures of `train` (dictionaries already grown by
 * vt_chunk_corpus_read), all weights 0. Returns VT_OK or VT_ENOMEM. */
vt_status vt_chunk_features_build(vt_chunk_model *m, const vt_chunk_corpus *train, int mode);

typedef struct vt_chunk_epoch {
  int32_t epoch;        /* 1-based */
  int64_t mistakes;     /* sentences decoded wrong this epoch */
  int64_t updates;      /* of those, weight updates made (tau > 0) */
  double seconds;       /* wall time of the epoch (decoding and updates) */
  double train_seconds; /* of all epochs so far (callbacks excluded) */
} vt_chunk_epoch;

typedef struct vt_chunk_train_opts {
  int32_t epochs;     /* default 10 (the paper's Table 8 for both joint systems) */
  int32_t margin;     /* 0: update 4.2 (VP); 1: update 4.3 (MMVP) */
  int32_t lex_warmup; /* first epochs that update only the unlexicalized (bias) features: the
                         paper's section 5.3 (default 1) */
  int32_t max_chunk;  /* chunk-length bound while decoding, 0 = none; the corpus must have
                         been read with the same bound */
  uint64_t seed;      /* 0: corpus order, as the paper; else the sentences are shuffled before
                         every epoch by a generator seeded with it (deterministic) */
  /* shards > 1: iterative parameter mixing (McDonald, Hall & Mann 2010). Each epoch deals the
   * (shuffled) sentences round-robin to the shards, which train in parallel on at most
   * `threads` OpenMP threads (0: OpenMP's default) from the mixed weights, each into its own
   * copy (3 doubles a weight per shard); the mixed weights then add the mean of the shards'
   * changes, shard by shard in order, so the result does not depend on `threads`. Sentence i of
   * a shard updates at averaging time seen + i; the clock advances by the largest shard. */
  int32_t shards, threads;
  int32_t mix_one; /* tests: parameter mixing even with one shard (the same weights as the
                      sequential perceptron with update 4.2: its changes are integers) */
  /* Called after each epoch with m->w holding the averaged weights so far; may be NULL.
   * Returning non-zero stops training. */
  int (*on_epoch)(void *ctx, const vt_chunk_model *m, const vt_chunk_epoch *ep);
  void *ctx;
} vt_chunk_train_opts;

/* Fills `o` with the defaults: 10 epochs, perceptron, warm-up 1, no bound, no callback. */
void vt_chunk_train_opts_init(vt_chunk_train_opts *o);

/* Trains m (rows from vt_chunk_features_build) on `train`. Leaves the averaged
 * weights in m->w and records the bound in m->max_chunk. Returns VT_OK, VT_EINVAL (bad options
 * or a gold POS tag unknown to m) or VT_ENOMEM. */
vt_status vt_chunk_train(vt_chunk_model *m, const vt_chunk_corpus *train,
                         const vt_chunk_train_opts *o);

/* Number of parts of structure (ppos, pctag, pbeg) that are not parts of (gpos, gctag, gbeg):
 * the loss of update 4.3. */
int64_t vt_chunk_parts_loss(int32_t n, const int32_t *gpos, const int32_t *gctag,
                            const uint8_t *gbeg, const int32_t *ppos, const int32_t *pctag,
                            const uint8_t *pbeg);

#endif
