/* engine/train/crfpp_mira.h: crf_learn's MIRA trainer (-a MIRA).
 *
 * Passes over the sentences in order, one at a time: a sentence is decoded by Viterbi under the
 * current weights; when it is tagged wrong, the weights move along d, the gold sequence's feature
 * counts less the Viterbi sequence's, by the step mu = max(0, (e - c) / ||d||^2), e the tokens
 * tagged wrong and c the Viterbi score less the gold one (crf_learn's sign: a step that grows
 * as the margin to the wrong sequence shrinks, unlike the textbook MIRA's), the steps a sentence
 * takes summing to at most C (-c; kept in single precision, as crf_learn keeps them). A sentence
 * tagged right `shrinking_size` passes running is skipped until the shrinking is reset. A pass
 * reports the tokens and sentences tagged wrong (of those visited, over all), the sentences
 * visited, those whose step C cut, ||w||^2 and the largest e - c among the uncut steps (the
 * KKT violation); when that is not positive the shrinking is reset, and training stops after
 * two such passes running or `maxiter` passes. -e (eta) plays no part, as in crf_learn. */
#ifndef VT_TRAIN_CRFPP_MIRA_H
#define VT_TRAIN_CRFPP_MIRA_H

#include <stddef.h>

#include "train/crfpp_lattice.h"
#include "vitesse.h"

/* Trains w (p->n doubles, the start in, the result out) on p; o's fields used: cost, maxiter,
 * shrinking_size, on_iteration, ctx. Fills r->iterations, r->stop and r->seconds. Returns
 * VT_OK, VT_ENOMEM or VT_ECANCELED (the callback asked to stop; message in err). */
vt_status vt_crfpp_mira(const vt_crfpp_problem *p, double *w, const vt_crfpp_learn_opts *o,
                        vt_crfpp_learn_report *r, char *err, size_t errlen);

#endif
