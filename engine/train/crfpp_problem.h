/* engine/train/crfpp_problem.h: a compiled template corpus (train_corpus.h) turned into a CRF++
 * training problem (crfpp_lattice.h) in crf_learn's weight ids: a unigram string owns L weights,
 * a bigram string L * L; ids follow the strings' first appearance in crf_learn's order (a
 * sentence's unigram strings token by token, then its bigram strings from its second token on),
 * or, once -f has dropped some, the strings' bytewise order. */
#ifndef VT_TRAIN_CRFPP_PROBLEM_H
#define VT_TRAIN_CRFPP_PROBLEM_H

#include <stdint.h>

#include "train/crfpp_lattice.h"
#include "train/train_corpus.h"
#include "vitesse.h"

/* Numbers the features of the frozen trainset d (weight ids 0 .. d->n_weights, compiled into c)
 * in crf_learn's ids for L labels: ids[k] is weight id k's first CRF++ weight (in order of first
 * appearance when freq <= 1, else of the sorted strings), *maxid the weights in all. Returns
 * VT_OK, VT_EINVAL (more than INT32_MAX weights) or VT_ENOMEM. */
vt_status vt_crfpp_ids(const vt_trainset *d, const vt_tcorpus *c, int32_t L, int32_t freq,
                       int32_t *ids, int64_t *maxid);

/* Rewrites the feature ids of c into the CRF++ ids `ids` (in place) and points *p at c: gold
 * labels as c holds them (the caller ranks them), maxid weights. */
void vt_crfpp_problem_from(vt_crfpp_problem *p, vt_tcorpus *c, const int32_t *ids, int32_t L,
                           int64_t maxid);

#endif
