/* engine/train/crf_fb.c: batched exp-space forward-backward (crf_fb.h). */
#include "train/crf_fb.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
    if (grow((void **)&b->P, n, sizeof(double)) || grow((void **)&b->Al, n, sizeof(double)) ||
        grow((void **)&b->Be, n, sizeof(double)) || grow((void **)&b->Y, n, sizeof(double)) ||
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

/* Divides row[0, L) by its sum and returns the sum. */
static double row_normalize(double *row, int32_t L) {
  double s = 0;
  for (int32_t y = 0; y < L; y++) s += row[y];
  double inv = 1.0 / s;
  for (int32_t y = 0; y < L; y++) row[y] *= inv;
  return s;
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

/* Copies the L x n transposed block tO back into n rows of `out` (row-major), clamping the
 * rounding of the sparse form's sums at 0. */
static void untranspose(const double *tO, int32_t n, int32_t L, double *out) {
  const size_t ns = (size_t)n, Ls = (size_t)L;
  for (size_t k0 = 0; k0 < ns; k0 += 8) /* in tiles of 8 x 8, as vt_crf_transpose */
    for (size_t y0 = 0; y0 < Ls; y0 += 8) {
      const size_t k1 = k0 + 8 < ns ? k0 + 8 : ns, y1 = y0 + 8 < Ls ? y0 + 8 : Ls;
      for (size_t k = k0; k < k1; k++)
        for (size_t y = y0; y < y1; y++) {
          const double v = tO[y * ns + k];
          out[k * Ls + y] = v > 0 ? v : 0.0;
        }
    }
}

int vt_crf_fb_batch(vt_crf_batch *b, const vt_crf_data *d, const vt_crf_feats *f, const double *w,
                    double ws, const double *M, const vt_crf_sparse *sp, double mA, double *G) {
  const int32_t L = f->L, nb = b->nb;
  const size_t Ls = (size_t)L;
  int bad = 0;
  /* Loss starts as minus the gold score plus the shifts; log S_t is added as rows are made. */
  for (int32_t k = 0; k < nb; k++) {
    int64_t s = b->sent[k], t0 = d->sent_off[s], T = d->sent_off[s + 1] - t0;
    double loss = (double)(T - 1) * mA;
    for (int64_t t = 0; t < T; t++) {
      const int64_t row = b->off_at[t] + k;
      double *E = b->P + (size_t)row * Ls;
      double m = E[0];
      for (int32_t y = 1; y < L; y++)
        if (E[y] > m) m = E[y];
      for (int32_t y = 0; y < L; y++) E[y] = exp(E[y] - m);
      loss += m - b->gs[row];
      if (t > 0) {
        int32_t tr = f->tr_id[(size_t)d->gold[t0 + t - 1] * Ls + (size_t)d->gold[t0 + t]];
        if (tr >= 0) loss -= w[tr] * ws;
      }
    }
    b->loss[k] = loss;
  }
  /* Forward: alpha-hat_t = normalize((alpha-hat_{t-1} M) (.) E'_t). */
  for (int32_t t = 0; t < b->Tmax; t++) {
    const int32_t n = b->n_at[t];
    double *Al = b->Al + (size_t)b->off_at[t] * Ls, *P = b->P + (size_t)b->off_at[t] * Ls;
    const double *prev = t > 0 ? b->Al + (size_t)b->off_at[t - 1] * Ls : NULL;
    if (t == 0) {
      memcpy(Al, P, (size_t)n * Ls * sizeof *Al);
    } else if (sp) {
      /* alpha-hat of t-1's live rows, transposed: kept for the backward pass's counts */
      double *aT = b->AlT + (size_t)b->off_at[t - 1] * Ls;
      vt_crf_transpose(prev, n, L, aT);
      vt_crf_sparse_fwd(sp, aT, n, b->tO);
      untranspose(b->tO, n, L, Al);
    } else {
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, L, L, 1.0, prev, L, M, L, 0.0, Al,
                  L);
    }
    for (int32_t k = 0; k < n; k++) {
      double *row = Al + (size_t)k * Ls;
      const double *e = P + (size_t)k * Ls;
      if (t > 0)
        for (int32_t y = 0; y < L; y++) row[y] *= e[y];
      double S = row_normalize(row, L);
      if (!(S > 0) || !isfinite(S)) bad = 1;
      b->loss[k] += log(S);
      b->S[b->off_at[t] + k] = S;
    }
  }
  /* Backward: betahat_{T-1} = 1; Y_t = E'_t (.) betahat_t / S_t; betahat_{t-1} = Y_t M^T. The Y
   * of position t goes to the rows of position t-1 (zero for sequences that end at t-1). */
  for (int32_t t = b->Tmax - 1; t >= 0; t--) {
    const int32_t n = b->n_at[t], nprev = t > 0 ? b->n_at[t - 1] : 0;
    double *Be = b->Be + (size_t)b->off_at[t] * Ls, *P = b->P + (size_t)b->off_at[t] * Ls;
    const int32_t nnext = t + 1 < b->Tmax ? b->n_at[t + 1] : 0;
    for (int32_t k = nnext; k < n; k++) /* the last item of sequence k */
      for (int32_t y = 0; y < L; y++) Be[(size_t)k * Ls + (size_t)y] = 1.0;
    if (t == 0) break;
    double *Yp = b->Y + (size_t)b->off_at[t - 1] * Ls;
    for (int32_t k = 0; k < n; k++) {
      const double inv = 1.0 / b->S[b->off_at[t] + k];
      const double *be = Be + (size_t)k * Ls, *e = P + (size_t)k * Ls;
      double *yr = Yp + (size_t)k * Ls;
      for (int32_t y = 0; y < L; y++) yr[y] = e[y] * be[y] * inv;
    }
    memset(Yp + (size_t)n * Ls, 0, (size_t)(nprev - n) * Ls * sizeof *Yp);
    double *Bp = b->Be + (size_t)b->off_at[t - 1] * Ls;
    if (sp) {
      for (int32_t k = 0; k < n; k++) {
        double sum = 0;
        for (int32_t y = 0; y < L; y++) sum += Yp[(size_t)k * Ls + (size_t)y];
        b->ysum[k] = sum;
      }
      vt_crf_transpose(Yp, n, L, b->tA);
      vt_crf_sparse_bwd(sp, b->tA, b->ysum, b->AlT + (size_t)b->off_at[t - 1] * Ls, n, b->tO, G);
      untranspose(b->tO, n, L, Bp);
    } else {
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, L, L, 1.0, Yp, L, M, L, 0.0, Bp, L);
    }
  }
  /* The rows of the last position have no Y. */
  const int64_t last = b->Tmax > 0 ? b->off_at[b->Tmax - 1] : 0;
  if (b->Tmax > 0)
    memset(b->Y + (size_t)last * Ls, 0, (size_t)(b->rows - last) * Ls * sizeof *b->Y);
  /* Marginals: alpha-hat (.) beta-hat, into P. */
  for (size_t i = 0; i < (size_t)b->rows * Ls; i++) b->P[i] = b->Al[i] * b->Be[i];
  if (bad)
    for (int32_t k = 0; k < nb; k++)
      if (!isfinite(b->loss[k])) b->loss[k] = INFINITY;
  return bad ? -1 : 0;
}

void vt_crf_fb_trans_grad(const vt_crf_batch *b, int32_t L, int32_t i0, int32_t i1, double *GA) {
  if (i1 <= i0 || b->rows == 0) return;
  cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, i1 - i0, L, (int)b->rows, 1.0, b->Al + i0, L,
              b->Y, L, 1.0, GA + (size_t)i0 * (size_t)L, L);
}
