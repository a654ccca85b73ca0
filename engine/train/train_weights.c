/* engine/train/train_weights.c: the perceptron's sparse/dense weight vectors (see train_weights.h).
 */
#include "train/train_weights.h"

#include <stdlib.h>
#include <string.h>

#include "core/rowadd.h"

vt_status vt_weights_init(vt_weights *W, int32_t L, int32_t n_feat, const uint8_t *bigram) {
  memset(W, 0, sizeof *W);
  W->L = L;
  W->n_feat = n_feat;
  W->bigram = bigram;
  W->c = 1;
  size_t LL = (size_t)L * (size_t)L;
  W->v = calloc((size_t)n_feat + 1, sizeof *W->v);
  W->A = calloc(LL, sizeof(double));
  W->Au = calloc(LL, sizeof(double));
  W->S = calloc((size_t)L, sizeof(double));
  W->Su = calloc((size_t)L, sizeof(double));
  W->F = calloc((size_t)L, sizeof(double));
  W->Fu = calloc((size_t)L, sizeof(double));
  if (!W->v || !W->A || !W->Au || !W->S || !W->Su || !W->F || !W->Fu) {
    vt_weights_free(W);
    return VT_ENOMEM;
  }
  return VT_OK;
}

void vt_weights_free(vt_weights *W) {
  if (W->v)
    for (int32_t f = 0; f < W->n_feat; f++) {
      free(W->v[f].e);
      free(W->v[f].dw);
      free(W->v[f].u);
    }
  free(W->v);
  free(W->A);
  free(W->Au);
  free(W->S);
  free(W->Su);
  free(W->F);
  free(W->Fu);
  memset(W, 0, sizeof *W);
}

/* Converts a full unigram vector to a dense row of L weights (and accumulators, if it has). */
static vt_status densify(int32_t L, vt_wvec *v) {
  double *w = calloc((size_t)L, sizeof *w), *u = v->u ? calloc((size_t)L, sizeof *u) : NULL;
  if (!w || (v->u && !u)) {
    free(w);
    free(u);
    return VT_ENOMEM;
  }
  for (int32_t i = 0; i < v->n; i++) {
    w[v->e[i].key] = v->e[i].w;
    if (u) u[v->e[i].key] = v->u[i];
  }
  free(v->e);
  free(v->u);
  v->e = NULL;
  v->dw = w;
  v->u = u;
  v->n = v->cap = L;
  return VT_OK;
}

vt_status vt_weights_add(vt_weights *W, int32_t f, int32_t key, double delta) {
  return vt_wvec_add(&W->v[f], W->L, W->bigram[f], key, delta, W->c * delta);
}

vt_status vt_weights_add_wu(vt_weights *W, int32_t f, int32_t key, double delta, double udelta) {
  return vt_wvec_add(&W->v[f], W->L, W->bigram[f], key, delta, udelta);
}

vt_status vt_wvec_add(vt_wvec *v, int32_t L, int bigram, int32_t key, double delta, double udelta) {
  if (v->dw) {
    v->dw[key] += delta;
    if (v->u) v->u[key] += udelta;
    return VT_OK;
  }
  for (int32_t i = 0; i < v->n; i++) {
    if (v->e[i].key == key) {
      v->e[i].w += delta;
      if (v->u) v->u[i] += udelta;
      return VT_OK;
    }
  }
  /* A unigram vector holding an eighth of the labels is cheaper dense. */
  if (!bigram && v->n >= 4 && v->n >= L / 8) {
    if (densify(L, v) != VT_OK) return VT_ENOMEM;
    return vt_wvec_add(v, L, bigram, key, delta, udelta);
  }
  if (v->n == v->cap) {
    int32_t cap = v->cap ? v->cap * 2 : 2;
    vt_went *e = realloc(v->e, (size_t)cap * sizeof *e);
    if (!e) return VT_ENOMEM;
    v->e = e;
    if (v->u || v->cap == 0) { /* an empty vector gets accumulators; a copy without keeps none */
      double *u = realloc(v->u, (size_t)cap * sizeof *u);
      if (!u) return VT_ENOMEM;
      v->u = u;
    }
    v->cap = cap;
  }
  v->e[v->n].key = key;
  v->e[v->n].w = delta;
  if (v->u) v->u[v->n] = udelta;
  v->n++;
  return VT_OK;
}

void vt_wvec_reset(vt_wvec *v) {
  if (v->dw) { /* back to sparse: most features a shard touches once stay sparse */
    free(v->dw);
    free(v->u);
    v->dw = NULL;
    v->u = NULL;
    v->cap = 0;
  }
  v->n = 0;
}

void vt_wvec_free(vt_wvec *v) {
  free(v->e);
  free(v->dw);
  free(v->u);
  memset(v, 0, sizeof *v);
}

