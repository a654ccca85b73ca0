/* engine/train/crf_grad.c: the corpus objective and gradient, batched and threaded (crf_grad.h). */
#include "train/crf_grad.h"

#include <cblas.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "train/crf_fb.h"
#include "train/crf_kern.h"
#include "train/crf_plan.h"

/* Rows of a transition block: fixed, so that every product (and so every sum) is the same
 * whatever the thread count. The threads take the batches in rounds: each computes its batch's
 * scores, forward-backward and state counts (into its own buffer), then all add the round's
 * counts to the gradient in batch order, split by attribute ranges: each weight's sum runs in
 * batch order, then row order, whatever the thread count. */
#define TRANS_ROWS 16
/* Transition pairs of a block of the sparse form's counts: fixed, likewise. */
#define TRANS_PAIRS 4096

struct vt_crf_grad {
  const vt_crf_data *d;
  const vt_crf_feats *f;
  int32_t threads;
  int64_t n_batches;
  int64_t *batch_off; /* n_batches + 1 sequence offsets */
  vt_crf_batch *bt;   /* one per thread */
  vt_crf_plan *plan;  /* one per batch */
  int64_t cnt_max;    /* the largest plan's counts (crf_plan.h) */
  double *cnt;        /* threads x cnt_max: each slot's batch counts */
  double *M, *GA;     /* L x L (dense transitions) */
  int sparse;         /* the transitions are in sp (crf_sparse.h), not M */
  vt_crf_sparse sp;
  double *GE;        /* sp.nnz: the sparse form's transition counts */
  double *GB;        /* threads x sp.nnz: each batch's own counts, added to GE in corpus order */
  double *obs;       /* f->n */
  double *scratch;   /* threads x (L + 32): the state-feature loops' rows (crf_plan.h) */
  double *sent_loss; /* n_sent */
};

void vt_crf_grad_destroy(vt_crf_grad *G) {
  if (!G) return;
  if (G->bt)
    for (int32_t i = 0; i < G->threads; i++) vt_crf_batch_free(&G->bt[i]);
  free(G->bt);
  if (G->plan)
    for (int64_t i = 0; i < G->n_batches; i++) vt_crf_plan_free(&G->plan[i]);
  free(G->plan);
  free(G->batch_off);
  free(G->cnt);
  free(G->M);
  free(G->GA);
  free(G->GE);
  free(G->GB);
  vt_crf_sparse_free(&G->sp);
  free(G->obs);
  free(G->scratch);
  free(G->sent_loss);
  free(G);
}

int32_t vt_crf_grad_threads(const vt_crf_grad *G) { return G->threads; }

