/* engine/train/perc_step.h: the steps every perceptron trainer takes per sentence: predict, update,
 * shuffle. */
#ifndef VT_TRAIN_PERC_STEP_H
#define VT_TRAIN_PERC_STEP_H

#include <stddef.h>
#include <stdint.h>

#include "alloc/arena.h"
#include "text/obsbigram.h"
#include "train/train_corpus.h"
#include "train/train_weights.h"
#include "vitesse.h"

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

#endif
