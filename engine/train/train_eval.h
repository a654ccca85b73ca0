/* engine/train/train_eval.h: the end of a perceptron epoch (the one all three trainers share) and
 * the dev evaluation it makes (train_eval.c). */
#ifndef VT_TRAIN_TRAIN_EVAL_H
#define VT_TRAIN_TRAIN_EVAL_H

#include <stdint.h>

#include "train/perc.h"
#include "train/train_corpus.h"
#include "train/train_weights.h"
#include "vitesse.h"

/* What every trainer does at the end of an epoch: the training accuracy from `tok_err` wrong
 * tokens, the dev accuracy (when `dev`), rep->epochs, rep->seconds += secs, and o->on_epoch with
 * the epoch's report (`sent_err` sentences with a mistake). *stop gets 1 when the callback asks
 * to stop. With o->span and its communicator (processes training together, perc.h), every
 * process calls it after every epoch: tok_err and sent_err are this process's and are summed
 * over the processes, the accuracy is over the span's n_tok and the report's sentences are its
 * n_sent; dev and the callbacks are those this process was given (NULL on the others), and *stop
 * gets 1 on every process when o->on_epoch asked for it on any. Returns VT_OK or the dev
 * evaluation's failure; with a communicator, VT_EIO when a collective call fails and
 * VT_ECANCELED when another process failed (the processes fail together); message in err. */
vt_status vt_train_epoch_end(const vt_weights *W, const vt_tcorpus *train, const vt_tcorpus *dev,
                             const int32_t *rank, int obs_bigram, const vt_perc_opts *o,
                             int32_t epoch, int64_t tok_err, int64_t sent_err, double secs,
                             vt_perc_report *rep, int *stop, char *err, size_t errlen);

/* The token accuracy (0..1) of the averaged weights `W` on `c` with decoder `algo`, or -1 when
 * c has no token, on `threads` OpenMP threads (0: OpenMP's default; the result does not depend
 * on it). Returns VT_OK or a failure (train_eval.c). */
vt_status vt_train_evaluate(const vt_weights *W, const vt_tcorpus *c, const int32_t *rank,
                            int obs_bigram, vt_algo algo, int threads, double *accuracy);

#endif
