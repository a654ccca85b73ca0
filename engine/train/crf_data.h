/* engine/train/crf_data.h: a linear-chain CRF training problem, as its objective sees it.
 *
 * A corpus compiled to numbers (every item a list of attribute ids with values, every gold label
 * an id) and the feature set over it: state features (attribute a, label y), stored per attribute
 * as a list of labels, and transition features (y', y). The weight vector w has the state
 * features first, in that order (attribute by attribute), then the transitions. A label pair or
 * an (attribute, label) pair without a feature scores 0. There are no start or end features:
 * the objective is CRFsuite's crf1d one. */
#ifndef VT_TRAIN_CRF_DATA_H
#define VT_TRAIN_CRF_DATA_H

#include <stdint.h>

#include "vitesse.h"

typedef struct vt_crf_data {
  int32_t L;                          /* labels */
  int32_t n_attr;                     /* attribute ids are 0..n_attr-1 */
  int64_t n_sent;                     /* sequences */
  int64_t n_tok;                      /* items */
  int64_t *sent_off;                  /* n_sent + 1 item offsets */
  int32_t *gold;                      /* n_tok label ids */
  int64_t *tok_off;                   /* n_tok + 1 offsets into attr and val */
  int32_t *attr;                      /* attribute ids of the items */
  double *val;                        /* their values; NULL when every value is 1 */
  int32_t max_T;                      /* longest sequence */
  int64_t cap_sent, cap_tok, cap_occ; /* allocated lengths of sent_off; tok_off and gold; attr and
                                         val (for appending: crf_items.h) */
} vt_crf_data;

typedef struct vt_crf_feats {
  int32_t L, n_attr;
  int64_t n_state;   /* state features */
  int64_t *st_off;   /* n_attr + 1 offsets into st_label */
  int32_t *st_label; /* n_state labels, ascending within an attribute */
  int32_t *tr_id;    /* L * L: weight index of transition (prev * L + cur), or -1 */
  int64_t n_trans;   /* transition features */
  int64_t n;         /* n_state + n_trans weights */
} vt_crf_feats;

/* The value of attribute occurrence i. */
static inline double vt_crf_val(const vt_crf_data *d, int64_t i) {
  return d->val ? d->val[i] : 1.0;
}

/* Frees d->val (NULL) when every value is 1: the form the batch plans read fastest, and the
 * memory of a double per occurrence. */
void vt_crf_data_unit(vt_crf_data *d);

/* Frees the arrays of a problem; *d becomes zeroed. */
void vt_crf_data_free(vt_crf_data *d);

/* Frees the arrays of a feature set; *f becomes zeroed. */
void vt_crf_feats_free(vt_crf_feats *f);

/* The weight index of state feature (a, y), or -1 when the feature set lacks it. */
int64_t vt_crf_feats_state(const vt_crf_feats *f, int32_t a, int32_t y);

/* A model training continues from, in the problem's ids (its labels and attributes were given
 * the first ids): its state features by attribute and its transitions. Owns its arrays. */
typedef struct vt_crf_prior {
  int32_t L, n_attr;
  int64_t *st_off;   /* n_attr + 1 offsets into st_label and st_w */
  int32_t *st_label; /* labels of the state features */
  double *st_w;      /* their weights */
  double *tw;        /* L x L transition weights; 0: no feature */
} vt_crf_prior;

/* Frees a prior's arrays; *p becomes zeroed. */
void vt_crf_prior_free(vt_crf_prior *p);

/* Sets the weights of w (over f) that prior p has: its state features and its transitions. */
void vt_crf_weights_from_prior(double *w, const vt_crf_feats *f, const vt_crf_prior *p);

/* How features are generated from the training data (CRFsuite's feature.* options). */
typedef struct vt_crf_featgen {
  double min_freq;          /* drop features whose frequency (summed values) is below this */
  int possible_states;      /* (a, y) for every label y of every attribute seen */
  int possible_transitions; /* every label pair */
  /* A model training continues from (NULL: none): its state features and its non-zero
   * transitions are kept whatever their frequency. */
  const vt_crf_prior *prior;
} vt_crf_featgen;

/* Generates the features of `d` as CRFsuite does: a state feature for each (attribute, label)
 * of the training items, frequency the attribute's values summed (exactly: in any order the same),
 * and a transition feature for
 * each adjacent label pair, frequency its count; then those below g->min_freq dropped. *freq
 * (may be NULL) receives the n frequencies (malloc'd). Returns VT_OK or VT_ENOMEM. */
vt_status vt_crf_feats_build(vt_crf_feats *f, const vt_crf_data *d, const vt_crf_featgen *g,
                             double **freq);

/* Removes every transition feature (templates without a plain label bigram). */
void vt_crf_feats_drop_transitions(vt_crf_feats *f);

/* The observed feature counts of `d` (n doubles, summed in corpus order): the gradient of the
 * gold sequences' scores. */
void vt_crf_observed(const vt_crf_data *d, const vt_crf_feats *f, double *obs);

#endif
