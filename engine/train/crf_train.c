/* engine/train/crf_train.c: CRF training, by the algorithm the options name (crf_train.h). */
#include "train/crf_train.h"

#include <float.h>
#include <math.h>

#include "core/errmsg.h"
#include "train/blas.h"
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

/* The bound on the attribute values: their absolute values summed over the corpus stay below
 * 2^62, so that no exact gradient sum (core/fix128.h: 63 integer bits) can wrap and no weight
 * or score the online trainers make can overflow a double. */
#define VALUE_SUM_MAX 0x1p62

/* Sum |value| over every occurrence of d, over every process of span->comm too (in units of 2^20,
 * saturated, so the int64 sum cannot wrap); 0, or -1 when a collective failed. */
static int value_sum(const vt_crf_data *d, const vt_crf_span *span, double *out) {
  const int64_t occ = d->tok_off[d->n_tok];
  double s = 0;
  if (d->val)
    for (int64_t i = 0; i < occ; i++) s += fabs(d->val[i]);
  else
    s = (double)occ;
  if (span && span->comm) {
    int64_t units = s < 0x1p42 ? (int64_t)ceil(s / 0x1p20) : (int64_t)1 << 42;
    if (span->comm->sum_i64(span->comm->ctx, &units, 1) != 0) return -1;
    s = (double)units * 0x1p20;
  }
  *out = s;
  return 0;
}

/* What of the result is not finite, or NULL. */
static const char *not_finite(const double *w, int64_t n, const vt_crf_result *r) {
  for (int64_t i = 0; i < n; i++)
    if (!isfinite(w[i])) return "a weight";
  return isfinite(r->loss) ? NULL : "the loss";
}

vt_status vt_crf_train(const vt_crf_data *d, const vt_crf_feats *f, const vt_crf_data *dev,
                       double *w, const vt_train_opts *o, vt_crf_result *r, char *err,
                       size_t errlen, const vt_crf_span *span, const vt_ckpt *ck) {
  if (span && o->algorithm != VT_TRAIN_LBFGS)
    return vt_fail_into(err, errlen, VT_EINVAL,
                        "training across processes: algorithm %s trains on one process only",
                        algo_name((int)o->algorithm));
  vt_status st = vt_blas_load(err, errlen);
  if (st != VT_OK) return st;
  double sum = 0;
  if (value_sum(d, span, &sum) != 0)
    return vt_fail_into(err, errlen, VT_ECANCELED, "train: a collective call failed");
  if (!(sum < VALUE_SUM_MAX))
    return vt_fail_into(err, errlen, VT_EINVAL,
                        "train: the attribute values add up to %.3g in absolute value; training "
                        "takes less than 2^62 (4.6e18): scale them down",
                        isfinite(sum) ? sum : DBL_MAX);
  if (o->algorithm == VT_TRAIN_L2SGD)
    st = vt_crf_train_sgd(d, f, dev, w, o, r, err, errlen, ck);
  else if (o->algorithm == VT_TRAIN_AP || o->algorithm == VT_TRAIN_PA ||
           o->algorithm == VT_TRAIN_AROW)
    st = vt_crf_train_online(d, f, dev, w, o, r, err, errlen, ck);
  else
    st = vt_crf_train_lbfgs(d, f, dev, w, o, r, err, errlen, span, ck);
  const char *bad = st == VT_OK ? not_finite(w, f->n, r) : NULL;
  if (bad) /* never a model of NaN or infinite weights */
    st = vt_fail_into(err, errlen, VT_EINVAL,
                      "train: %s is not finite after %d iterations: the values, the weights of "
                      "--init or the parameters are too large for double arithmetic",
                      bad, (int)r->iterations);
  return st;
}
