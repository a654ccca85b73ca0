/* engine/train/crf_export.h: trained CRF weights to and from a CRFsuite model (text/crfs.h). */
#ifndef VT_TRAIN_CRF_EXPORT_H
#define VT_TRAIN_CRF_EXPORT_H

#include "text/crfs.h"
#include "train/crf_data.h"
#include "train/crf_items.h"

/* Builds in *out the CRFsuite model of weights w over features f named by n: every label, the
 * state features whose weight is not zero (attributes left without one are left out, the others
 * keep their order), the L x L transitions (zero where there is no feature). The model is not
 * bound (vt_crfs_bind). Returns VT_OK, VT_EINVAL (names too long for the format) or VT_ENOMEM. */
vt_status vt_crf_export_crfs(vt_crfs **out, const vt_crf_names *n, const vt_crf_feats *f,
                             const double *w);

/* Adds the labels and attributes of model m to the empty dictionaries of n, in the model's
 * order, so that they get the model's ids. Returns VT_OK or VT_ENOMEM. */
vt_status vt_crf_names_seed(vt_crf_names *n, const vt_crfs *m);

/* The prior of model m (crf_data.h), whose labels and attributes have their ids in the problem
 * (vt_crf_names_seed). Returns VT_OK or VT_ENOMEM. */
vt_status vt_crf_prior_from_crfs(vt_crf_prior *p, const vt_crfs *m);

#endif
