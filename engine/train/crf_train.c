/* engine/train/crf_train.c: CRF training, by the algorithm the options name (crf_train.h). */
#include "train/crf_train.h"

#include "core/errmsg.h"
#include "train/crf_lbfgs.h"
#include "train/crf_online.h"
#include "train/crf_sgd.h"

/* The command line's name of a CRF algorithm. */
static const char *algo_name(int a) {
  switch (a) {
  case VT_TRAIN_PERCEPTRON: return "perceptron";
  case VT_TRAIN_L2SGD: return "l2sgd";
  case VT_TRAIN_AP: return "ap";
  case VT_TRAIN_PA: return "pa";
  case VT_TRAIN_AROW: return "arow";
  default: return "(unknown)";
  }
}

vt_status vt_crf_train(const vt_crf_data *d, const vt_crf_feats *f, const vt_crf_data *dev,
                       double *w, const vt_train_opts *o, vt_crf_result *r, char *err,
                       size_t errlen, const vt_crf_span *span) {
  if (span && o->algorithm != VT_TRAIN_LBFGS)
    return vt_fail_into(err, errlen, VT_EINVAL,
                        "training across processes: algorithm %s trains on one process only",
                        algo_name((int)o->algorithm));
  if (o->algorithm == VT_TRAIN_L2SGD) return vt_crf_train_sgd(d, f, dev, w, o, r, err, errlen);
  if (o->algorithm == VT_TRAIN_AP || o->algorithm == VT_TRAIN_PA || o->algorithm == VT_TRAIN_AROW)
    return vt_crf_train_online(d, f, dev, w, o, r, err, errlen);
  return vt_crf_train_lbfgs(d, f, dev, w, o, r, err, errlen, span);
}
