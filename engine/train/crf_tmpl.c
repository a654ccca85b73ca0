/* engine/train/crf_tmpl.c: template corpora to CRF problems and back (crf_tmpl.h). */
#include "train/crf_tmpl.h"

#include <stdlib.h>
#include <string.h>

vt_status vt_crf_from_tcorpus(vt_crf_data *d, const vt_tcorpus *c, int32_t L, int32_t n_attr) {
  int64_t occ = 0;
  for (int64_t i = 0; i < c->n_tok * c->n_u; i++) occ += c->ufeat[i] >= 0;
  memset(d, 0, sizeof *d);
  d->L = L;
  d->n_attr = n_attr;
  d->n_sent = c->n_sent;
  d->n_tok = c->n_tok;
  d->max_T = c->max_T;
  d->sent_off = malloc(((size_t)c->n_sent + 1) * sizeof *d->sent_off);
  d->gold = malloc((size_t)(c->n_tok ? c->n_tok : 1) * sizeof *d->gold);
  d->tok_off = malloc(((size_t)c->n_tok + 1) * sizeof *d->tok_off);
  d->attr = malloc((size_t)(occ ? occ : 1) * sizeof *d->attr);
  if (!d->sent_off || !d->gold || !d->tok_off || !d->attr) {
    vt_crf_data_free(d);
    return VT_ENOMEM;
  }
  memcpy(d->sent_off, c->sent_off, ((size_t)c->n_sent + 1) * sizeof *d->sent_off);
  if (c->n_tok) memcpy(d->gold, c->gold, (size_t)c->n_tok * sizeof *d->gold);
  occ = 0;
  d->tok_off[0] = 0;
  for (int64_t t = 0; t < c->n_tok; t++) {
    for (int32_t k = 0; k < c->n_u; k++) {
      int32_t a = c->ufeat[t * c->n_u + k];
      if (a < 0 || a >= n_attr) continue;
      d->attr[occ++] = a; /* every value 1: no val array */
    }
    d->tok_off[t + 1] = occ;
  }
  return VT_OK;
}

vt_status vt_crf_to_weights(vt_weights *W, const vt_crf_feats *f, const double *w) {
  for (int32_t a = 0; a < f->n_attr; a++)
    for (int64_t q = f->st_off[a]; q < f->st_off[a + 1]; q++)
      if (w[q] != 0 && vt_weights_add_wu(W, a, f->st_label[q], w[q], 0) != VT_OK) return VT_ENOMEM;
  for (size_t i = 0; i < (size_t)f->L * (size_t)f->L; i++)
    W->A[i] = f->tr_id[i] >= 0 ? w[f->tr_id[i]] : 0.0;
  return VT_OK;
}

/* Calls fn(ctx, record) for every unigram record of m. */
static void each_unigram(const vt_textmodel *m, void (*fn)(void *, const vt_feat *), void *ctx) {
  const uint8_t *rec = m->recs;
  for (uint32_t i = 0; i < m->n_feat; i++) {
    vt_feat ft;
    vt_feat_read(rec, m->key_bytes, &ft);
    if (!ft.bigram) fn(ctx, &ft);
    rec += vt_feat_size(ft.len, ft.nnz, vt_feat_key_bytes(&ft, m->key_bytes));
  }
}

/* The label of entry j of record ft. */
static int32_t rec_label(const vt_feat *ft, int key_bytes, uint32_t j) {
  if (ft->dense) return (int32_t)j;
  return key_bytes == 2 ? (int32_t)((const uint16_t *)ft->keys)[j]
                        : (int32_t)((const uint32_t *)ft->keys)[j];
}

typedef struct seed_ctx {
  vt_trainset *d;
  uint32_t min_count;
  int failed;
} seed_ctx;

static void seed_one(void *vctx, const vt_feat *ft) {
  seed_ctx *c = vctx;
  int32_t id;
  if (c->failed || vt_featdict_add(&c->d->feats, ft->str, ft->len, &id) != VT_OK) {
    c->failed = 1;
    return;
  }
  if (c->d->feats.count[id] < c->min_count) c->d->feats.count[id] = c->min_count;
}

vt_status vt_crf_tmpl_seed(vt_trainset *d, const vt_textmodel *m, uint32_t min_count) {
  for (int32_t y = 0; y < m->L; y++) {
    size_t len;
    const char *s = vt_textmodel_label(m, y, &len);
    int32_t id;
    if (vt_featdict_add(&d->labels, s, len, &id) != VT_OK) return VT_ENOMEM;
    d->labels.count[id] = 0;
  }
  seed_ctx c = {d, min_count, 0};
  each_unigram(m, seed_one, &c);
  return c.failed ? VT_ENOMEM : VT_OK;
}

typedef struct prior_ctx {
  const vt_trainset *d;
  const vt_textmodel *m;
  vt_crf_prior *p;
  int fill; /* 0: count the entries per attribute; 1: place them */
} prior_ctx;

static void prior_one(void *vctx, const vt_feat *ft) {
  prior_ctx *c = vctx;
  int32_t id = vt_featdict_find(&c->d->feats, ft->str, ft->len);
  int32_t a = id >= 0 ? c->d->remap[id] : -1;
  if (a < 0) return;
  for (uint32_t j = 0; j < ft->nnz; j++) {
    if (ft->vals[j] == 0) continue;
    if (!c->fill) {
      c->p->st_off[a + 1]++;
      continue;
    }
    int64_t q = c->p->st_off[a]++;
    c->p->st_label[q] = rec_label(ft, c->m->key_bytes, j);
    c->p->st_w[q] = ft->vals[j];
  }
}

vt_status vt_crf_prior_from_textmodel(vt_crf_prior *p, const vt_textmodel *m,
                                      const vt_trainset *d) {
  const int32_t A = d->n_weights;
  const size_t Ls = (size_t)m->L;
  memset(p, 0, sizeof *p);
  p->L = m->L;
  p->n_attr = A;
  p->st_off = calloc((size_t)A + 2, sizeof *p->st_off);
  p->tw = malloc((Ls ? Ls * Ls : 1) * sizeof *p->tw);
  if (!p->st_off || !p->tw) goto nomem;
  prior_ctx c = {d, m, p, 0};
  each_unigram(m, prior_one, &c);
  for (int32_t a = 0; a < A; a++) p->st_off[a + 1] += p->st_off[a];
  const int64_t n = p->st_off[A];
  p->st_label = malloc((size_t)(n ? n : 1) * sizeof *p->st_label);
  p->st_w = malloc((size_t)(n ? n : 1) * sizeof *p->st_w);
  if (!p->st_label || !p->st_w) goto nomem;
  c.fill = 1;
  each_unigram(m, prior_one, &c); /* st_off[a] ends as st_off[a + 1]: shift back */
  for (int32_t a = A; a > 0; a--) p->st_off[a] = p->st_off[a - 1];
  p->st_off[0] = 0;
  for (size_t i = 0; i < Ls * Ls; i++) p->tw[i] = m->A[i];
  return VT_OK;
nomem:
  vt_crf_prior_free(p);
  return VT_ENOMEM;
}
