/* engine/train/crf_kern_avx512.c: the CRF forward-backward for crf_kern_body.h's loops
 * compiled with the AVX-512 flags (cmake/VtIsa.cmake). */
#include "train/crf_kern.h"
#include "train/crf_kern_body.h"

const vt_crf_kern_ops vt_crf_kern_avx512 = {VT_SIMD_AVX512, fb_batch, plan_scores, plan_counts,
                                            viterbi_first};
