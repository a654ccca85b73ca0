/* engine/train/chunk_train.c: averaged voted perceptron and max-margin updates for the joint
 * label-chunk model (see chunk_train.h). */
#define _POSIX_C_SOURCE 200809L
#include "train/chunk_train.h"
#include "core/clock.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/arena.h"
#include "core/omp_tsan.h"

static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

void vt_chunk_train_opts_init(vt_chunk_train_opts *o) {
  memset(o, 0, sizeof *o);
  o->epochs = 10;
  o->lex_warmup = 1;
}

/* Last token of the chunk that starts at t. */
static int32_t chunk_end(const uint8_t *beg, int32_t t, int32_t n) {
  while (t + 1 < n && !beg[t + 1]) t++;
  return t;
}

int64_t vt_chunk_parts_loss(int32_t n, const int32_t *gpos, const int32_t *gctag,
                            const uint8_t *gbeg, const int32_t *ppos, const int32_t *pctag,
                            const uint8_t *pbeg) {
  int64_t loss = 0;
  for (int32_t t = 0; t < n; t++) {
    const int same_tags = gpos[t] == ppos[t] && gctag[t] == pctag[t];
    loss += !same_tags;    /* POS node */
    if (t > 0 && !pbeg[t]) /* POS transition */
      loss += !(same_tags && !gbeg[t] && gpos[t - 1] == ppos[t - 1]);
    if (!pbeg[t]) continue;
    const int g_starts = gbeg[t] && gctag[t] == pctag[t];
    loss += !(g_starts && chunk_end(gbeg, t, n) == chunk_end(pbeg, t, n)); /* chunk node */
    if (t > 0) loss += !(g_starts && gctag[t - 1] == pctag[t - 1]);        /* chunk transition */
  }
  return loss;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* f(gold) - f(pred) as (id, coefficient) pairs with coefficient != 0; returns their count. */
static int64_t feature_delta(int64_t *g, int64_t ng, int64_t *p, int64_t np, int64_t *id,
                             double *coef) {
  qsort(g, (size_t)ng, sizeof *g, cmp_i64);
  qsort(p, (size_t)np, sizeof *p, cmp_i64);
  int64_t i = 0, j = 0, k = 0;
  while (i < ng || j < np) {
    int64_t f = j >= np || (i < ng && g[i] < p[j]) ? g[i] : p[j];
    double c = 0;
    while (i < ng && g[i] == f) c += 1, i++;
    while (j < np && p[j] == f) c -= 1, j++;
    if (c != 0) {
      id[k] = f;
      coef[k++] = c;
    }
  }
  return k;
}

typedef struct train_buf {
  int32_t *pos, *ctag;
  uint8_t *begin;
  int64_t *ids_g, *ids_p, *id;
  double *coef;
} train_buf;

static vt_status buf_alloc(train_buf *b, int32_t max_n) {
  const size_t n = (size_t)max_n + 1, nf = n * VT_CHUNK_NTMPL;
  b->pos = malloc(n * sizeof *b->pos);
  b->ctag = malloc(n * sizeof *b->ctag);
  b->begin = malloc(n);
  b->ids_g = malloc(nf * sizeof *b->ids_g);
  b->ids_p = malloc(nf * sizeof *b->ids_p);
  b->id = malloc(2 * nf * sizeof *b->id);
  b->coef = malloc(2 * nf * sizeof *b->coef);
  return b->pos && b->ctag && b->begin && b->ids_g && b->ids_p && b->id && b->coef ? VT_OK
                                                                                   : VT_ENOMEM;
}

static void buf_free(train_buf *b) {
  free(b->pos), free(b->ctag), free(b->begin), free(b->ids_g), free(b->ids_p), free(b->id);
  free(b->coef);
}

/* Checks that the gold structures are ones the model and the bound allow. */
static int corpus_fits(const vt_chunk_model *m, const vt_chunk_corpus *cp, int32_t W) {
  int32_t run = 0;
  for (int64_t i = 0; i < cp->n_tok; i++) {
    if (cp->pos[i] < 0 || cp->pos[i] >= m->p || cp->ctag[i] < 0 || cp->ctag[i] >= m->c) return 0;
    run = cp->begin[i] ? 1 : run + 1;
    if (W > 0 && run > W) return 0;
  }
  for (int64_t s = 0; s < cp->n_sent; s++)
    if (cp->off[s + 1] > cp->off[s] && !cp->begin[cp->off[s]]) return 0;
  return 1;
}

/* What every sentence step of an epoch reads. */
typedef struct step_ctx {
  const vt_chunk_model *m;
  const vt_chunk_corpus *cp;
  const vt_chunk_train_opts *o;
  uint32_t mask; /* templates this epoch updates */
} step_ctx;

/* Sentence s at averaging time `seen`: decodes it under weights `cur` and, on a mistake, adds
 * tau (f(gold) - f(pred)) to cur (and to dcur unless NULL) and seen times that to sum. Counts
 * the mistake and the update in *mistakes, *updates. */
static vt_status train_sentence(const step_ctx *x, int64_t s, double *cur, double *dcur,
                                double *sum, double seen, train_buf *b, vt_arena *arena,
                                int64_t *mistakes, int64_t *updates) {
  const vt_chunk_corpus *cp = x->cp;
  vt_chunk_x cx;
  vt_chunk_corpus_x(cp, s, &cx);
  const int64_t o0 = cp->off[s];
  const int32_t *gpos = cp->pos + o0, *gctag = cp->ctag + o0;
  const uint8_t *gbeg = cp->begin + o0;
  vt_chunk_lattice lat;
  vt_chunk_out out = {b->pos, b->ctag, b->begin, 0};
  vt_status st;
  vt_arena_reset(arena);
  if ((st = vt_chunk_lattice_build(x->m, cur, &cx, x->o->max_chunk, arena, &lat)) != VT_OK ||
      (st = vt_chunk_decode(&lat, arena, &out, NULL)) != VT_OK)
    return st;
  const size_t n = (size_t)cx.n;
  if (!memcmp(gpos, b->pos, n * sizeof *gpos) && !memcmp(gctag, b->ctag, n * sizeof *gctag) &&
      !memcmp(gbeg, b->begin, n))
    return VT_OK;
  (*mistakes)++;
  int64_t ng = vt_chunk_feats(x->m, &cx, gpos, gctag, gbeg, x->mask, b->ids_g);
  int64_t np = vt_chunk_feats(x->m, &cx, b->pos, b->ctag, b->begin, x->mask, b->ids_p);
  int64_t nd = feature_delta(b->ids_g, ng, b->ids_p, np, b->id, b->coef);
  double tau = 1.0;
  if (x->o->margin) {
    double norm = 0;
    for (int64_t d = 0; d < nd; d++) norm += b->coef[d] * b->coef[d];
    double loss = (double)vt_chunk_parts_loss(cx.n, gpos, gctag, gbeg, b->pos, b->ctag, b->begin);
    double gap = vt_chunk_score(&lat, gpos, gctag, gbeg) - out.score;
    tau = norm > 0 ? (loss - gap) / norm : 0.0;
    tau = tau < 0 ? 0 : tau > 1 ? 1 : tau;
  }
  if (tau <= 0 || nd == 0) return VT_OK;
  (*updates)++;
  for (int64_t d = 0; d < nd; d++) {
    cur[b->id[d]] += tau * b->coef[d];
    if (dcur) dcur[b->id[d]] += tau * b->coef[d];
    sum[b->id[d]] += seen * tau * b->coef[d];
  }
  return VT_OK;
}

/* One shard of parameter mixing: its own weights and changes, buffers and arena. */
typedef struct shard {
  double *cur, *dcur, *dsum; /* the mixed weights + this epoch's changes; the changes; u's */
  train_buf b;
  vt_arena *arena;
  int64_t mistakes, updates;
  vt_status st;
} shard;

static void shard_free(shard *h) {
  free(h->cur), free(h->dcur), free(h->dsum);
  buf_free(&h->b);
  vt_arena_destroy(h->arena);
}

/* Shard k of `ns`: sentences order[k], order[k + ns], ... from the mixed weights `cur`, the
 * i-th of them at averaging time seen + i. Writes nothing but *h. */
static vt_status shard_epoch(shard *h, const step_ctx *x, const int64_t *order, int32_t k,
                             int32_t ns, const double *cur, double seen) {
  const size_t nf = (size_t)x->m->n_feat + 1;
  memcpy(h->cur, cur, nf * sizeof *h->cur);
  memset(h->dcur, 0, nf * sizeof *h->dcur);
  memset(h->dsum, 0, nf * sizeof *h->dsum);
  h->mistakes = h->updates = 0;
  vt_status st = VT_OK;
  for (int64_t i = 0, j = k; j < x->cp->n_sent && st == VT_OK; i++, j += ns)
    st = train_sentence(x, order[j], h->cur, h->dcur, h->dsum, seen + (double)i, &h->b, h->arena,
                        &h->mistakes, &h->updates);
  return st;
}

/* One parameter-mixing epoch: the shards in parallel, then cur and sum add the mean of their
 * changes, shard by shard in order (parallel over weights: each thread owns its weights).
 * Returns the first failing shard's status. */
static vt_status ipm_epoch(const step_ctx *x, const int64_t *order, shard *sh, int32_t ns,
                           int nthreads, double *cur, double *sum, double seen,
                           vt_chunk_epoch *ep) {
#pragma omp parallel num_threads(nthreads)
  {
    VT_OMP_BEGIN();
#pragma omp for schedule(dynamic, 1)
    for (int32_t k = 0; k < ns; k++) sh[k].st = shard_epoch(&sh[k], x, order, k, ns, cur, seen);
    VT_OMP_END();
  }
  VT_OMP_JOINED();
  for (int32_t k = 0; k < ns; k++) {
    if (sh[k].st != VT_OK) return sh[k].st;
    ep->mistakes += sh[k].mistakes;
    ep->updates += sh[k].updates;
  }
  const double d = (double)ns;
  const int64_t nf = x->m->n_feat;
#pragma omp parallel num_threads(nthreads)
  {
    VT_OMP_BEGIN();
#pragma omp for schedule(static)
    for (int64_t f = 0; f < nf; f++)
      for (int32_t k = 0; k < ns; k++) {
        cur[f] += sh[k].dcur[f] / d;
        sum[f] += sh[k].dsum[f] / d;
      }
    VT_OMP_END();
  }
  VT_OMP_JOINED();
  return VT_OK;
}

vt_status vt_chunk_train(vt_chunk_model *m, const vt_chunk_corpus *cp,
                         const vt_chunk_train_opts *o) {
  if (o->epochs < 1 || o->lex_warmup < 0 || o->max_chunk < 0 || o->shards < 0 || o->threads < 0 ||
      !m->rowptr || !corpus_fits(m, cp, o->max_chunk))
    return VT_EINVAL;
  vt_status st = VT_ENOMEM;
  vt_arena *arena = NULL;
  train_buf b = {0};
  const int32_t ns = o->shards > 1 ? o->shards : 1;
  const int mixing = ns > 1 || o->mix_one;
  int nthreads = o->threads > 0 ? o->threads : omp_get_max_threads();
  if (nthreads > ns) nthreads = ns;
  shard *sh = mixing ? calloc((size_t)ns, sizeof *sh) : NULL;
  double *cur = calloc((size_t)m->n_feat + 1, sizeof *cur);
  double *sum = calloc((size_t)m->n_feat + 1, sizeof *sum);
  int64_t *order = malloc((size_t)cp->n_sent * sizeof *order + 1);
  if (!cur || !sum || !order || (mixing && !sh) || buf_alloc(&b, cp->max_n) != VT_OK ||
      vt_arena_create(&arena, 0) != VT_OK)
    goto fail;
  for (int32_t k = 0; k < ns && sh; k++) {
    const size_t nf = (size_t)m->n_feat + 1;
    sh[k].cur = malloc(nf * sizeof *sh[k].cur);
    sh[k].dcur = malloc(nf * sizeof *sh[k].dcur);
    sh[k].dsum = malloc(nf * sizeof *sh[k].dsum);
    if (!sh[k].cur || !sh[k].dcur || !sh[k].dsum || buf_alloc(&sh[k].b, cp->max_n) != VT_OK ||
        vt_arena_create(&sh[k].arena, 0) != VT_OK)
      goto fail;
  }
  uint32_t bias_mask = 0;
  for (int k = 0; k < VT_CHUNK_NTMPL; k++)
    if (vt_chunk_tmpls[k].src == VT_CSRC_BIAS) bias_mask |= 1u << k;
  m->max_chunk = o->max_chunk;
  double t_train = 0; /* epochs only, not the callbacks */
  double seen = 0;    /* examples processed: the averaging clock */
  uint64_t rng = o->seed;
  for (int64_t s = 0; s < cp->n_sent; s++) order[s] = s;
  for (int32_t epoch = 1; epoch <= o->epochs; epoch++) {
    const double t_epoch = vt_clock_seconds();
    step_ctx x = {m, cp, o, epoch <= o->lex_warmup ? bias_mask : (1u << VT_CHUNK_NTMPL) - 1u};
    vt_chunk_epoch ep = {epoch, 0, 0, 0, 0};
    for (int64_t i = cp->n_sent - 1; o->seed && i > 0; i--) { /* Fisher-Yates */
      int64_t j = (int64_t)(splitmix(&rng) % (uint64_t)(i + 1)), tmp = order[i];
      order[i] = order[j];
      order[j] = tmp;
    }
    if (mixing) {
      if ((st = ipm_epoch(&x, order, sh, ns, nthreads, cur, sum, seen, &ep)) != VT_OK) goto fail;
      seen += (double)((cp->n_sent + ns - 1) / ns);
    } else {
      for (int64_t i = 0; i < cp->n_sent; i++, seen += 1)
        if ((st = train_sentence(&x, order[i], cur, NULL, sum, seen, &b, arena, &ep.mistakes,
                                 &ep.updates)) != VT_OK)
          goto fail;
    }
    for (int64_t f = 0; f < m->n_feat; f++) m->w[f] = cur[f] - sum[f] / seen;
    ep.seconds = vt_clock_seconds() - t_epoch;
    t_train += ep.seconds;
    ep.train_seconds = t_train;
    if (o->on_epoch && o->on_epoch(o->ctx, m, &ep)) break;
  }
  st = VT_OK;
fail:
  for (int32_t k = 0; k < ns && sh; k++) shard_free(&sh[k]);
  free(sh);
  vt_arena_destroy(arena);
  buf_free(&b);
  free(cur);
  free(sum);
  free(order);
  return st;
}
