/* engine/train/crf_grad.c: the corpus objective and gradient, batched, threaded and summed
 * exactly (crf_grad.h). */
#include "train/crf_grad.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "core/fix128.h"
#include "train/blas.h"
#include "train/crf_fb.h"
#include "train/crf_kern.h"
#include "train/crf_plan.h"

/* Rows of a dense transition block, and transition pairs of a block of the sparse form's counts:
 * the parts the threads add to the accumulator after a round (with the attribute ranges of the
 * state counts), so that no two threads add to one entry. */
#define TRANS_ROWS 16
#define TRANS_PAIRS 4096
/* Attributes ahead whose accumulator entries counts_add asks the cache for. */
#define PREFETCH_AHEAD 16

struct vt_crf_grad {
  const vt_crf_data *d;
  const vt_crf_feats *f;
  vt_crf_span span; /* n_tok: the whole corpus's; comm may be NULL */
  int32_t threads;
  int64_t n_batches;
  int64_t *batch_off; /* n_batches + 1 sequence offsets */
  vt_crf_batch *bt;   /* one per thread */
  vt_crf_plan *plan;  /* one per batch */
  int64_t cnt_max;    /* the largest plan's counts (crf_plan.h) */
  double *cnt;        /* threads x (cnt_max + 1): each slot's batch state gradient */
  double *M;          /* L x L (dense transitions) */
  int sparse;         /* the transitions are in sp (crf_sparse.h), not M */
  vt_crf_sparse sp;
  double *GB;       /* threads x gb_size: each batch's transition counts */
  size_t gb_size;   /* sp.nnz, or L x L when dense */
  int64_t *obs_tr;  /* n_trans: the observed transition counts of d (weight id - n_state) */
  vt_fix128 *acc;   /* n + 1: the gradient, then the loss */
  int acc_ready;    /* acc[0, n) holds its starting values (acc_start) */
  double *scratch;  /* threads x (L + 32): the state-feature loops' rows (crf_plan.h) */
  vt_status status; /* why the last evaluation gave NaN */
};

int64_t vt_crf_batch_count(int64_t n_tok, int32_t L) {
  if (n_tok <= 0) return 1;
  if (L < 1) L = 1;
  /* A batch's four tables take at most about 32 MB. */
  int64_t budget = ((int64_t)32 << 20) / ((int64_t)L * 8 * 6);
  if (budget > 65536) budget = 65536;
  if (budget < 64) budget = 64;
  int64_t want = n_tok / budget + (n_tok % budget != 0);
  if ((want + 15) / 16 * 16 <= n_tok / 1024) want = (want + 15) / 16 * 16;
  return want < 1 ? 1 : want;
}

int64_t vt_crf_batch_of(int64_t tok_before, int64_t n_tok, int64_t want) {
  if (n_tok <= 0 || want <= 1) return 0;
  if (tok_before >= n_tok) return want - 1;
  if (tok_before <= 0) return 0;
  if (tok_before <= INT64_MAX / want) return tok_before * want / n_tok;
  /* Binary long multiplication, keeping q * n_tok + r = tok_before * (the bits of want so far)
   * with r < n_tok: 2r and r + tok_before stay below 2 n_tok < 2^63. */
  int64_t q = 0, r = 0;
  for (int bit = 62; bit >= 0; bit--) {
    q <<= 1;
    r <<= 1;
    if (r >= n_tok) {
      r -= n_tok;
      q++;
    }
    if ((want >> bit) & 1) {
      r += tok_before;
      if (r >= n_tok) {
        r -= n_tok;
        q++;
      }
    }
  }
  return q;
}

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
  free(G->GB);
  vt_crf_sparse_free(&G->sp);
  free(G->obs_tr);
  free(G->acc);
  free(G->scratch);
  free(G);
}

int32_t vt_crf_grad_threads(const vt_crf_grad *G) { return G->threads; }

vt_status vt_crf_grad_status(const vt_crf_grad *G) { return G->status; }

