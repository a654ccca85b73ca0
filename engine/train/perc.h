/* engine/train/perc.h: the options and the report of averaged-perceptron training, shared by its
 * three trainers (sequential, mini-batch, iterative parameter mixing) and its epoch end. */
#ifndef VT_TRAIN_PERC_H
#define VT_TRAIN_PERC_H

#include <stdint.h>

#include "train/train_comm.h"
#include "vitesse.h"

/* One process's part of a training job by iterative parameter mixing that runs on several
 * processes (the ranks of `vitesse-mpi train`), each holding a contiguous range of whole shards:
 * this process trains shards [s0, s1) of the job's o->shards (s0 == s1: none; it still takes
 * part in every collective call), and the corpus it is given is exactly their sentences, which
 * are the job's sentences [sent0, sent0 + their count) (vt_ipm_shard_start gives each shard's
 * first); n_sent and n_tok count the whole job's sentences and tokens. The processes talk
 * through `comm` (every process of the job calls the trainer with the same options, templates,
 * feature ids and starting weights); o->progress, where set, counts this process's sentences. */
typedef struct vt_ipm_span {
  int32_t s0, s1;
  int64_t sent0, n_sent, n_tok;
  const vt_train_comm *comm;
} vt_ipm_span;

typedef struct vt_perc_opts {
  int32_t epochs;
  uint64_t seed; /* the shuffle of every epoch derives from it */
  vt_algo algo;  /* the exact decoder used inside training */
  /* Optional: about 100 times an epoch, with the sentences done of `total`. */
  void (*progress)(void *ctx, int32_t epoch, int32_t epochs, int64_t done, int64_t total);
  /* Optional: after every epoch (dev evaluated); nonzero stops training. */
  int (*on_epoch)(void *ctx, const vt_epoch_report *r);
  void *ctx;
  /* Parameter mixing (train_ipm.c) when shards > 1 (or span is set): shard s holds the corpus's
   * contiguous sentences [vt_ipm_shard_start(N, shards, s), .. of s + 1), which it shuffles every
   * epoch and trains on in rounds of a few sentences (vt_ipm_round_length), in parallel with the
   * other shards from the mixed weights, which add the sum of the shards' deltas after every
   * round; on at most `threads` threads (0: OpenMP's default); the result does not depend on
   * `threads`. shards <= 1: the sequential perceptron. */
  int32_t shards, threads;
  /* Mini-batches (train_batch.c) when > 1 (and shards <= 1): the sentences of a batch are decoded
   * in parallel with the same weights, then updated in order; the result does not depend on
   * `threads`. */
  int32_t minibatch;
  /* Parameter mixing across processes (see vt_ipm_span): this process's shards, or
   * NULL for a process training alone (then shards > 1 mixes all o->shards shards here). */
  const vt_ipm_span *span;
  /* Optional: the run's checkpoint (ckpt.h): read at the start, written after every
   * ckpt->every epochs (perc_ckpt.h). */
  const struct vt_ckpt *ckpt;
  /* The epochs a checkpoint already did (vt_train_run sets it): training goes on after them,
   * their shuffles replayed. */
  int32_t done;
} vt_perc_opts;

typedef struct vt_perc_report {
  double seconds;         /* training time (epochs, dev evaluation excluded) */
  double dev_accuracy;    /* last epoch's token accuracy on dev (-1 without dev) */
  double train_accuracy;  /* last epoch's online token accuracy on train */
  vt_decode_stats decode; /* counters of the training decoder */
  double decode_seconds;  /* time inside the decoder */
  int32_t epochs;         /* epochs done (fewer than o->epochs when on_epoch stopped them) */
  const char *stop;       /* why training stopped (a static string; NULL: set by the caller) */
} vt_perc_report;

#endif
