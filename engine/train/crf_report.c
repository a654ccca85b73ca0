/* engine/train/crf_report.c: what is reported of CRF weights: their item accuracy on development
 * data, their norm and active count (crf_report.h). */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "train/crf_report.h"

double vt_crf_accuracy(const vt_crf_data *dev, const vt_crf_feats *f, const double *w,
                       int32_t threads) {
  return vt_crf_dev_eval(dev, f, w, threads, NULL);
}

/* Decodes every sequence of dev with weights w (plain Viterbi when `viterbi`, else the default
 * decoder for L labels: both exact, their ties may differ) into *right (items tagged right) and
 * *wrong_seqs (sequences with an item wrong), and `counts` as vt_crf_dev_eval says. Returns 0, or
 * -1 when memory runs out or dev has no item. */
static int eval(const vt_crf_data *dev, const vt_crf_feats *f, const double *w, int32_t threads,
                int viterbi, int64_t *counts, int64_t *right_out, int64_t *wrong_seqs) {
  const int32_t L = f->L;
  const size_t Ls = (size_t)L;
  int rc = -1;
  vt_trans *trans = NULL;
  double *A = calloc(Ls * Ls, sizeof *A);
  int32_t *rank = malloc(Ls * sizeof *rank);
  int64_t right = 0, wrong = 0;
  int failed = 0;
  if (counts) memset(counts, 0, (2 * Ls + 1) * sizeof *counts);
  if (!A || !rank || dev->n_tok == 0) goto done;
  for (size_t i = 0; i < Ls * Ls; i++)
    if (f->tr_id[i] >= 0) A[i] = w[f->tr_id[i]];
  for (int32_t y = 0; y < L; y++) rank[y] = y;
  if (vt_trans_create(&trans, L, A, NULL, NULL, rank) != VT_OK) goto done;
  vt_decode_opts opts;
  vt_decode_opts_default(&opts, L, 1);
  if (viterbi) opts.algo = VT_ALGO_VITERBI;
#pragma omp parallel num_threads(threads > 0 ? threads : omp_get_max_threads())                    \
    reduction(+ : right, wrong)
  {
    vt_arena *arena = NULL;
    if (vt_arena_create(&arena, 0) != VT_OK) {
#pragma omp atomic write
      failed = 1;
    }
#pragma omp for schedule(dynamic, 16)
    for (int64_t s = 0; s < dev->n_sent; s++) {
      if (!arena) continue;
      vt_arena_reset(arena);
      const int64_t t0 = dev->sent_off[s];
      const int32_t T = (int32_t)(dev->sent_off[s + 1] - t0);
      double *E = vt_arena_alloc(arena, (size_t)T * Ls * sizeof *E);
      int32_t *lab = vt_arena_alloc(arena, (size_t)T * sizeof *lab);
      double score;
      int32_t n_paths = 0;
      if (!E || !lab) {
#pragma omp atomic write
        failed = 1;
        continue;
      }
      memset(E, 0, (size_t)T * Ls * sizeof *E);
      for (int32_t t = 0; t < T; t++) {
        double *row = E + (size_t)t * Ls;
        for (int64_t i = dev->tok_off[t0 + t]; i < dev->tok_off[t0 + t + 1]; i++) {
          const int32_t a = dev->attr[i];
          for (int64_t q = f->st_off[a]; q < f->st_off[a + 1]; q++)
            row[f->st_label[q]] += w[q] * vt_crf_val(dev, i);
        }
      }
      if (vt_decode(trans, &opts, arena, E, T, lab, &score, &n_paths, NULL) != VT_OK) {
#pragma omp atomic write
        failed = 1;
        continue;
      }
      int64_t seq_right = 0;
      for (int32_t t = 0; t < T; t++) seq_right += n_paths > 0 && lab[t] == dev->gold[t0 + t];
      right += seq_right;
      wrong += seq_right < T;
      if (counts && n_paths > 0) {
        for (int32_t t = 0; t < T; t++) {
#pragma omp atomic
          counts[Ls + (size_t)lab[t]]++;
          if (lab[t] == dev->gold[t0 + t]) {
#pragma omp atomic
            counts[lab[t]]++;
          }
        }
        if (seq_right == T) {
#pragma omp atomic
          counts[2 * Ls]++;
        }
      }
    }
    vt_arena_destroy(arena);
  }
  if (!failed) {
    *right_out = right;
    *wrong_seqs = wrong;
    rc = 0;
  }
done:
  vt_trans_destroy(trans);
  free(A);
  free(rank);
  return rc;
}

double vt_crf_dev_eval(const vt_crf_data *dev, const vt_crf_feats *f, const double *w,
                       int32_t threads, int64_t *counts) {
  int64_t right = 0, wrong_seqs = 0;
  if (eval(dev, f, w, threads, 0, counts, &right, &wrong_seqs)) return -1;
  return (double)right / (double)dev->n_tok;
}

void vt_crf_errors(const vt_crf_data *d, const vt_crf_feats *f, const double *w, int32_t threads,
                   int64_t *tok_err, int64_t *sent_err) {
  int64_t right = 0, wrong_seqs = 0;
  const int bad = d->n_tok > 0 && eval(d, f, w, threads, 1, NULL, &right, &wrong_seqs);
  *tok_err = bad ? -1 : d->n_tok - right;
  *sent_err = bad ? -1 : wrong_seqs;
}

void vt_crf_weights_stats(const double *w, int64_t n, double *norm, int64_t *active) {
  double s = 0;
  int64_t a = 0;
  for (int64_t i = 0; i < n; i++) {
    s += w[i] * w[i];
    a += w[i] != 0;
  }
  *norm = sqrt(s);
  *active = a;
}

void vt_crf_epoch_report(vt_iter_report *r, int32_t e, double loss, const double *w, int64_t n) {
  memset(r, 0, sizeof *r);
  r->iteration = e;
  r->evaluations = 1;
  r->loss = loss;
  vt_crf_weights_stats(w, n, &r->feature_norm, &r->active_features);
  r->error_norm = -1;
  r->eval_seconds = -1;
}
