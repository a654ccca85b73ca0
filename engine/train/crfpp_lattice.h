/* engine/train/crfpp_lattice.h: a CRF++ training problem in crf_learn's own weight ids, and its
 * lattice: what MIRA and the CRF objective of templates with observation bigrams (B lines with
 * macros, or several B lines) train on.
 *
 * A token holds the first weight id of each of its unigram strings (one per U template, -1 when
 * the string is not a feature), which scores label y with w[id + y]; a position t >= 1 holds
 * those of its bigram strings (one per B line, the macro-free ones included), which score the
 * label pair (y', y) of tokens t - 1 and t with w[id + y' * L + y]. Costs are summed in template
 * order, Viterbi keeps the first of equal scores (previous labels scanned upwards, then the last
 * token's labels upwards), as crf_learn's lattice does. */
#ifndef VT_TRAIN_CRFPP_LATTICE_H
#define VT_TRAIN_CRFPP_LATTICE_H

#include <stdint.h>

#include "vitesse.h"

typedef struct vt_crfpp_problem {
  int32_t L;               /* labels */
  int64_t n_sent, n_tok;   /* sentences, tokens */
  const int64_t *sent_off; /* n_sent + 1 token offsets */
  const int32_t *gold;     /* n_tok labels, in the model's order */
  int32_t n_u, n_b;        /* U and B templates */
  const int32_t *ufeat;    /* n_tok * n_u first weight ids, -1 = none */
  const int32_t *bfeat;    /* n_tok * n_b first weight ids (the row of a sentence's first token
                              unused), -1 = none */
  int64_t n;               /* weights */
  int32_t max_T;           /* longest sentence */
} vt_crfpp_problem;

/* One sentence's lattice and the scratch to decode and sum over it (up to max_T tokens). */
typedef struct vt_crfpp_lattice {
  int32_t L, max_T, T;
  double *node;    /* T * L label costs */
  double *path;    /* T * L * L pair costs (previous label major; row 0 unused) */
  double *best;    /* T * L Viterbi scores */
  double *en;      /* T * L exp(label cost - the position's largest) */
  double *ep;      /* T * L * L exp(pair cost - the position's largest) (row 0 unused) */
  double *fwd;     /* T * L forward sums, scaled to sum to 1 at each position */
  double *beta;    /* T * L backward sums, scaled alike */
  double *scale;   /* T forward scales */
  double *marg;    /* L * L marginals of a position's labels or label pairs */
  int32_t *back;   /* T * L Viterbi back pointers */
  int32_t *result; /* T Viterbi labels */
} vt_crfpp_lattice;

/* Allocates a lattice for sentences of up to max_T tokens over L labels. Returns VT_OK or
 * VT_ENOMEM (the lattice then zeroed). */
vt_status vt_crfpp_lattice_init(vt_crfpp_lattice *lat, int32_t L, int32_t max_T);

/* Frees a lattice; *lat becomes zeroed. Fine on a zeroed one. */
void vt_crfpp_lattice_free(vt_crfpp_lattice *lat);

/* Fills lat's costs for sentence s of p under weights w. */
void vt_crfpp_lattice_score(vt_crfpp_lattice *lat, const vt_crfpp_problem *p, int64_t s,
                            const double *w);

/* Viterbi over the scored lattice into lat->result; returns how many tokens of it differ from
 * `gold` (the sentence's T labels). */
int32_t vt_crfpp_lattice_viterbi(vt_crfpp_lattice *lat, const int32_t *gold);

/* The negative log-likelihood of sentence s (scored into lat) and, when g is not NULL, its
 * gradient added into g (label and pair marginals on the sentence's features, less the gold
 * ones). */
double vt_crfpp_lattice_nll(vt_crfpp_lattice *lat, const vt_crfpp_problem *p, int64_t s, double *g);

/* CRF++'s objective over p at w: the summed negative log-likelihood plus ||w||^2 / (2C), or
 * |w|_1 / C with l1; its gradient in g (the smooth part only with l1), and the tokens and
 * sentences Viterbi gets wrong at w in *tok_err and *sent_err. lat holds p->max_T tokens. */
double vt_crfpp_problem_objective(const vt_crfpp_problem *p, vt_crfpp_lattice *lat, const double *w,
                                  double *g, double C, int l1, int64_t *tok_err, int64_t *sent_err);

#endif