vt_status vt_crf_grad_create(vt_crf_grad **out, const vt_crf_data *d, const vt_crf_feats *f,
                             int32_t threads) {
  vt_status st = VT_ENOMEM;
  vt_crf_grad *G = calloc(1, sizeof *G);
  *out = NULL;
  if (!G) return VT_ENOMEM;
  G->d = d;
  G->f = f;
  G->threads = threads > 0 ? threads : omp_get_max_threads();
  if (G->threads < 1) G->threads = 1;
  /* The BLAS calls run inside the threads of this file: BLAS itself stays on one. */
  openblas_set_num_threads(1);
  const size_t LL = (size_t)f->L * (size_t)f->L;
  /* A batch's four tables take at most about 32 MB. */
  int64_t budget = ((int64_t)32 << 20) / ((int64_t)f->L * 8 * 6);
  if (budget > 65536) budget = 65536;
  if (budget < 64) budget = 64;
  G->batch_off = malloc(((size_t)d->n_sent + 1) * sizeof *G->batch_off);
  G->bt = calloc((size_t)G->threads, sizeof *G->bt);
  G->M = malloc(LL * sizeof *G->M);
  G->GA = malloc(LL * sizeof *G->GA);
  G->obs = malloc((size_t)(f->n ? f->n : 1) * sizeof *G->obs);
  G->scratch = malloc((size_t)G->threads * ((size_t)f->L + 32) * sizeof *G->scratch);
  G->sent_loss = malloc((size_t)(d->n_sent ? d->n_sent : 1) * sizeof *G->sent_loss);
  if (!G->batch_off || !G->bt || !G->M || !G->GA || !G->obs || !G->scratch || !G->sent_loss)
    goto done;
  /* The batches: equal shares of the tokens, as many as the budget needs, rounded up to a
   * multiple of 16 while a share keeps 1,024 tokens, so that the rounds of vt_crf_grad_eval keep
   * 1, 2, 4, 8 or 16 threads equally busy. They never depend on the thread count. */
  const int64_t n_tok = d->sent_off[d->n_sent];
  int64_t want = (n_tok + budget - 1) / budget;
  if ((want + 15) / 16 * 16 * 1024 <= n_tok) want = (want + 15) / 16 * 16;
  if (want < 1) want = 1;
  int64_t nb = 0, tok = 0;
  G->batch_off[0] = 0;
  for (int64_t s = 0; s < d->n_sent; s++) {
    if (s > G->batch_off[nb] && tok >= n_tok * (nb + 1) / want) G->batch_off[++nb] = s;
    tok += d->sent_off[s + 1] - d->sent_off[s];
  }
  if (d->n_sent > 0) G->batch_off[++nb] = d->n_sent;
  G->n_batches = nb;
  vt_crf_observed(d, f, G->obs);
  if ((G->sparse = vt_crf_sparse_fits(f))) {
    if (vt_crf_sparse_init(&G->sp, f) != VT_OK) goto done;
    const size_t nnz = (size_t)(G->sp.nnz ? G->sp.nnz : 1);
    if (!(G->GE = malloc(nnz * sizeof *G->GE)) ||
        !(G->GB = malloc((size_t)G->threads * nnz * sizeof *G->GB)))
      goto done;
  }
  /* Each batch's plan, once: the batches never change. */
  int unit = 1;
  for (int64_t i = 0; d->val && unit && i < d->tok_off[d->n_tok]; i++)
    unit = d->val[i] == 1.0 || d->val[i] == 0.0; /* the plans leave the zeros out */
  int64_t *count = calloc((size_t)(d->n_attr ? d->n_attr : 1), sizeof *count);
  G->plan = calloc((size_t)(nb ? nb : 1), sizeof *G->plan);
  if (!count || !G->plan) {
    free(count);
    goto done;
  }
  for (int64_t b = 0; b < nb; b++)
    if (vt_crf_batch_set(&G->bt[0], d, G->batch_off[b], G->batch_off[b + 1]) != VT_OK ||
        vt_crf_plan_make(&G->plan[b], &G->bt[0], d, f, count, unit) != VT_OK) {
      free(count);
      goto done;
    }
  free(count);
  for (int64_t b = 0; b < nb; b++)
    if (G->plan[b].cnt[G->plan[b].n] > G->cnt_max) G->cnt_max = G->plan[b].cnt[G->plan[b].n];
  if (!(G->cnt = malloc((size_t)G->threads * (size_t)(G->cnt_max + 1) * sizeof *G->cnt))) goto done;
  st = VT_OK;
done:
  if (st != VT_OK)
    vt_crf_grad_destroy(G);
  else
    *out = G;
  return st;
}

