/* engine/train/crf_fb.c: batched exp-space forward-backward (crf_fb.h). */
#include "train/crf_fb.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "train/blas.h"
#include "train/crf_sparse.h"

void vt_crf_batch_free(vt_crf_batch *b) {
  free(b->sent);
  free(b->n_at);
  free(b->off_at);
  free(b->P);
  free(b->Al);
  free(b->Be);
  free(b->Y);
  free(b->S);
  free(b->gs);
  free(b->AlT);
  free(b->ysum);
  free(b->tA);
  free(b->tO);
  free(b->yr);
  free(b->loss);
  memset(b, 0, sizeof *b);
}

/* Grows *p to n elements of `size` bytes; 0 or -1. */
static int grow(void **p, size_t n, size_t size) {
  void *q = realloc(*p, (n ? n : 1) * size);
  if (!q) return -1;
  *p = q;
  return 0;
}

vt_status vt_crf_batch_set(vt_crf_batch *b, const vt_crf_data *d, int64_t s0, int64_t s1) {
  const int32_t nb = (int32_t)(s1 - s0);
  int64_t rows = 0;
  int32_t Tmax = 0;
  for (int64_t s = s0; s < s1; s++) {
    int64_t T = d->sent_off[s + 1] - d->sent_off[s];
    rows += T;
    if (T > Tmax) Tmax = (int32_t)T;
  }
  if (nb > b->cap_nb) {
    if (grow((void **)&b->sent, (size_t)nb, sizeof *b->sent) ||
        grow((void **)&b->loss, (size_t)nb, sizeof *b->loss) ||
        grow((void **)&b->ysum, (size_t)nb, sizeof *b->ysum) ||
        grow((void **)&b->tA, (size_t)nb * (size_t)d->L, sizeof *b->tA) ||
        grow((void **)&b->tO, (size_t)nb * (size_t)d->L, sizeof *b->tO))
      return VT_ENOMEM;
    b->cap_nb = nb;
  }
  if (Tmax > b->cap_T) {
    if (grow((void **)&b->n_at, (size_t)Tmax, sizeof *b->n_at) ||
        grow((void **)&b->off_at, (size_t)Tmax + 1, sizeof *b->off_at))
      return VT_ENOMEM;
    b->cap_T = Tmax;
  }
  if (rows > b->cap_rows) {
    size_t n = (size_t)rows * (size_t)d->L;
    if (grow((void **)&b->P, n + VT_CRF_ROW_PAD, sizeof(double)) ||
        grow((void **)&b->Al, n, sizeof(double)) || grow((void **)&b->Be, n, sizeof(double)) ||
        grow((void **)&b->Y, n, sizeof(double)) ||
        grow((void **)&b->S, (size_t)rows, sizeof(double)) ||
        grow((void **)&b->gs, (size_t)rows, sizeof(double)) ||
        grow((void **)&b->AlT, n, sizeof(double)) ||
        grow((void **)&b->yr, (size_t)rows, sizeof(int32_t)))
      return VT_ENOMEM;
    b->cap_rows = rows;
  }
  /* Insertion sort by decreasing length, stable: batches are small. */
  for (int32_t i = 0; i < nb; i++) {
    int64_t s = s0 + i, T = d->sent_off[s + 1] - d->sent_off[s];
    int32_t j = i;
    while (j > 0 && d->sent_off[b->sent[j - 1] + 1] - d->sent_off[b->sent[j - 1]] < T) {
      b->sent[j] = b->sent[j - 1];
      j--;
    }
    b->sent[j] = s;
  }
  b->nb = nb;
  b->Tmax = Tmax;
  b->rows = rows;
  /* what the gathers read past the last row: zeros, never uninitialised memory */
  if (b->P) memset(b->P + (size_t)rows * (size_t)d->L, 0, VT_CRF_ROW_PAD * sizeof *b->P);
  int32_t live = nb;
  b->off_at[0] = 0;
  for (int32_t t = 0; t < Tmax; t++) {
    while (live > 0 && d->sent_off[b->sent[live - 1] + 1] - d->sent_off[b->sent[live - 1]] <= t)
      live--;
    b->n_at[t] = live;
    b->off_at[t + 1] = b->off_at[t] + live;
    for (int32_t k = 0; k < live; k++)
      b->yr[b->off_at[t] + k] = d->gold[d->sent_off[b->sent[k]] + t];
  }
  return VT_OK;
}

void vt_crf_trans_exp(const vt_crf_feats *f, const double *w, double ws, double *M, double *mA) {
  const size_t LL = (size_t)f->L * (size_t)f->L;
  double m = -INFINITY;
  for (size_t i = 0; i < LL; i++) {
    M[i] = f->tr_id[i] >= 0 ? w[f->tr_id[i]] * ws : 0.0;
    if (M[i] > m) m = M[i];
  }
  for (size_t i = 0; i < LL; i++) M[i] = exp(M[i] - m);
  *mA = m;
}

void vt_crf_fb_scores(vt_crf_batch *b, const vt_crf_data *d, const vt_crf_feats *f, const double *w,
                      double ws) {
  const size_t Ls = (size_t)f->L;
  memset(b->P, 0, (size_t)b->rows * Ls * sizeof *b->P);
  for (int32_t t = 0; t < b->Tmax; t++)
    for (int32_t k = 0; k < b->n_at[t]; k++) {
      const int64_t row = b->off_at[t] + k, tok = d->sent_off[b->sent[k]] + t;
      double *E = b->P + (size_t)row * Ls;
      for (int64_t i = d->tok_off[tok]; i < d->tok_off[tok + 1]; i++) {
        const int32_t a = d->attr[i];
        const double v = vt_crf_val(d, i);
        for (int64_t q = f->st_off[a]; q < f->st_off[a + 1]; q++)
          E[f->st_label[q]] += w[q] * ws * v;
      }
      b->gs[row] = E[b->yr[row]];
    }
}

void vt_crf_fb_trans_grad(const vt_crf_batch *b, int32_t L, int32_t i0, int32_t i1, double *GA) {
  if (i1 <= i0 || b->rows == 0) return;
  vt_blas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, i1 - i0, L, (int)b->rows, 1.0, b->Al + i0,
                L, b->Y, L, 1.0, GA + (size_t)i0 * (size_t)L, L);
}
