/* engine/train/crf_opts.c: the CRF trainers' options checked (crf_opts.h). */
#include "train/crf_opts.h"

#include <math.h>

#include "core/errmsg.h"

vt_status vt_crf_opts_check(const vt_train_opts *o, char *err, size_t errlen) {
  if (!(o->min_freq >= 0) || !isfinite(o->min_freq) || o->threads < 0)
    return vt_fail_into(err, errlen, VT_EINVAL, "train: min_freq and threads must be >= 0");
  if (o->algorithm == VT_TRAIN_L2SGD) {
    if (!(o->c2 > 0) || !isfinite(o->c2) || o->c1 != 0 || o->max_iterations < 0 || o->period < 0 ||
        !(o->delta >= 0) || !(o->calibration_eta > 0) || !(o->calibration_rate > 1) ||
        o->calibration_samples < 1 || o->calibration_candidates < 1 ||
        o->calibration_max_trials < 1)
      return vt_fail_into(err, errlen, VT_EINVAL,
                          "train: l2sgd needs c2 > 0 and no c1, calibration eta > 0, rate > 1, "
                          "samples, candidates and max trials >= 1");
    return VT_OK;
  }
  if (o->algorithm == VT_TRAIN_AP || o->algorithm == VT_TRAIN_PA || o->algorithm == VT_TRAIN_AROW) {
    if (o->max_iterations < 0 || !(o->online_epsilon >= 0) || !isfinite(o->online_epsilon) ||
        !(o->pa_c > 0) || !isfinite(o->pa_c) || o->pa_type < 0 || o->pa_type > 2 ||
        !(o->arow_variance > 0) || !isfinite(o->arow_variance) || !(o->arow_gamma > 0) ||
        !isfinite(o->arow_gamma))
      return vt_fail_into(err, errlen, VT_EINVAL,
                          "train: bad ap/pa/arow parameter (max_iterations, epsilon >= 0; c, "
                          "variance, gamma > 0; type 0, 1 or 2)");
    return VT_OK;
  }
  if (o->algorithm != VT_TRAIN_LBFGS)
    return vt_fail_into(err, errlen, VT_EINVAL, "train: not a CRF algorithm: %d",
                        (int)o->algorithm);
  if (o->c1 < 0 || o->c2 < 0 || !isfinite(o->c1) || !isfinite(o->c2) || o->num_memories < 1 ||
      o->max_iterations < 0 || !(o->epsilon >= 0) || o->period < 0 || !(o->delta >= 0) ||
      o->max_linesearch < 1 || o->linesearch < 0 || o->linesearch > 2)
    return vt_fail_into(err, errlen, VT_EINVAL,
                        "train: bad L-BFGS parameter (c1, c2, epsilon, delta >= 0; num_memories, "
                        "max_linesearch >= 1; max_iterations, period >= 0)");
  return VT_OK;
}
