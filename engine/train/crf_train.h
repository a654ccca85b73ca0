/* engine/train/crf_train.h: CRF training by L-BFGS / OWL-QN (liblbfgs, the optimiser CRFsuite
 * uses), by SGD with L2 (CRFsuite's l2sgd) or by CRFsuite's online trainers (ap, pa, arow), over
 * a compiled problem (crf_data.h). */
#ifndef VT_TRAIN_CRF_TRAIN_H
#define VT_TRAIN_CRF_TRAIN_H

#include "train/ckpt.h"
#include "train/crf_data.h"
#include "train/crf_grad.h"
#include "train/crf_opts.h"
#include "vitesse.h"

/* Trains w (f->n doubles: the starting weights in, the trained ones out) on `d` with o->algorithm
 * and its parameters (vt_train_opts), on o->threads threads; `dev` (may be NULL) is tagged after
 * every iteration for o->on_iteration. `span` (may be NULL: d is the whole corpus) places d, whole
 * gradient batches, in a corpus spread over the processes of span->comm (crf_grad.h): every
 * process calls this with the same f, w and o (its callbacks may differ) and gets the same
 * weights, those of one process holding the whole corpus; only VT_TRAIN_LBFGS (OWL-QN included)
 * trains so, any other algorithm is VT_EINVAL. Returns VT_OK (also when the optimiser stopped on a
 * rounding error or its iteration cap: r->stop says why), VT_EINVAL (a bad parameter: message in
 * err), VT_ENOMEM or VT_ECANCELED (a collective failed, or another process ran out of memory).
 * `ck` (may be NULL): the run's checkpoint (ckpt.h), read at the start and written every
 * ck->every epochs or iterations; a checkpoint's failure is VT_EIO, VT_EINVAL or VT_ENOMEM. */
vt_status vt_crf_train(const vt_crf_data *d, const vt_crf_feats *f, const vt_crf_data *dev,
                       double *w, const vt_train_opts *o, vt_crf_result *r, char *err,
                       size_t errlen, const vt_crf_span *span, const vt_ckpt *ck);

#endif
