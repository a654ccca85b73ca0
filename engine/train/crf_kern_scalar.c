/* engine/train/crf_kern_scalar.c: the CRF forward-backward for the scalar level, crf_kern_body.h's
 * loops compiled with the baseline instruction set (cmake/VtIsa.cmake). */
#include "train/crf_kern.h"
#include "train/crf_kern_body.h"

const vt_crf_kern_ops vt_crf_kern_scalar = {VT_SIMD_SCALAR, fb_batch, plan_scores, plan_counts,
                                            viterbi_first};