vt_status vt_wover_init(vt_wover *o, int32_t n_feat) {
  memset(o, 0, sizeof *o);
  o->slot = malloc(((size_t)n_feat + 1) * sizeof *o->slot);
  if (!o->slot) return VT_ENOMEM;
  for (int32_t f = 0; f < n_feat; f++) o->slot[f] = -1;
  return VT_OK;
}

void vt_wover_free(vt_wover *o) {
  for (int64_t k = 0; k < o->cap; k++) vt_wvec_free(&o->d[k]);
  free(o->slot);
  free(o->d);
  free(o->feat);
  memset(o, 0, sizeof *o);
}

void vt_wover_clear(vt_wover *o) {
  for (int64_t k = 0; k < o->n; k++) {
    o->slot[o->feat[k]] = -1;
    vt_wvec_reset(&o->d[k]);
  }
  o->n = 0;
}

vt_status vt_wover_add(vt_wover *o, const vt_weights *W, int32_t f, int32_t key, double delta,
                       double c) {
  int32_t k = o->slot[f];
  if (k < 0) {
    if (o->n == o->cap) {
      int64_t cap = o->cap ? 2 * o->cap : 1024;
      vt_wvec *d = realloc(o->d, (size_t)cap * sizeof *d);
      if (!d) return VT_ENOMEM;
      o->d = d;
      int32_t *feat = realloc(o->feat, (size_t)cap * sizeof *feat);
      if (!feat) return VT_ENOMEM;
      o->feat = feat;
      memset(o->d + o->cap, 0, (size_t)(cap - o->cap) * sizeof *d);
      o->cap = cap;
    }
    k = (int32_t)o->n;
    o->feat[k] = f;
    o->slot[f] = k;
    o->n++;
  }
  return vt_wvec_add(&o->d[k], W->L, W->bigram[f], key, delta, c * delta);
}

/* e[0..L) += v's current weights. */
static void add_weights(double *e, const vt_wvec *v, int32_t L, vt_rowadd_f64_fn add) {
  if (v->dw)
    add(e, v->dw, (size_t)L);
  else
    for (int32_t k = 0; k < v->n; k++) e[v->e[k].key] += v->e[k].w;
}

/* Prefetches the weights of the vectors of features ufeat[0, nf) (-1: none), whose headers the
 * caller prefetched a loop earlier, so that the misses overlap. */
static void prefetch_weights(const vt_weights *W, const int32_t *ufeat, size_t nf) {
  for (size_t i = 0; i < nf; i++) {
    if (ufeat[i] < 0) continue;
    const vt_wvec *v = &W->v[ufeat[i]];
    if (v->e)
      __builtin_prefetch(v->e);
    else if (v->dw)
      __builtin_prefetch(v->dw);
  }
}

void vt_weights_emit_over(const vt_weights *W, const vt_wover *o, const int32_t *ufeat, int32_t n_u,
                          int32_t T, double *E) {
  const int32_t L = W->L;
  const size_t nf = (size_t)T * (size_t)n_u;
  vt_rowadd_f64_fn add = vt_rowadd_f64();
  memset(E, 0, (size_t)T * (size_t)L * sizeof *E);
  /* Prefetch the vectors' headers, then their weights, as vt_weights_emit does. */
  for (size_t i = 0; i < nf; i++)
    if (ufeat[i] >= 0) {
      __builtin_prefetch(&W->v[ufeat[i]]);
      __builtin_prefetch(&o->slot[ufeat[i]]);
    }
  prefetch_weights(W, ufeat, nf);
  for (size_t i = 0; i < nf; i++) {
    if (ufeat[i] < 0) continue;
    double *e = E + (i / (size_t)n_u) * (size_t)L;
    add_weights(e, &W->v[ufeat[i]], L, add);
    const int32_t k = o->slot[ufeat[i]];
    if (k >= 0) add_weights(e, &o->d[k], L, add);
  }
}

void vt_weights_emit(const vt_weights *W, const int32_t *ufeat, int32_t n_u, int32_t T, double *E,
                     int avg) {
  const int32_t L = W->L;
  const size_t nf = (size_t)T * (size_t)n_u;
  vt_rowadd_f64_fn add = vt_rowadd_f64();
  memset(E, 0, (size_t)T * (size_t)L * sizeof *E);
  /* Prefetch the vectors' headers, then their weights, so that the misses overlap. */
  for (size_t i = 0; i < nf; i++)
    if (ufeat[i] >= 0) __builtin_prefetch(&W->v[ufeat[i]]);
  prefetch_weights(W, ufeat, nf);
  for (size_t i = 0; i < nf; i++) {
    if (ufeat[i] < 0) continue;
    double *e = E + (i / (size_t)n_u) * (size_t)L;
    const vt_wvec *v = &W->v[ufeat[i]];
    if (!avg) {
      add_weights(e, v, L, add);
    } else {
      for (int32_t k = 0; k < v->n; k++)
        e[vt_wvec_key(v, k)] += vt_weights_avg(W, vt_wvec_w(v, k), v->u[k]);
    }
  }
}
