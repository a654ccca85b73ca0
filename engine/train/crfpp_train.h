/* engine/train/crfpp_train.h: CRF training with CRF++'s objective and stopping rule (crf_learn).
 *
 * CRF++'s feature set is the crf_data.h one with every label for every attribute and every
 * label pair (vt_crfpp_feats). Its objective is the sum over the sentences of -log p(y|x; w)
 * plus ||w||^2 / (2C) (CRF-L2) or |w|_1 / C (CRF-L1), CRFsuite's with c2 = 1 / (2C) or c1 = 1 / C;
 * it is minimised by liblbfgs (L-BFGS with 5 corrections and the More-Thuente line search, as
 * crf_learn's own port of Nocedal's code; OWL-QN for L1). crf_learn counts evaluations of the
 * objective, line search trials included, as its iterations: each one is reported with the
 * training data's token and sentence error rates (Viterbi at the point evaluated), and training
 * stops after maxiter evaluations or once the objective's relative change from one evaluation to
 * the next has been below eta three times running. */
#ifndef VT_TRAIN_CRFPP_TRAIN_H
#define VT_TRAIN_CRFPP_TRAIN_H

#include <stdint.h>

#include "train/crf_data.h"
#include "train/crf_grad.h"
#include "train/crfpp_lattice.h"
#include "vitesse.h"

/* Fills *f (zeroed) with CRF++'s features over n_attr attributes and L labels: state feature
 * (a, y) at weight a * L + y, and when `transitions`, (y', y) at n_attr * L + y' * L + y.
 * Returns VT_OK or VT_ENOMEM. */
vt_status vt_crfpp_feats(vt_crf_feats *f, int32_t n_attr, int32_t L, int transitions);

/* CRF++'s objective at w over the problem of G (features f): returns it and, when g is not NULL,
 * its gradient in g; with l1, g is the gradient of the smooth part only (OWL-QN adds the rest).
 * NaN when the evaluation failed (vt_crf_grad_status). */
double vt_crfpp_objective(vt_crf_grad *G, const vt_crf_feats *f, const double *w, double *g,
                          double C, int l1);

/* Trains w (f->n doubles, the start in, the result out: at the evaluation cap the point
 * liblbfgs asks for next, unevaluated, as crf_learn's last step; else the last evaluated one) on
 * d; o's fields are
 * vt_crfpp_learn_opts's (cost, eta, maxiter, algorithm, threads, on_iteration, ctx). Returns
 * VT_OK (r->stop says why it stopped), VT_EINVAL (a parameter liblbfgs refuses, a non-finite
 * objective; message in err), VT_ENOMEM or VT_ECANCELED (the callback asked to stop). */
vt_status vt_crfpp_train(const vt_crf_data *d, const vt_crf_feats *f, double *w,
                         const vt_crfpp_learn_opts *o, vt_crfpp_learn_report *r, char *err,
                         size_t errlen);

/* As vt_crfpp_train, over the problem p in crf_learn's own weight ids (crfpp_lattice.h: bigram
 * templates with macros, several B lines), its gradient on one thread. */
vt_status vt_crfpp_train_problem(const vt_crfpp_problem *p, double *w, const vt_crfpp_learn_opts *o,
                                 vt_crfpp_learn_report *r, char *err, size_t errlen);

#endif
