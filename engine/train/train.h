/* engine/train/train.h: averaged-perceptron training (Collins 2002) over a compiled corpus: the one
 * entry point, which runs the sequential trainer or hands over to the mini-batch or the
 * iterative-parameter-mixing one. */
#ifndef VT_TRAIN_TRAIN_H
#define VT_TRAIN_TRAIN_H

#include <stdint.h>

#include "train/perc.h"
#include "train/train_corpus.h"
#include "train/train_weights.h"
#include "vitesse.h"

/* Trains `W` (zero or warm) on `train` for o->epochs epochs, each over a shuffled order, with
 * the perceptron update after each sentence. With `dev` (may be NULL), measures the token
 * accuracy of the averaged model after each epoch; o->on_epoch sees it. `rank` (L labels by
 * decreasing frequency) orders labels for the staggered decoders. `obs_bigram`: the model has
 * bigram features (then only the viterbi decoder is used). o->shards > 1 or o->span: iterative
 * parameter mixing (vt_train_run_ipm, train_ipm.h), on this process or across several;
 * o->minibatch > 1: mini-batches (vt_train_run_batch). Returns VT_OK, VT_EUNSUPPORTED (decoder
 * unusable for this model: message in err), VT_ENOMEM or a decoder failure (message in err),
 * or as vt_train_run_ipm. */
vt_status vt_train_run(vt_weights *W, const vt_tcorpus *train, const vt_tcorpus *dev,
                       const int32_t *rank, int obs_bigram, const vt_perc_opts *o,
                       vt_perc_report *rep, char *err, size_t errlen);

#endif
