/* engine/train/perc_ckpt.c: the averaged perceptron's checkpoint (perc_ckpt.h). The state: the
 * epochs done, L, the feature count, the clock c, the transitions with their accumulators, then
 * every feature's vector: its entry count, whether it is dense (and has accumulators), its keys
 * (sparse), then its weights and accumulators, in entry order (the order the updates made,
 * which later sums follow). */
#include "train/perc_ckpt.h"

#include <stdlib.h>
#include <string.h>

#include "core/errmsg.h"

#define TRAINER "perceptron"

vt_status vt_perc_ckpt_save(const vt_ckpt *ck, const vt_weights *W, int32_t epoch, int32_t epochs,
                            char *err, size_t errlen) {
  if (!ck || !ck->path || !ck->writer || !vt_ckpt_due(ck, epoch, epochs)) return VT_OK;
  vt_ckpt_io io;
  vt_status st = vt_ckpt_begin(&io, ck, TRAINER, epoch, err, errlen);
  if (st != VT_OK) return st;
  const size_t LL = (size_t)W->L * (size_t)W->L, L = (size_t)W->L;
  vt_ckpt_put(&io, &epoch, sizeof epoch);
  vt_ckpt_put(&io, &W->L, sizeof W->L);
  vt_ckpt_put(&io, &W->n_feat, sizeof W->n_feat);
  vt_ckpt_put(&io, &W->c, sizeof W->c);
  vt_ckpt_put(&io, W->A, LL * sizeof *W->A);
  vt_ckpt_put(&io, W->Au, LL * sizeof *W->Au);
  vt_ckpt_put(&io, W->S, L * sizeof *W->S);
  vt_ckpt_put(&io, W->Su, L * sizeof *W->Su);
  vt_ckpt_put(&io, W->F, L * sizeof *W->F);
  vt_ckpt_put(&io, W->Fu, L * sizeof *W->Fu);
  /* A vector's head, keys (sparse), weights and accumulators: a piece each. */
  unsigned char *head = NULL;
  double *wv = NULL;
  const size_t most = LL > L ? LL : L; /* entries a vector may hold */
  if (!(head = malloc(5 + most * sizeof(int32_t))) || !(wv = malloc(most * sizeof *wv))) {
    vt_ckpt_bad(&io);
  }
  for (int32_t f = 0; f < W->n_feat && head && wv; f++) {
    const vt_wvec *v = &W->v[f];
    const int32_t n = v->n;
    const unsigned char kind = (unsigned char)((v->dw != NULL) | (v->u != NULL) << 1);
    size_t hl = 5;
    memcpy(head, &n, 4);
    head[4] = kind;
    if (n > 0 && !v->dw) {
      for (int32_t i = 0; i < n; i++) {
        memcpy(head + hl, &v->e[i].key, 4);
        hl += 4;
        wv[i] = v->e[i].w;
      }
    }
    vt_ckpt_put(&io, head, 5); /* the pieces vec_load gets */
    vt_ckpt_put(&io, head + 5, hl - 5);
    if (n == 0) continue;
    vt_ckpt_put(&io, v->dw ? v->dw : wv, (size_t)n * sizeof *wv);
    if (v->u) vt_ckpt_put(&io, v->u, (size_t)n * sizeof *v->u);
  }
  free(head);
  free(wv);
  return vt_ckpt_commit(&io, err, errlen);
}

/* Reads one feature's vector into v (empty) of a model of L labels, its head and keys through
 * `head` (room for 5 + 4 L^2 bytes); -1 when it does not fit (a count or key out of range) or
 * memory ran out (*nomem set). */
static int vec_load(vt_ckpt_io *io, vt_wvec *v, int32_t L, int bigram, unsigned char *head,
                    int *nomem) {
  int32_t n;
  vt_ckpt_get(io, head, 5);
  memcpy(&n, head, 4);
  const unsigned char kind = head[4];
  const int dense = kind & 1, has_u = (kind >> 1) & 1;
  const int64_t keys = bigram ? (int64_t)L * L : L;
  if (n < 0 || n > keys || kind > 3 || (dense && (bigram || n != L)) || io->bad) return -1;
  if (n > 0 && !dense) vt_ckpt_get(io, head + 5, (size_t)n * 4);
  if (n == 0) return 0;
  if (dense) {
    if (!(v->dw = malloc((size_t)n * sizeof *v->dw))) goto nomem;
    vt_ckpt_get(io, v->dw, (size_t)n * sizeof *v->dw);
  } else {
    double *w = malloc((size_t)n * sizeof *w);
    if (!w || !(v->e = malloc((size_t)n * sizeof *v->e))) {
      free(w);
      goto nomem;
    }
    vt_ckpt_get(io, w, (size_t)n * sizeof *w);
    for (int32_t i = 0; i < n; i++) {
      memcpy(&v->e[i].key, head + 5 + 4 * (size_t)i, 4);
      v->e[i].w = w[i];
      if (v->e[i].key < 0 || v->e[i].key >= keys) {
        free(w);
        return -1;
      }
    }
    free(w);
  }
  if (has_u) {
    if (!(v->u = malloc((size_t)n * sizeof *v->u))) goto nomem;
    vt_ckpt_get(io, v->u, (size_t)n * sizeof *v->u);
  }
  v->n = v->cap = n;
  return 0;
nomem:
  *nomem = 1;
  return -1;
}

vt_status vt_perc_ckpt_load(const vt_ckpt *ck, vt_weights *W, int32_t *epoch, char *err,
                            size_t errlen) {
  *epoch = 0;
  if (!ck || !ck->path) return VT_OK;
  vt_ckpt_io io;
  int found, nomem = 0;
  vt_status st = vt_ckpt_open(&io, ck, TRAINER, &found, err, errlen);
  if (st != VT_OK || !found) return st;
  int32_t e, L, n_feat;
  double c;
  const size_t LL = (size_t)W->L * (size_t)W->L, Ls = (size_t)W->L;
  vt_ckpt_get(&io, &e, sizeof e);
  vt_ckpt_get(&io, &L, sizeof L);
  vt_ckpt_get(&io, &n_feat, sizeof n_feat);
  vt_ckpt_get(&io, &c, sizeof c);
  if (L != W->L || n_feat != W->n_feat || e < 1) {
    vt_ckpt_bad(&io);
  } else {
    W->c = c;
    vt_ckpt_get(&io, W->A, LL * sizeof *W->A);
    vt_ckpt_get(&io, W->Au, LL * sizeof *W->Au);
    vt_ckpt_get(&io, W->S, Ls * sizeof *W->S);
    vt_ckpt_get(&io, W->Su, Ls * sizeof *W->Su);
    vt_ckpt_get(&io, W->F, Ls * sizeof *W->F);
    vt_ckpt_get(&io, W->Fu, Ls * sizeof *W->Fu);
    unsigned char *head = malloc(5 + 4 * (LL > Ls ? LL : Ls));
    if (!head) nomem = 1;
    for (int32_t f = 0; f < n_feat && head && !io.bad; f++)
      if (vec_load(&io, &W->v[f], L, W->bigram[f], head, &nomem)) vt_ckpt_bad(&io);
    free(head);
  }
  st = vt_ckpt_close(&io, err, errlen);
  if (nomem) st = vt_fail_into(err, errlen, VT_ENOMEM, "train: out of memory");
  if (st == VT_OK) *epoch = e;
  return st;
}
