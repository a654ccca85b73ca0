/* engine/train/train_export.c: averaged weights -> model image (see train_export.h). */
#include "train/train_export.h"

#include <stdlib.h>
#include <string.h>

/* A label and its training frequency, sorted by decreasing frequency, ties by label (no
 * context in a global: trainings may run on several threads at once). */
typedef struct label_freq {
  uint32_t freq;
  int32_t y;
} label_freq;

static int by_freq(const void *a, const void *b) {
  const label_freq *x = a, *y = b;
  if (x->freq != y->freq) return x->freq > y->freq ? -1 : 1;
  return x->y < y->y ? -1 : x->y > y->y;
}

void vt_export_rank(const vt_trainset *d, int32_t *rank) {
  const int32_t L = d->labels.n;
  label_freq *lf = malloc((size_t)(L ? L : 1) * sizeof *lf);
  if (!lf) { /* out of memory: first appearance, which is only slower for the decoders */
    for (int32_t y = 0; y < L; y++) rank[y] = y;
    return;
  }
  for (int32_t y = 0; y < L; y++) lf[y] = (label_freq){d->labels.count[y], y};
  qsort(lf, (size_t)L, sizeof *lf, by_freq);
  for (int32_t y = 0; y < L; y++) rank[y] = lf[y].y;
  free(lf);
}

/* Non-zero averaged weights of feature f. */
static uint32_t record_nnz(const vt_weights *W, int32_t f) {
  const vt_wvec *v = &W->v[f];
  uint32_t nnz = 0;
  for (int32_t i = 0; i < v->n; i++) nnz += vt_weights_avg(W, vt_wvec_w(v, i), v->u[i]) != 0.0;
  return nnz;
}

/* Key width of feature f's record: 4 for bigram features, 0 (dense, all L weights) for a
 * unigram feature scoring at least a third of the labels, else key_bytes. */
static int record_key_bytes(const vt_weights *W, int32_t f, uint32_t nnz, int key_bytes) {
  if (W->bigram[f]) return 4;
  return (uint64_t)nnz * 8 >= (uint64_t)W->L ? 0 : key_bytes;
}

void vt_export_free(vt_export *x) {
  free(x->label_bytes);
  free(x->label_off);
  free(x->label_freq);
  free(x->rank);
  free(x->recs);
  free(x->A);
  free(x->S);
  free(x->F);
  memset(x, 0, sizeof *x);
}

