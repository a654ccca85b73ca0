/* engine/train/train_weights.h: the perceptron's weights while it trains.
 *
 * Per feature, a sparse vector of (key, weight) entries that grows as updates touch new labels
 * (keys are labels for unigram features, prev * L + cur for bigram ones); a unigram vector that
 * fills up switches to a dense row of L weights, which is faster to add to emissions. The
 * transitions are dense. Averaging (Collins 2002) uses the lazy trick of Daume: next to every
 * weight w, u accumulates c * delta for each update made at example number c; the average over
 * all examples seen is then w - u / c, computed only when needed. */
#ifndef VT_TRAIN_TRAIN_WEIGHTS_H
#define VT_TRAIN_TRAIN_WEIGHTS_H

#include <stdint.h>

#include "vitesse.h"

/* A sparse entry: key and current weight side by side (emissions read just these). */
typedef struct vt_went {
  int32_t key;
  double w;
} vt_went;

typedef struct vt_wvec {
  int32_t n, cap; /* entries; a dense vector has n = cap = L */
  vt_went *e;     /* sparse entries, or NULL when dense */
  double *dw;     /* dense: the L weights, or NULL when sparse */
  double *u;      /* n averaging accumulators (entry order) */
} vt_wvec;

/* Entry i of v: its key and current weight. */
static inline int32_t vt_wvec_key(const vt_wvec *v, int32_t i) { return v->e ? v->e[i].key : i; }
static inline double vt_wvec_w(const vt_wvec *v, int32_t i) { return v->e ? v->e[i].w : v->dw[i]; }

typedef struct vt_weights {
  int32_t L;
  int32_t n_feat;
  vt_wvec *v;
  const uint8_t *bigram; /* per feature: 1 = keys are label pairs */
  double *A, *Au;        /* L*L transitions */
  double *S, *Su, *F, *Fu;
  double c; /* example counter, from 1 */
} vt_weights;

/* Zero weights for `n_feat` features over `L` labels; bigram[f] marks bigram features (kept by
 * pointer). Returns VT_OK or VT_ENOMEM. */
vt_status vt_weights_init(vt_weights *W, int32_t L, int32_t n_feat, const uint8_t *bigram);

/* Frees everything; *W becomes zeroed. */
void vt_weights_free(vt_weights *W);

/* Adds `delta` to feature f's weight for `key` at the current example. VT_OK or VT_ENOMEM. */
vt_status vt_weights_add(vt_weights *W, int32_t f, int32_t key, double delta);

/* As vt_weights_add, with the averaging accumulator changed by `udelta` instead of c * delta
 * (parameter mixing adds a shard's u deltas this way). VT_OK or VT_ENOMEM. */
vt_status vt_weights_add_wu(vt_weights *W, int32_t f, int32_t key, double delta, double udelta);

/* Adds `delta` to the weight of `key` in v, a vector of a model with L labels (`bigram`: keys
 * are label pairs, and the vector stays sparse), and `udelta` to its accumulator; a vector made
 * without accumulators (u == NULL, not empty) keeps none. VT_OK or VT_ENOMEM. */
vt_status vt_wvec_add(vt_wvec *v, int32_t L, int bigram, int32_t key, double delta, double udelta);

/* Empties v (a dense vector becomes an empty sparse one; a sparse one keeps its memory). */
void vt_wvec_reset(vt_wvec *v);

/* Frees v's memory; v becomes empty. */
void vt_wvec_free(vt_wvec *v);

/* A parameter-mixing shard's own vectors over the mixed weights W: the features it updated this
 * round, each with its delta (weights and accumulators, at the shard's example numbers); its
 * current weights are W's plus the delta. 4 bytes a feature plus the deltas. */
typedef struct vt_wover {
  int32_t *slot; /* per feature of W: index of its delta, -1 = none */
  vt_wvec *d;    /* per own feature: its delta */
  int32_t *feat; /* per own feature: which */
  int64_t n, cap;
} vt_wover;

/* No own feature among n_feat. VT_OK or VT_ENOMEM. */
vt_status vt_wover_init(vt_wover *o, int32_t n_feat);
void vt_wover_free(vt_wover *o);

/* Forgets every own feature (keeps memory for the next round's deltas). */
void vt_wover_clear(vt_wover *o);

/* Adds `delta` to feature f's weight for `key` at example number c: to its delta (accumulator
 * c * delta). W gives f's labels and kind. VT_OK or VT_ENOMEM. */
vt_status vt_wover_add(vt_wover *o, const vt_weights *W, int32_t f, int32_t key, double delta,
                       double c);

/* The averaged weight of (w, u), rounded to float as the model file stores it. */
static inline double vt_weights_avg(const vt_weights *W, double w, double u) {
  return (double)(float)(w - u / W->c);
}

/* Writes the T x L emissions of a sentence whose unigram features are ufeat[t * n_u + k]
 * (-1 = none) into E: current weights, or averaged ones when `avg`. */
void vt_weights_emit(const vt_weights *W, const int32_t *ufeat, int32_t n_u, int32_t T, double *E,
                     int avg);

/* As vt_weights_emit with current weights, where a feature that `o` owns adds its delta to W's
 * weights: a parameter-mixing shard's emissions. Perceptron weights and deltas are integers, so
 * the sums are exact in any order: the emissions of the weights W + o. */
void vt_weights_emit_over(const vt_weights *W, const vt_wover *o, const int32_t *ufeat, int32_t n_u,
                          int32_t T, double *E);

#endif
