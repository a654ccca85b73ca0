/* engine/train/crf_train.h: CRF training by L-BFGS / OWL-QN (liblbfgs, the optimiser CRFsuite
 * uses) or by SGD with L2 (CRFsuite's l2sgd), over a compiled problem (crf_data.h). */
#ifndef VT_TRAIN_CRF_TRAIN_H
#define VT_TRAIN_CRF_TRAIN_H

#include <stdint.h>

#include "train/crf_data.h"
#include "vitesse.h"

/* What a run did. */
typedef struct vt_crf_result {
  int32_t iterations;  /* iterations (L-BFGS) or epochs (SGD) done */
  double initial_loss; /* the objective at the starting weights */
  double loss;         /* at the weights returned */
  double seconds;      /* training (callbacks excluded) */
  const char *stop;    /* why it stopped, a static string */
} vt_crf_result;

/* Trains w (f->n doubles: the starting weights in, the trained ones out) on `d` with o->algorithm
 * and its parameters (vt_train_opts), on o->threads threads; `dev` (may be NULL) is tagged after
 * every iteration for o->on_iteration. Returns VT_OK (also when the optimiser stopped on a
 * rounding error or its iteration cap: r->stop says why), VT_EINVAL (a bad parameter: message in
 * err) or VT_ENOMEM. */
vt_status vt_crf_train(const vt_crf_data *d, const vt_crf_feats *f, const vt_crf_data *dev,
                       double *w, const vt_train_opts *o, vt_crf_result *r, char *err,
                       size_t errlen);

/* The item accuracy of weights w on `dev` (labels -1 never match), by exact Viterbi; -1 when dev
 * has no item or memory runs out. */
double vt_crf_accuracy(const vt_crf_data *dev, const vt_crf_feats *f, const double *w,
                       int32_t threads);

/* L-BFGS / OWL-QN (crf_lbfgs.c): vt_crf_train for any other algorithm. */
vt_status vt_crf_train_lbfgs(const vt_crf_data *d, const vt_crf_feats *f, const vt_crf_data *dev,
                             double *w, const vt_train_opts *o, vt_crf_result *r, char *err,
                             size_t errlen);

/* SGD (crf_sgd.c): vt_crf_train for o->algorithm VT_TRAIN_L2SGD. */
vt_status vt_crf_train_sgd(const vt_crf_data *d, const vt_crf_feats *f, const vt_crf_data *dev,
                           double *w, const vt_train_opts *o, vt_crf_result *r, char *err,
                           size_t errlen);

/* The figures of an iteration report for weights w: norm, active count. */
void vt_crf_weights_stats(const double *w, int64_t n, double *norm, int64_t *active);

#endif
