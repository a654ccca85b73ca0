/* engine/train/perc.h: the options and the report of averaged-perceptron training, shared by its
 * three trainers (sequential, mini-batch, iterative parameter mixing) and its epoch end. */
#ifndef VT_TRAIN_PERC_H
#define VT_TRAIN_PERC_H

#include <stdint.h>

#include "vitesse.h"

typedef struct vt_perc_opts {
  int32_t epochs;
  uint64_t seed; /* the shuffle of every epoch derives from it */
  vt_algo algo;  /* the exact decoder used inside training */
  /* Optional: about 100 times an epoch, with the sentences done of `total`. */
  void (*progress)(void *ctx, int32_t epoch, int32_t epochs, int64_t done, int64_t total);
  /* Optional: after every epoch (dev evaluated); nonzero stops training. */
  int (*on_epoch)(void *ctx, const vt_epoch_report *r);
  void *ctx;
  /* Iterative parameter mixing (train_ipm.c) when shards > 1: each epoch, the shuffled corpus is
   * dealt to `shards` shards that train in parallel from the mixed weights, on at most `threads`
   * threads (0: OpenMP's default); the result does not depend on `threads`. shards <= 1: the
   * sequential perceptron. */
  int32_t shards, threads;
  /* Mini-batches (train_batch.c) when > 1 (and shards <= 1): the sentences of a batch are decoded
   * in parallel with the same weights, then updated in order; the result does not depend on
   * `threads`. */
  int32_t minibatch;
} vt_perc_opts;

typedef struct vt_perc_report {
  double seconds;         /* training time (epochs, dev evaluation excluded) */
  double dev_accuracy;    /* last epoch's token accuracy on dev (-1 without dev) */
  double train_accuracy;  /* last epoch's online token accuracy on train */
  vt_decode_stats decode; /* counters of the training decoder */
  double decode_seconds;  /* time inside the decoder */
  int32_t epochs;         /* epochs done (fewer than o->epochs when on_epoch stopped them) */
} vt_perc_report;

#endif
