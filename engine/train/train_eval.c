/* engine/train/train_eval.c: the dev evaluation of every epoch and the epoch end (train_eval.h).
 *
 * The averaged transitions are bound once; then the sentences are decoded in parallel, each
 * thread with its own emission buffer, prediction and arena, reading only W and the binding,
 * and the correct tokens are summed (integers: the same count for any thread count). */
#include "train/train_eval.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "core/errmsg.h"
#include "core/omp_tsan.h"
#include "train/perc_step.h"

/* Averaged transitions as doubles (float-rounded, as the model file stores them). */
static vt_status averaged_trans(const vt_weights *W, double **A, double **S, double **F) {
  const int32_t L = W->L;
  size_t LL = (size_t)L * (size_t)L;
  *A = malloc(LL * sizeof **A);
  *S = malloc((size_t)L * sizeof **S);
  *F = malloc((size_t)L * sizeof **F);
  if (!*A || !*S || !*F) return VT_ENOMEM;
  for (size_t i = 0; i < LL; i++) (*A)[i] = vt_weights_avg(W, W->A[i], W->Au[i]);
  for (int32_t y = 0; y < L; y++) {
    (*S)[y] = vt_weights_avg(W, W->S[y], W->Su[y]);
    (*F)[y] = vt_weights_avg(W, W->F[y], W->Fu[y]);
  }
  return VT_OK;
}

/* Decodes sentence s of c with the averaged weights and counts its correct tokens into
 * *correct. E, pred: room for c->max_T positions. */
static vt_status eval_one(const vt_weights *W, const vt_tcorpus *c, const vt_trans *tr,
                          const double *A, const double *S, const double *F,
                          const vt_decode_opts *opts, int64_t s, vt_arena *arena, double *E,
                          int32_t *pred, int64_t *correct) {
  const int64_t t0 = c->sent_off[s];
  const int32_t T = (int32_t)(c->sent_off[s + 1] - t0), L = W->L;
  vt_weights_emit(W, c->ufeat + t0 * c->n_u, c->n_u, T, E, 1);
  double score;
  int32_t np;
  vt_status st;
  if (!tr) {
    vt_obs_lattice lat = {L, T, A, S, F, E, NULL, NULL, NULL, NULL};
    st = vt_train_obs_deltas(W, NULL, c->bfeat + t0 * c->n_b, c->n_b, T, 1, arena, &lat);
    if (st == VT_OK) st = vt_obs_decode(&lat, opts, arena, pred, &score, &np, NULL);
  } else {
    st = vt_decode(tr, opts, arena, E, T, pred, &score, &np, NULL);
  }
  vt_arena_reset(arena);
  if (st != VT_OK) return st;
  for (int32_t t = 0; t < T; t++) *correct += np > 0 && pred[t] == c->gold[t0 + t];
  return VT_OK;
}

vt_status vt_train_evaluate(const vt_weights *W, const vt_tcorpus *c, const int32_t *rank,
                            int obs_bigram, vt_algo algo, int threads, double *accuracy) {
  vt_status st = VT_ENOMEM;
  double *A = NULL, *S = NULL, *F = NULL;
  vt_trans *tr = NULL;
  *accuracy = -1;
  if (!c || c->n_tok == 0) return VT_OK;
  const int32_t L = W->L;
  int nthreads = threads > 0 ? threads : omp_get_max_threads();
  if (nthreads > c->n_sent) nthreads = (int)c->n_sent;
  if ((st = averaged_trans(W, &A, &S, &F)) != VT_OK) goto done;
  if (!obs_bigram && (st = vt_trans_create(&tr, L, A, S, F, rank)) != VT_OK) goto done;
  vt_decode_opts opts;
  vt_decode_opts_init(&opts);
  opts.algo = obs_bigram ? VT_ALGO_VITERBI : algo;
  int64_t correct = 0;
  st = VT_OK;
#pragma omp parallel num_threads(nthreads) reduction(+ : correct)
  {
    VT_OMP_BEGIN();
    vt_status tst = VT_ENOMEM;
    vt_arena *arena = NULL;
    double *E = malloc((size_t)c->max_T * (size_t)L * sizeof *E);
    int32_t *pred = malloc((size_t)c->max_T * sizeof *pred);
    if (E && pred && vt_arena_create(&arena, 0) == VT_OK) tst = VT_OK;
#pragma omp for schedule(dynamic, 8)
    for (int64_t s = 0; s < c->n_sent; s++)
      if (tst == VT_OK) tst = eval_one(W, c, tr, A, S, F, &opts, s, arena, E, pred, &correct);
    if (tst != VT_OK) {
#pragma omp critical
      if (st == VT_OK) st = tst;
    }
    vt_arena_destroy(arena);
    free(E);
    free(pred);
    VT_OMP_END();
  }
  VT_OMP_JOINED();
  if (st == VT_OK) *accuracy = (double)correct / (double)c->n_tok;
done:
  vt_trans_destroy(tr);
  free(A);
  free(S);
  free(F);
  return st;
}

vt_status vt_train_epoch_end(const vt_weights *W, const vt_tcorpus *train, const vt_tcorpus *dev,
                             const int32_t *rank, int obs_bigram, const vt_perc_opts *o,
                             int32_t epoch, int64_t tok_err, int64_t sent_err, double secs,
                             vt_perc_report *rep, int *stop, char *err, size_t errlen) {
  const vt_train_comm *comm = o->span ? o->span->comm : NULL;
  const int64_t n_sent = o->span ? o->span->n_sent : train->n_sent;
  const int64_t n_tok = o->span ? o->span->n_tok : train->n_tok;
  vt_status st = VT_OK;
  *stop = 0;
  if (comm) {
    int64_t v[2] = {tok_err, sent_err};
    if (comm->sum_i64(comm->ctx, v, 2) != 0)
      return vt_fail_into(err, errlen, VT_EIO,
                          "training: a collective call between the processes failed");
    tok_err = v[0];
    sent_err = v[1];
  }
  rep->seconds += secs;
  rep->train_accuracy = n_tok ? 1.0 - (double)tok_err / (double)n_tok : 0;
  if (dev && (st = vt_train_evaluate(W, dev, rank, obs_bigram, o->algo, o->threads,
                                     &rep->dev_accuracy)) != VT_OK)
    vt_errorf(err, errlen, NULL, "training: evaluating on dev failed: %s", vt_strerror(st));
  rep->epochs = epoch;
  if (o->on_epoch && st == VT_OK) {
    vt_epoch_report er;
    memset(&er, 0, sizeof er);
    er.epoch = epoch;
    er.epochs = o->epochs;
    er.sentences = n_sent;
    er.mistakes = er.updates = sent_err;
    er.train_accuracy = rep->train_accuracy;
    er.dev_accuracy = dev ? rep->dev_accuracy : -1;
    er.dev_pos = er.dev_chunk_tags = er.dev_f1 = -1;
    er.dev_sentences = dev ? dev->n_sent : 0;
    er.seconds = secs;
    er.total_seconds = rep->seconds;
    *stop = o->on_epoch(o->ctx, &er) != 0;
  }
  if (comm) { /* stop together, fail together */
    int64_t v[2] = {*stop, st != VT_OK};
    if (comm->sum_i64(comm->ctx, v, 2) != 0)
      return vt_fail_into(err, errlen, VT_EIO,
                          "training: a collective call between the processes failed");
    *stop = v[0] > 0;
    if (v[1] && st == VT_OK)
      st = vt_fail_into(err, errlen, VT_ECANCELED, "training: another process failed");
  }
  return st;
}
