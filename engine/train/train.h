/* engine/train/train.h: averaged-perceptron training (Collins 2002) over a compiled corpus. */
#ifndef VT_ENGINE_TRAIN_H
#define VT_ENGINE_TRAIN_H

#include <stdint.h>

#include "alloc/arena.h"
#include "text/obsbigram.h"
#include "train/train_corpus.h"
#include "train/train_weights.h"
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

/* Trains `W` (zero or warm) on `train` for o->epochs epochs, each over a shuffled order, with
 * the perceptron update after each sentence. With `dev` (may be NULL), measures the token
 * accuracy of the averaged model after each epoch; o->on_epoch sees it. `rank` (L labels by
 * decreasing frequency) orders labels for the staggered decoders. `obs_bigram`: the model has
 * bigram features (then only the viterbi decoder is used). Returns VT_OK, VT_EUNSUPPORTED (decoder
 * unusable for this model: message in err), VT_ENOMEM or a decoder failure. */
vt_status vt_train_run(vt_weights *W, const vt_tcorpus *train, const vt_tcorpus *dev,
                       const int32_t *rank, int obs_bigram, const vt_perc_opts *o,
                       vt_perc_report *rep, char *err, size_t errlen);

/* vt_train_run for o->shards > 1 (train_ipm.c): iterative parameter mixing (McDonald, Hall &
 * Mann 2010). Each epoch deals the shuffled sentences round-robin to the shards; every shard
 * trains on its own sentences from the mixed weights, with its own deltas (sentence i of a shard
 * updates at example number c + i), and the mixed weights then add the mean of the shards'
 * deltas, shard by shard in order, so the model is the same bits for any thread count. The
 * averaging clock advances by the largest shard per epoch. Returns as vt_train_run. */
vt_status vt_train_run_ipm(vt_weights *W, const vt_tcorpus *train, const vt_tcorpus *dev,
                           const int32_t *rank, int obs_bigram, const vt_perc_opts *o,
                           vt_perc_report *rep, char *err, size_t errlen);

/* vt_train_run for o->minibatch > 1 (train_batch.c): each epoch's shuffled sentences go in
 * batches of o->minibatch; the sentences of a batch are decoded in parallel (at most o->threads
 * OpenMP threads) with the weights as the batch began, then the perceptron updates are made one
 * sentence after the other in batch order, each at its own example number, exactly as the
 * sequential trainer makes them. So the model is the same bits for any thread count, and a batch
 * of 1 would be the sequential perceptron. Returns as vt_train_run. */
vt_status vt_train_run_batch(vt_weights *W, const vt_tcorpus *train, const vt_tcorpus *dev,
                             const int32_t *rank, int obs_bigram, const vt_perc_opts *o,
                             vt_perc_report *rep, char *err, size_t errlen);

/* The perceptron update for the sentence at tokens [t0, t0 + T) of c (prediction p): +1 on the
 * gold features, -1 on the predicted ones, at example number W->c; collects the transition cells
 * it changed into cprev/ccur/cval (their new values; room for 2T) and says whether S or F
 * changed. Returns VT_OK or VT_ENOMEM. */
vt_status vt_train_update(vt_weights *W, const vt_tcorpus *c, int64_t t0, int32_t T,
                          const int32_t *p, int32_t *cprev, int32_t *ccur, double *cval,
                          int32_t *n_cells, int *se_changed);

/* What vt_train_learn needs to hand the changed transition cells on: room for 2 maxT cells. */
typedef struct vt_train_scratch {
  int32_t *cprev, *ccur;
  double *cval;
} vt_train_scratch;

/* Allocates `x` for sentences of at most maxT tokens; VT_OK or VT_ENOMEM (free it either way). */
vt_status vt_train_scratch_alloc(vt_train_scratch *x, size_t maxT);

/* Frees `x`; fine on a zeroed one. */
void vt_train_scratch_free(vt_train_scratch *x);

/* Emissions of sentence s of c under W and its best path by `opts` into pred (E: room for its
 * T x L emissions; scratch from `arena`, reset after); `tr` bound to W's transitions, or NULL
 * for a model with observation-dependent bigram templates. Adds to stats and *decode_seconds.
 * Returns VT_OK or the decoder's failure. */
vt_status vt_train_predict(const vt_weights *W, const vt_tcorpus *c, const vt_trans *tr,
                           const vt_decode_opts *opts, int64_t s, vt_arena *arena, double *E,
                           int32_t *pred, vt_decode_stats *stats, double *decode_seconds);

/* vt_train_predict with the emissions already in E (T x L, as vt_weights_emit makes them):
 * reads W only for a model with observation-dependent bigram templates (tr NULL). */
vt_status vt_train_predict_from(const vt_weights *W, const vt_tcorpus *c, const vt_trans *tr,
                                const vt_decode_opts *opts, int64_t s, vt_arena *arena,
                                const double *E, int32_t *pred, vt_decode_stats *stats,
                                double *decode_seconds);

/* The perceptron step of sentence s of c after prediction pred: counts its wrong tokens into
 * *tok_err (and the sentence into *sent_err), makes the update when there are any
 * (vt_train_update, at example number W->c) and its changes to `tr` (may be NULL), then advances
 * W->c. Returns VT_OK or VT_ENOMEM. */
vt_status vt_train_learn(vt_weights *W, vt_trans *tr, const vt_tcorpus *c, int64_t s,
                         const int32_t *pred, vt_train_scratch *x, int64_t *tok_err,
                         int64_t *sent_err);

/* Shuffles order[0..n) in place (Fisher-Yates over a splitmix64 stream advanced in *rng). */
void vt_train_shuffle(int64_t *order, int64_t n, uint64_t *rng);

/* Collects the bigram-feature weights of every position of a sentence (bfeat[t * n_b + k], -1 =
 * none) into arena arrays of `lat` for vt_obs_decode: W's current or (avg) averaged weights,
 * followed, when D is not NULL, by the deltas of the features D owns. VT_OK or VT_ENOMEM. */
vt_status vt_train_obs_deltas(const vt_weights *W, const vt_wover *D, const int32_t *bfeat,
                              int32_t n_b, int32_t T, int avg, vt_arena *arena,
                              vt_obs_lattice *lat);

/* What every trainer does at the end of an epoch: the training accuracy from `tok_err` wrong
 * tokens, the dev accuracy (when `dev`), rep->epochs, rep->seconds += secs, and o->on_epoch with
 * the epoch's report (`sent_err` sentences with a mistake). *stop gets 1 when the callback asks
 * to stop. Returns VT_OK or the dev evaluation's failure. */
vt_status vt_train_epoch_end(const vt_weights *W, const vt_tcorpus *train, const vt_tcorpus *dev,
                             const int32_t *rank, int obs_bigram, const vt_perc_opts *o,
                             int32_t epoch, int64_t tok_err, int64_t sent_err, double secs,
                             vt_perc_report *rep, int *stop);

/* The token accuracy (0..1) of the averaged weights `W` on `c` with decoder `algo`, or -1 when
 * c has no token, on `threads` OpenMP threads (0: OpenMP's default; the result does not depend
 * on it). Returns VT_OK or a failure (train_eval.c). */
vt_status vt_train_evaluate(const vt_weights *W, const vt_tcorpus *c, const int32_t *rank,
                            int obs_bigram, vt_algo algo, int threads, double *accuracy);

#endif
