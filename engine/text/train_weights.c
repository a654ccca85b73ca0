/* engine/text/train_weights.c: the perceptron's sparse/dense weight vectors (see train_weights.h).
 */
#include "train_weights.h"

#include <stdlib.h>
#include <string.h>

#include "rowadd.h"

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

/* Converts a full unigram vector to a dense row of L weights. */
static vt_status densify(vt_weights *W, vt_wvec *v) {
  const int32_t L = W->L;
  double *w = calloc((size_t)L, sizeof *w), *u = calloc((size_t)L, sizeof *u);
  if (!w || !u) {
    free(w);
    free(u);
    return VT_ENOMEM;
  }
  for (int32_t i = 0; i < v->n; i++) {
    w[v->e[i].key] = v->e[i].w;
    u[v->e[i].key] = v->u[i];
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
  return vt_weights_add_wu(W, f, key, delta, W->c * delta);
}

vt_status vt_weights_add_wu(vt_weights *W, int32_t f, int32_t key, double delta, double udelta) {
  vt_wvec *v = &W->v[f];
  if (v->dw) {
    v->dw[key] += delta;
    v->u[key] += udelta;
    return VT_OK;
  }
  for (int32_t i = 0; i < v->n; i++) {
    if (v->e[i].key == key) {
      v->e[i].w += delta;
      v->u[i] += udelta;
      return VT_OK;
    }
  }
  /* A unigram vector holding an eighth of the labels is cheaper dense. */
  if (!W->bigram[f] && v->n >= 4 && v->n >= W->L / 8) {
    if (densify(W, v) != VT_OK) return VT_ENOMEM;
    return vt_weights_add_wu(W, f, key, delta, udelta);
  }
  if (v->n == v->cap) {
    int32_t cap = v->cap ? v->cap * 2 : 2;
    vt_went *e = realloc(v->e, (size_t)cap * sizeof *e);
    if (!e) return VT_ENOMEM;
    v->e = e;
    double *u = realloc(v->u, (size_t)cap * sizeof *u);
    if (!u) return VT_ENOMEM;
    v->u = u;
    v->cap = cap;
  }
  v->e[v->n].key = key;
  v->e[v->n].w = delta;
  v->u[v->n] = udelta;
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

vt_status vt_wvec_copy(vt_wvec *dst, const vt_wvec *src) {
  vt_wvec_reset(dst);
  if (src->dw) {
    free(dst->e);
    free(dst->u);
    dst->e = NULL;
    dst->u = calloc((size_t)src->n, sizeof *dst->u);
    dst->dw = malloc((size_t)src->n * sizeof *dst->dw);
    if (!dst->u || !dst->dw) return VT_ENOMEM;
    memcpy(dst->dw, src->dw, (size_t)src->n * sizeof *dst->dw);
    dst->n = dst->cap = src->n;
    return VT_OK;
  }
  if (dst->cap < src->n) {
    vt_went *e = realloc(dst->e, (size_t)src->n * sizeof *e);
    if (!e) return VT_ENOMEM;
    dst->e = e;
    double *u = realloc(dst->u, (size_t)src->n * sizeof *u);
    if (!u) return VT_ENOMEM;
    dst->u = u;
    dst->cap = src->n;
  }
  if (src->n > 0) {
    memcpy(dst->e, src->e, (size_t)src->n * sizeof *dst->e);
    memset(dst->u, 0, (size_t)src->n * sizeof *dst->u);
  }
  dst->n = src->n;
  return VT_OK;
}

void vt_weights_emit_over(const vt_weights *W, const vt_weights *P, const uint8_t *mine,
                          const int32_t *ufeat, int32_t n_u, int32_t T, double *E) {
  const int32_t L = W->L;
  const size_t nf = (size_t)T * (size_t)n_u;
  vt_rowadd_f64_fn add = vt_rowadd_f64();
  memset(E, 0, (size_t)T * (size_t)L * sizeof *E);
  for (size_t i = 0; i < nf; i++)
    if (ufeat[i] >= 0) __builtin_prefetch(mine[ufeat[i]] ? &P->v[ufeat[i]] : &W->v[ufeat[i]]);
  for (size_t i = 0; i < nf; i++) {
    if (ufeat[i] < 0) continue;
    const vt_wvec *v = mine[ufeat[i]] ? &P->v[ufeat[i]] : &W->v[ufeat[i]];
    double *e = E + (i / (size_t)n_u) * (size_t)L;
    if (v->dw)
      add(e, v->dw, (size_t)L);
    else
      for (int32_t k = 0; k < v->n; k++) e[v->e[k].key] += v->e[k].w;
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
  for (size_t i = 0; i < nf; i++) {
    if (ufeat[i] < 0) continue;
    const vt_wvec *v = &W->v[ufeat[i]];
    if (v->e)
      __builtin_prefetch(v->e);
    else if (v->dw)
      __builtin_prefetch(v->dw);
  }
  for (size_t i = 0; i < nf; i++) {
    if (ufeat[i] < 0) continue;
    double *e = E + (i / (size_t)n_u) * (size_t)L;
    const vt_wvec *v = &W->v[ufeat[i]];
    if (!avg) {
      if (v->dw) {
        add(e, v->dw, (size_t)L);
      } else {
        for (int32_t k = 0; k < v->n; k++) e[v->e[k].key] += v->e[k].w;
      }
    } else {
      for (int32_t k = 0; k < v->n; k++)
        e[vt_wvec_key(v, k)] += vt_weights_avg(W, vt_wvec_w(v, k), v->u[k]);
    }
  }
}