/* Adds the counts c (vt_crf_plan_counts) of plan p's attributes in [a0, a1) to g. */
static void counts_add(const vt_crf_plan *p, const vt_crf_feats *f, const double *c, int32_t a0,
                       int32_t a1, double *g) {
  int32_t lo = 0, hi = p->n; /* the first attribute >= a0 */
  while (lo < hi) {
    const int32_t mid = lo + (hi - lo) / 2;
    if (p->attr[mid] < a0)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (int32_t j = lo; j < p->n && p->attr[j] < a1; j++) {
    double *gq = g + f->st_off[p->attr[j]];
    const double *cq = c + p->cnt[j];
    const int64_t m = p->cnt[j + 1] - p->cnt[j];
    for (int64_t i = 0; i < m; i++) gq[i] += cq[i];
  }
}

double vt_crf_grad_eval(vt_crf_grad *G, const double *w, double *g) {
  const vt_crf_data *d = G->d;
  const vt_crf_feats *f = G->f;
  const int32_t L = f->L, P = G->threads;
  const size_t LL = (size_t)L * (size_t)L;
  const int64_t n_attr = f->n_attr;
  const int32_t parts = P > 1 ? 16 * P : 1; /* attribute ranges of the counts' addition */
  double mA;
  int failed = 0;
  const vt_crf_sparse *sp = G->sparse ? &G->sp : NULL;
  const int64_t nnz = sp ? sp->nnz : 0;
  const int32_t n_tparts =
      sp ? (int32_t)((nnz + TRANS_PAIRS - 1) / TRANS_PAIRS) : (L + TRANS_ROWS - 1) / TRANS_ROWS;
  if (sp)
    vt_crf_sparse_set(&G->sp, w, 1.0, &mA);
  else
    vt_crf_trans_exp(f, w, 1.0, G->M, &mA);
  if (g) {
    if (sp)
      memset(G->GE, 0, (size_t)nnz * sizeof *G->GE);
    else
      memset(G->GA, 0, LL * sizeof *G->GA);
  }
#pragma omp parallel num_threads(P)
  {
    double *scratch = G->scratch + (size_t)omp_get_thread_num() * ((size_t)L + 32);
    if (g)
#pragma omp for schedule(static)
      for (int64_t i = 0; i < f->n; i++) g[i] = 0;
    for (int64_t b0 = 0; b0 < G->n_batches; b0 += P) {
      const int32_t here = (int32_t)(G->n_batches - b0 < P ? G->n_batches - b0 : P);
#pragma omp for schedule(static, 1)
      for (int32_t k = 0; k < here; k++) {
        vt_crf_batch *bt = &G->bt[k];
        if (vt_crf_batch_set(bt, d, G->batch_off[b0 + k], G->batch_off[b0 + k + 1]) != VT_OK) {
#pragma omp atomic write
          failed = 1;
          bt->nb = 0;
          bt->rows = 0;
          bt->Tmax = 0;
          continue;
        }
        memset(bt->P, 0, (size_t)bt->rows * (size_t)L * sizeof *bt->P);
        vt_crf_plan_scores(&G->plan[b0 + k], f, w, L, bt->P, scratch);
        for (int64_t r = 0; r < bt->rows; r++) bt->gs[r] = bt->P[(size_t)r * (size_t)L + bt->yr[r]];
        double *gb = sp ? G->GB + (size_t)k * (size_t)nnz : NULL;
        if (gb) memset(gb, 0, (size_t)nnz * sizeof *gb);
        vt_crf_fb_batch(bt, d, f, w, 1.0, G->M, sp, mA, gb);
        for (int32_t i = 0; i < bt->nb; i++) G->sent_loss[bt->sent[i]] = bt->loss[i];
        if (g)
          vt_crf_plan_counts(&G->plan[b0 + k], f, bt->P, L,
                             G->cnt + (size_t)k * (size_t)(G->cnt_max + 1), scratch);
      }
      int stop;
#pragma omp atomic read
      stop = failed;
      if (g && !stop)
#pragma omp for schedule(dynamic, 1)
        for (int32_t part = 0; part < parts + n_tparts; part++)
          for (int32_t k = 0; k < here; k++) {
            if (part < parts) {
              const int32_t a0 = (int32_t)(n_attr * part / parts);
              const int32_t a1 = (int32_t)(n_attr * (part + 1) / parts);
              counts_add(&G->plan[b0 + k], f, G->cnt + (size_t)k * (size_t)(G->cnt_max + 1), a0, a1,
                         g);
            } else if (sp) {
              const int64_t e0 = (int64_t)(part - parts) * TRANS_PAIRS;
              const int64_t e1 = e0 + TRANS_PAIRS < nnz ? e0 + TRANS_PAIRS : nnz;
              const double *gb = G->GB + (size_t)k * (size_t)nnz;
              for (int64_t e = e0; e < e1; e++) G->GE[e] += gb[e];
            } else {
              int32_t i0 = (part - parts) * TRANS_ROWS;
              int32_t i1 = i0 + TRANS_ROWS < L ? i0 + TRANS_ROWS : L;
              vt_crf_fb_trans_grad(&G->bt[k], L, i0, i1, G->GA);
            }
          }
    }
    /* The transition counts into g, then the observed counts out of all of it. */
    if (g) {
      if (sp) {
#pragma omp for schedule(static)
        for (int64_t e = 0; e < nnz; e++) g[sp->id[e]] = sp->m[e] * G->GE[e];
      } else {
#pragma omp for schedule(static)
        for (size_t i = 0; i < LL; i++)
          if (f->tr_id[i] >= 0) g[f->tr_id[i]] = G->M[i] * G->GA[i];
      }
#pragma omp for schedule(static)
      for (int64_t i = 0; i < f->n; i++) g[i] -= G->obs[i];
    }
  }
  if (failed) return NAN;
  double loss = 0;
  for (int64_t s = 0; s < d->n_sent; s++) loss += G->sent_loss[s];
  return loss;
}
