/* engine/train/train_batch.h: perceptron training in mini-batches decoded in parallel
 * (train_batch.c). */
#ifndef VT_TRAIN_TRAIN_BATCH_H
#define VT_TRAIN_TRAIN_BATCH_H

#include <stdint.h>

#include "train/perc.h"
#include "train/train_corpus.h"
#include "train/train_weights.h"

/* vt_train_run for o->minibatch > 1 (train_batch.c): each epoch's shuffled sentences go in
 * batches of o->minibatch; the sentences of a batch are decoded in parallel (at most o->threads
 * OpenMP threads) with the weights as the batch began, then the perceptron updates are made one
 * sentence after the other in batch order, each at its own example number, exactly as the
 * sequential trainer makes them. So the model is the same bits for any thread count, and a batch
 * of 1 would be the sequential perceptron. Returns as vt_train_run. */
vt_status vt_train_run_batch(vt_weights *W, const vt_tcorpus *train, const vt_tcorpus *dev,
                             const int32_t *rank, int obs_bigram, const vt_perc_opts *o,
                             vt_perc_report *rep, char *err, size_t errlen);

#endif