vt_status vt_export_build(vt_export *x, const vt_trainset *d, const vt_weights *W,
                          const char *tmpl_text, size_t tmpl_len, const vt_textmodel_meta *meta) {
  vt_status st = VT_ENOMEM;
  memset(x, 0, sizeof *x);
  const int32_t L = W->L;
  const int key_bytes = L <= 65535 ? 2 : 4;
  if (d->labels.pool_len >= UINT32_MAX) return VT_EINVAL;
  x->label_bytes = malloc(d->labels.pool_len + 1);
  x->label_off = malloc(((size_t)L + 1) * sizeof *x->label_off);
  x->label_freq = malloc((size_t)L * sizeof *x->label_freq);
  x->rank = malloc((size_t)L * sizeof *x->rank);
  size_t LL = (size_t)L * (size_t)L;
  x->A = malloc(LL * sizeof *x->A);
  x->S = malloc((size_t)L * sizeof *x->S);
  x->F = malloc((size_t)L * sizeof *x->F);
  if (!x->label_bytes || !x->label_off || !x->label_freq || !x->rank || !x->A || !x->S || !x->F)
    goto fail;
  memcpy(x->label_bytes, d->labels.pool, d->labels.pool_len);
  for (int32_t y = 0; y <= L; y++) x->label_off[y] = (uint32_t)d->labels.off[y];
  for (int32_t y = 0; y < L; y++) x->label_freq[y] = d->labels.count[y];
  vt_export_rank(d, x->rank);
  for (size_t i = 0; i < LL; i++) x->A[i] = (float)vt_weights_avg(W, W->A[i], W->Au[i]);
  for (int32_t y = 0; y < L; y++) {
    x->S[y] = (float)vt_weights_avg(W, W->S[y], W->Su[y]);
    x->F[y] = (float)vt_weights_avg(W, W->F[y], W->Fu[y]);
  }

  /* Records: sized first, then written. */
  uint64_t total = 0;
  uint32_t n_feat = 0;
  for (int32_t f = 0; f < W->n_feat; f++) {
    uint32_t nnz = record_nnz(W, f);
    if (!nnz) continue;
    size_t len;
    vt_featdict_str(&d->feats, d->dict_of[f], &len);
    int kb = record_key_bytes(W, f, nnz, key_bytes);
    total += vt_feat_size((uint32_t)len, kb ? nnz : (uint32_t)L, kb);
    n_feat++;
  }
  x->recs = malloc(total ? total : 1);
  if (!x->recs) goto fail;
  uint8_t *p = x->recs;
  for (int32_t f = 0; f < W->n_feat; f++) {
    const vt_wvec *v = &W->v[f];
    uint32_t nnz = record_nnz(W, f);
    if (!nnz) continue;
    size_t len;
    const char *s = vt_featdict_str(&d->feats, d->dict_of[f], &len);
    const int bigram = W->bigram[f], kb = record_key_bytes(W, f, nnz, key_bytes);
    if (!kb) nnz = (uint32_t)L;
    uint64_t size = vt_feat_size((uint32_t)len, nnz, kb);
    memset(p, 0, size);
    uint32_t head[2] = {(uint32_t)len, nnz | (bigram ? 0x80000000u : 0) | (kb ? 0 : 0x40000000u)};
    memcpy(p, head, 8);
    memcpy(p + 8, s, len);
    vt_feat ft;
    vt_feat_read(p, key_bytes, &ft);
    if (!kb) { /* dense: every label's weight, zeros included */
      float *vals = (float *)(uintptr_t)ft.vals;
      for (int32_t y = 0; y < L; y++) vals[y] = 0.0f;
      for (int32_t i = 0; i < v->n; i++)
        vals[vt_wvec_key(v, i)] = (float)vt_weights_avg(W, vt_wvec_w(v, i), v->u[i]);
      p += size;
      continue;
    }
    uint16_t *k16 = (uint16_t *)(uintptr_t)ft.keys;
    uint32_t *k32 = (uint32_t *)(uintptr_t)ft.keys;
    float *vals = (float *)(uintptr_t)ft.vals;
    /* Keys ascending (a dense vector is; sparse entries are sorted by insertion below). */
    uint32_t j = 0;
    for (int32_t i = 0; i < v->n; i++) {
      double a = vt_weights_avg(W, vt_wvec_w(v, i), v->u[i]);
      if (a == 0.0) continue;
      uint32_t key = (uint32_t)vt_wvec_key(v, i);
      uint32_t q = j++;
      while (q > 0 && (kb == 2 ? k16[q - 1] : k32[q - 1]) > key) {
        if (kb == 2)
          k16[q] = k16[q - 1];
        else
          k32[q] = k32[q - 1];
        vals[q] = vals[q - 1];
        q--;
      }
      if (kb == 2)
        k16[q] = (uint16_t)key;
      else
        k32[q] = key;
      vals[q] = (float)a;
    }
    p += size;
  }
  x->img.L = L;
  x->img.label_bytes = x->label_bytes;
  x->img.label_off = x->label_off;
  x->img.label_freq = x->label_freq;
  x->img.rank = x->rank;
  x->img.tmpl_text = tmpl_text;
  x->img.tmpl_len = tmpl_len;
  x->img.recs = x->recs;
  x->img.recs_len = total;
  x->img.n_feat = n_feat;
  x->img.key_bytes = key_bytes;
  x->img.obs_bigram = d->ts->n_b > 0;
  x->img.A = x->A;
  x->img.S = x->S;
  x->img.F = x->F;
  x->img.meta = *meta;
  return VT_OK;
fail:
  vt_export_free(x);
  return st;
}
