/* engine/train/crf_tmpl.h: CRF training over feature templates: a compiled template corpus
 * (train_corpus.h) as a CRF training problem, whose attributes are the unigram feature strings
 * (value 1), and the trained weights back in the perceptron's weight table, so the tagger's model
 * file is written as the perceptron's is (train_export.h). */
#ifndef VT_TRAIN_CRF_TMPL_H
#define VT_TRAIN_CRF_TMPL_H

#include "text/textmodel.h"
#include "train/crf_data.h"
#include "train/train_corpus.h"
#include "train/train_weights.h"

/* Fills *d (zeroed) from corpus c of a frozen trainset with L labels and n_attr unigram feature
 * ids: every token's unigram features are its attributes. Labels -1 (dev) stay -1. Returns VT_OK
 * or VT_ENOMEM. */
vt_status vt_crf_from_tcorpus(vt_crf_data *d, const vt_tcorpus *c, int32_t L, int32_t n_attr);

/* Sets W (zero weights over the same features, vt_weights_init) to weights w over f: the state
 * weights of each feature and the transitions, with no averaging (W's average is w). Returns VT_OK
 * or VT_ENOMEM. */
vt_status vt_crf_to_weights(vt_weights *W, const vt_crf_feats *f, const double *w);

/* Adds the labels and the unigram feature strings of tagger model m to the dictionaries of d
 * (empty: before any corpus), so that training continues from m: its labels get its ids (their
 * training counts stay 0) and its features are counted min_count times, so that freezing keeps
 * them. Returns VT_OK or VT_ENOMEM. */
vt_status vt_crf_tmpl_seed(vt_trainset *d, const vt_textmodel *m, uint32_t min_count);

/* The prior (crf_data.h) of model m in the weight ids of d (seeded by vt_crf_tmpl_seed, then
 * frozen). Returns VT_OK or VT_ENOMEM. */
vt_status vt_crf_prior_from_textmodel(vt_crf_prior *p, const vt_textmodel *m, const vt_trainset *d);

#endif
