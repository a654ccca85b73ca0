/* engine/train/crf_sgd.h: CRF training by SGD with L2 regularisation, CRFsuite's l2sgd. */
#ifndef VT_TRAIN_CRF_SGD_H
#define VT_TRAIN_CRF_SGD_H

#include <stdint.h>

#include "train/ckpt.h"
#include "train/crf_data.h"
#include "train/crf_opts.h"

/* As vt_crf_train (crf_train.h), by SGD. */
vt_status vt_crf_train_sgd(const vt_crf_data *d, const vt_crf_feats *f, const vt_crf_data *dev,
                           double *w, const vt_train_opts *o, vt_crf_result *r, char *err,
                           size_t errlen, const vt_ckpt *ck);

#endif
