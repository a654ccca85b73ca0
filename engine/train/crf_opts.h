/* engine/train/crf_opts.h: what every CRF trainer takes and gives back: the options checked, the
 * result of a run. */
#ifndef VT_TRAIN_CRF_OPTS_H
#define VT_TRAIN_CRF_OPTS_H

#include <stdint.h>

#include "vitesse.h"

/* What a run did. */
typedef struct vt_crf_result {
  int32_t iterations;  /* iterations (L-BFGS) or epochs (SGD) done */
  double initial_loss; /* the objective at the starting weights */
  double loss;         /* at the weights returned */
  double seconds;      /* training (callbacks excluded) */
  const char *stop;    /* why it stopped, a static string */
} vt_crf_result;

/* Checks the CRF parameters of `o` for o->algorithm: VT_OK, or VT_EINVAL with the message in
 * err. */
vt_status vt_crf_opts_check(const vt_train_opts *o, char *err, size_t errlen);

#endif