vt_status vt_crf_grad_create(vt_crf_grad **out, const vt_crf_data *d, const vt_crf_feats *f,
                             int32_t threads, const vt_crf_span *span) {
  vt_status st = VT_ENOMEM;
  vt_crf_grad *G = calloc(1, sizeof *G);
  *out = NULL;
  if (!G) return VT_ENOMEM;
  G->d = d;
  G->f = f;
  const int64_t d_tok = d->sent_off[d->n_sent];
  if (span)
    G->span = *span;
  else
    G->span.n_tok = d_tok;
  G->threads = threads > 0 ? threads : omp_get_max_threads();
  if (G->threads < 1) G->threads = 1;
  if (G->span.tok_before < 0 || d_tok > G->span.n_tok - G->span.tok_before) {
    st = VT_EINVAL;
    goto done;
  }
  const size_t LL = (size_t)f->L * (size_t)f->L;
  G->batch_off = malloc(((size_t)d->n_sent + 1) * sizeof *G->batch_off);
  G->bt = calloc((size_t)G->threads, sizeof *G->bt);
  G->M = malloc(LL * sizeof *G->M);
  G->acc = malloc(((size_t)f->n + 1) * sizeof *G->acc);
  G->obs_tr = calloc((size_t)(f->n_trans ? f->n_trans : 1), sizeof *G->obs_tr);
  G->scratch = malloc((size_t)G->threads * ((size_t)f->L + 32) * sizeof *G->scratch);
  if (!G->batch_off || !G->bt || !G->M || !G->acc || !G->obs_tr || !G->scratch) goto done;
  /* The batches: maximal runs of sentences with the same id under the rule of the whole corpus,
   * whatever part of it d is. */
  const int64_t want = vt_crf_batch_count(G->span.n_tok, f->L);
  int64_t nb = 0, last = -1;
  for (int64_t s = 0; s < d->n_sent; s++) {
    const int64_t id = vt_crf_batch_of(G->span.tok_before + d->sent_off[s], G->span.n_tok, want);
    if (s == 0 || id != last) G->batch_off[nb++] = s;
    last = id;
  }
  G->batch_off[nb] = d->n_sent;
  G->n_batches = nb;
  /* The observed transition counts: integers, so exact in any order. */
  for (int64_t s = 0; s < d->n_sent; s++)
    for (int64_t t = d->sent_off[s] + 1; t < d->sent_off[s + 1]; t++) {
      const int32_t k = f->tr_id[(size_t)d->gold[t - 1] * (size_t)f->L + (size_t)d->gold[t]];
      if (k >= 0) G->obs_tr[k - f->n_state]++;
    }
  if ((G->sparse = vt_crf_sparse_fits(f)) && vt_crf_sparse_init(&G->sp, f) != VT_OK) goto done;
  G->gb_size = G->sparse ? (size_t)G->sp.nnz : (size_t)f->L * (size_t)f->L;
  if (!(G->GB = malloc((size_t)G->threads * (G->gb_size ? G->gb_size : 1) * sizeof *G->GB)))
    goto done;
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

/* The value acc[i] starts an evaluation with: 0 for a state feature (each batch's counts carry
 * the observed ones), minus the observed count for a transition. */
static inline vt_fix128 acc_start(const vt_crf_grad *G, int64_t i) {
  vt_fix128 r = {0, 0};
  if (i >= G->f->n_state) r.hi = (uint64_t)0 - (uint64_t)G->obs_tr[i - G->f->n_state];
  return r;
}

/* Adds the counts c (vt_crf_plan_counts) of plan p's attributes in [a0, a1) to acc. */
static void counts_add(const vt_crf_plan *p, const vt_crf_feats *f, const double *c, int32_t a0,
                       int32_t a1, vt_fix128 *acc) {
  int32_t lo = 0, hi = p->n; /* the first attribute >= a0 */
  while (lo < hi) {
    const int32_t mid = lo + (hi - lo) / 2;
    if (p->attr[mid] < a0)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (int32_t j = lo; j < p->n && p->attr[j] < a1; j++) {
    /* The attributes' ranges lie far apart in acc: the loads would wait on memory. */
    if (j + 2 * PREFETCH_AHEAD < p->n)
      __builtin_prefetch(&f->st_off[p->attr[j + 2 * PREFETCH_AHEAD]]);
    if (j + PREFETCH_AHEAD < p->n)
      __builtin_prefetch(acc + f->st_off[p->attr[j + PREFETCH_AHEAD]], 1);
    vt_fix128 *aq = acc + f->st_off[p->attr[j]];
    const double *cq = c + p->cnt[j];
    const int64_t m = p->cnt[j + 1] - p->cnt[j];
    for (int64_t i = 0; i < m; i++) vt_fix_add_double(&aq[i], cq[i]);
  }
}

/* Adds rows i0..i1-1 of a batch's dense transition counts TB (L x L, summed by its
 * forward-backward), times M, to acc. */
static void trans_add(const vt_crf_feats *f, const double *M, int32_t i0, int32_t i1,
                      const double *TB, vt_fix128 *acc) {
  const int32_t L = f->L;
  for (int32_t i = i0; i < i1; i++)
    for (int32_t j = 0; j < L; j++) {
      const size_t ij = (size_t)i * (size_t)L + (size_t)j;
      if (f->tr_id[ij] >= 0) vt_fix_add_double(&acc[f->tr_id[ij]], M[ij] * TB[ij]);
    }
}

double vt_crf_grad_eval(vt_crf_grad *G, const double *w, double *g) {
  const vt_crf_data *d = G->d;
  const vt_crf_feats *f = G->f;
  const vt_train_comm *comm = G->span.comm;
  const int32_t L = f->L, P = G->threads;
  const int64_t n = f->n, n_attr = f->n_attr;
  const int32_t parts = P > 1 ? 16 * P : 1; /* attribute ranges of the counts' addition */
  double mA;
  int failed = 0;
  /* Sequences of the job whose loss is +inf, or NaN; processes out of memory. */
  int64_t bad[3] = {0, 0, 0};
  vt_fix128 *acc = G->acc;
  const vt_crf_sparse *sp = G->sparse ? &G->sp : NULL;
  const int64_t nnz = sp ? sp->nnz : 0;
  const int32_t n_tparts =
      sp ? (int32_t)((nnz + TRANS_PAIRS - 1) / TRANS_PAIRS) : (L + TRANS_ROWS - 1) / TRANS_ROWS;
  const size_t gb_size = G->gb_size;
  G->status = VT_OK;
  if (sp)
    vt_crf_sparse_set(&G->sp, w, 1.0, &mA);
  else
    vt_crf_trans_exp(f, w, 1.0, G->M, &mA);
  acc[n].lo = acc[n].hi = 0;
#pragma omp parallel num_threads(P)
  {
    const size_t tid = (size_t)omp_get_thread_num();
    double *scratch = G->scratch + tid * ((size_t)L + 32);
    vt_fix128 loss = {0, 0};
    int64_t n_inf = 0, n_nan = 0;
    /* The transitions start at minus the observed counts; the states' are in each batch's. */
    if (g && !G->acc_ready)
#pragma omp for schedule(static)
      for (int64_t i = 0; i < n; i++) acc[i] = acc_start(G, i);
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
        double *gb = G->GB + (size_t)k * gb_size;
        memset(gb, 0, gb_size * sizeof *gb);
        vt_crf_fb_batch(bt, d, f, w, 1.0, G->M, sp, mA, gb);
        for (int32_t i = 0; i < bt->nb; i++) {
          if (isnan(bt->loss[i]))
            n_nan++;
          else if (!(fabs(bt->loss[i]) < 0x1p60)) /* infinite, or past the exact sum's range */
            n_inf++;
          else
            vt_fix_add_double(&loss, bt->loss[i]);
        }
        if (!g) continue;
        /* Each row's marginals less its gold label's indicator: the counts taken from them are
         * the batch's expected minus observed state counts. */
        for (int64_t r = 0; r < bt->rows; r++) bt->P[(size_t)r * (size_t)L + bt->yr[r]] -= 1.0;
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
                         acc);
            } else if (sp) {
              const int64_t e0 = (int64_t)(part - parts) * TRANS_PAIRS;
              const int64_t e1 = e0 + TRANS_PAIRS < nnz ? e0 + TRANS_PAIRS : nnz;
              const double *gb = G->GB + (size_t)k * gb_size;
              for (int64_t e = e0; e < e1; e++)
                vt_fix_add_double(&acc[sp->id[e]], sp->m[e] * gb[e]);
            } else {
              const int32_t i0 = (part - parts) * TRANS_ROWS;
              const int32_t i1 = i0 + TRANS_ROWS < L ? i0 + TRANS_ROWS : L;
              trans_add(f, G->M, i0, i1, G->GB + (size_t)k * gb_size, acc);
            }
          }
    }
#pragma omp critical
    {
      vt_fix_add(&acc[n], loss);
      bad[0] += n_inf;
      bad[1] += n_nan;
    }
  }
  if (g) G->acc_ready = 0;
  if (failed) {
    bad[2] = 1;
    G->status = VT_ENOMEM;
  }
  /* One sum of every accumulator over the processes, then the flags. */
  if (comm && (comm->sum_fix(comm->ctx, g ? acc : acc + n, g ? n + 1 : 1) != 0 ||
               comm->sum_i64(comm->ctx, bad, 3) != 0)) {
    G->status = VT_ECANCELED;
    return NAN;
  }
  if (bad[2]) {
    if (!failed) G->status = VT_ECANCELED;
    return NAN;
  }
  /* The doubles, and acc set for the next evaluation on the way. */
  if (g) {
#pragma omp parallel for num_threads(P) schedule(static)
    for (int64_t i = 0; i < n; i++) {
      g[i] = vt_fix_to_double(acc[i]);
      acc[i] = acc_start(G, i);
    }
    G->acc_ready = 1;
  }
  if (bad[1]) return NAN;
  if (bad[0]) return INFINITY;
  return vt_fix_to_double(acc[n]);
}
