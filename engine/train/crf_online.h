/* engine/train/crf_online.h: CRFsuite's online trainers over a compiled item problem: the
 * averaged perceptron (`-a ap`), passive-aggressive (`-a pa`) and AROW (`-a arow`).
 *
 * Each epoch visits the sequences in CRFsuite's order (its Fisher-Yates-like shuffle driven by
 * glibc's rand() from its default seed, as a fresh `crfsuite learn` process draws it), tags each
 * with the current weights by CRFsuite's Viterbi (the first best predecessor and the first best
 * last label win ties), and where any label is wrong updates the features of the gold path and of
 * the Viterbi path in CRFsuite's order and arithmetic. The same items and parameters therefore
 * give CRFsuite's weights, losses and model. One thread: each update depends on the last. The
 * Viterbi is the crf_kern family's vt_crf_viterbi_first (crf_kern.h). */
#ifndef VT_TRAIN_CRF_ONLINE_H
#define VT_TRAIN_CRF_ONLINE_H

#include <stdint.h>

#include "train/ckpt.h"
#include "train/crf_data.h"
#include "train/crf_opts.h"

/* As vt_crf_train (crf_train.h), for o->algorithm VT_TRAIN_AP, VT_TRAIN_PA or VT_TRAIN_AROW. An
 * iteration is an epoch; its report's loss is CRFsuite's `Loss:` (ap: the sum of the wrong labels'
 * share of each sequence; pa and arow: the sum of the costs), feature_norm CRFsuite's `Feature
 * norm:` (ap: of the averaged weights; pa: of the last ones; arow: of the means); error_norm -1.
 * There is no iteration 0. */
vt_status vt_crf_train_online(const vt_crf_data *d, const vt_crf_feats *f, const vt_crf_data *dev,
                              double *w, const vt_train_opts *o, vt_crf_result *r, char *err,
                              size_t errlen, const vt_ckpt *ck);

/* glibc's rand() as a fresh process draws it (the default seed 1): the state, and the next draw
 * in 0..2^31-1. */
typedef struct vt_glibc_rand {
  uint32_t r[34];
  int32_t i;
} vt_glibc_rand;
void vt_glibc_rand_init(vt_glibc_rand *g);
int32_t vt_glibc_rand_next(vt_glibc_rand *g);

#endif
