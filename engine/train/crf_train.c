/* engine/train/crf_train.c: CRF training, by the algorithm the options name (crf_train.h). */
#include "train/crf_train.h"

#include "train/crf_lbfgs.h"
#include "train/crf_online.h"
#include "train/crf_sgd.h"

vt_status vt_crf_train(const vt_crf_data *d, const vt_crf_feats *f, const vt_crf_data *dev,
                       double *w, const vt_train_opts *o, vt_crf_result *r, char *err,
                       size_t errlen) {
  if (o->algorithm == VT_TRAIN_L2SGD) return vt_crf_train_sgd(d, f, dev, w, o, r, err, errlen);
  if (o->algorithm == VT_TRAIN_AP || o->algorithm == VT_TRAIN_PA || o->algorithm == VT_TRAIN_AROW)
    return vt_crf_train_online(d, f, dev, w, o, r, err, errlen);
  return vt_crf_train_lbfgs(d, f, dev, w, o, r, err, errlen);
}
