/* engine/train/train_ipm.h: perceptron training by iterative parameter mixing (train_ipm.c). */
#ifndef VT_TRAIN_TRAIN_IPM_H
#define VT_TRAIN_TRAIN_IPM_H

#include <stdint.h>

#include "train/perc.h"
#include "train/train_corpus.h"
#include "train/train_weights.h"

/* vt_train_run for o->shards > 1 (train_ipm.c): iterative parameter mixing (McDonald, Hall &
 * Mann 2010). Each epoch deals the shuffled sentences round-robin to the shards; every shard
 * trains on its own sentences from the mixed weights, with its own deltas (sentence i of a shard
 * updates at example number c + i), and the mixed weights then add the mean of the shards'
 * deltas, shard by shard in order, so the model is the same bits for any thread count. The
 * averaging clock advances by the largest shard per epoch. Returns as vt_train_run. */
vt_status vt_train_run_ipm(vt_weights *W, const vt_tcorpus *train, const vt_tcorpus *dev,
                           const int32_t *rank, int obs_bigram, const vt_perc_opts *o,
                           vt_perc_report *rep, char *err, size_t errlen);

#endif
