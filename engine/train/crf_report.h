/* engine/train/crf_report.h: what is reported of CRF weights during training: accuracy on
 * development data, norm and active count. */
#ifndef VT_TRAIN_CRF_REPORT_H
#define VT_TRAIN_CRF_REPORT_H

#include <stdint.h>

#include "train/crf_data.h"
#include "vitesse.h"

/* The item accuracy of weights w on `dev` (labels -1 never match), by exact Viterbi; -1 when dev
 * has no item or memory runs out. */
double vt_crf_accuracy(const vt_crf_data *dev, const vt_crf_feats *f, const double *w,
                       int32_t threads);

/* As vt_crf_accuracy; with `counts` (2 L + 1 of them, or NULL) also what vt_iter_report.dev_counts
 * holds: per label the items tagged it rightly, per label the items tagged it, then the
 * sequences tagged entirely right (zeros when the accuracy is -1). */
double vt_crf_dev_eval(const vt_crf_data *dev, const vt_crf_feats *f, const double *w,
                       int32_t threads, int64_t *counts);

/* The items and the sequences that plain Viterbi with weights w gets wrong on d (crf_learn's
 * terr and serr); both -1 when memory runs out. */
void vt_crf_errors(const vt_crf_data *d, const vt_crf_feats *f, const double *w, int32_t threads,
                   int64_t *tok_err, int64_t *sent_err);

/* The figures of an iteration report for weights w: norm, active count. */
void vt_crf_weights_stats(const double *w, int64_t n, double *norm, int64_t *active);

/* Starts the report of an epoch (SGD, the online trainers): *r zeroed, then iteration e, one
 * evaluation, the loss, w's norm and active count, no error norm or evaluation split (-1). */
void vt_crf_epoch_report(vt_iter_report *r, int32_t e, double loss, const double *w, int64_t n);

#endif
