/* engine/train/crf_lbfgs.h: CRF training by L-BFGS / OWL-QN through liblbfgs, the optimiser
 * CRFsuite uses. */
#ifndef VT_TRAIN_CRF_LBFGS_H
#define VT_TRAIN_CRF_LBFGS_H

#include <stdint.h>

#include "train/ckpt.h"
#include "train/crf_data.h"
#include "train/crf_grad.h"
#include "train/crf_opts.h"

/* As vt_crf_train (crf_train.h), by L-BFGS (OWL-QN when o->c1 > 0). With span->comm, every
 * process runs liblbfgs in step on the same summed objective; a stop asked by o->on_iteration on
 * any process stops them all after the same iteration. */
vt_status vt_crf_train_lbfgs(const vt_crf_data *d, const vt_crf_feats *f, const vt_crf_data *dev,
                             double *w, const vt_train_opts *o, vt_crf_result *r, char *err,
                             size_t errlen, const vt_crf_span *span, const vt_ckpt *ck);

#endif
