/* engine/text/train_batch.c: the averaged perceptron on several cores by mini-batches (see
 * vt_train_run_batch in train.h).
 *
 * A batch has two phases. In the parallel one, each thread takes sentences of the batch and
 * computes their emissions and best paths from the weights and the bound transition model as
 * they stood when the batch began: it reads those only, and writes only its own scratch (arena,
 * emission buffer) and the batch's prediction slot of the sentence. In the serial one, the
 * calling thread walks the batch in order and makes each sentence's update (vt_train_update, at
 * that sentence's example number) and its changes to the bound transition model. Which thread
 * decoded a sentence changes nothing, so the weights are the same bits for any thread count.
 * Memory: one emission buffer and arena per thread and one prediction slot per sentence of a
 * batch, nothing in L^2. */
#define _POSIX_C_SOURCE 200809L
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "errmsg.h"
#include "omp_tsan.h"
#include "train.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One thread's scratch; written by that thread only during the parallel phase. */
typedef struct worker {
  vt_arena *arena;
  double *E;
  vt_decode_stats stats;
  double decode_seconds;
} worker;

/* What the parallel phase reads. */
typedef struct batch_ctx {
  const vt_weights *W;
  const vt_tcorpus *c;
  const vt_trans *tr; /* NULL for observation-dependent bigram models */
  vt_decode_opts dopts;
  const int64_t *sent; /* the batch's sentences, in order */
  int32_t *pred;       /* maxT labels a sentence */
  vt_status *st;       /* a status a sentence */
  size_t maxT;
} batch_ctx;

/* Emissions and best path of sentence i of the batch, into its prediction slot. */
static vt_status decode_one(const batch_ctx *x, worker *w, int64_t i) {
  return vt_train_predict(x->W, x->c, x->tr, &x->dopts, x->sent[i], w->arena, w->E,
                          x->pred + (size_t)i * x->maxT, &w->stats, &w->decode_seconds);
}

vt_status vt_train_run_batch(vt_weights *W, const vt_tcorpus *train, const vt_tcorpus *dev,
                             const int32_t *rank, int obs_bigram, const vt_perc_opts *o,
                             vt_perc_report *rep, char *err, size_t errlen) {
  vt_status st = VT_ENOMEM;
  const int32_t L = W->L, B = o->minibatch;
  int nthreads = o->threads > 0 ? o->threads : omp_get_max_threads();
  if (nthreads > B) nthreads = B;
  memset(rep, 0, sizeof *rep);
  rep->dev_accuracy = -1;
  const size_t maxT = (size_t)(train->max_T > 0 ? train->max_T : 1);
  worker *wk = calloc((size_t)nthreads, sizeof *wk);
  int64_t *order = malloc(((size_t)train->n_sent + 1) * sizeof *order);
  int32_t *pred = malloc((size_t)B * maxT * sizeof *pred);
  vt_status *sst = malloc((size_t)B * sizeof *sst);
  vt_train_scratch xs = {NULL, NULL, NULL};
  vt_trans *tr = NULL;
  if (!wk || !order || !pred || !sst || vt_train_scratch_alloc(&xs, maxT) != VT_OK) goto fail;
  for (int i = 0; i < nthreads; i++) {
    wk[i].E = malloc(maxT * (size_t)L * sizeof *wk[i].E);
    if (!wk[i].E || vt_arena_create(&wk[i].arena, 0) != VT_OK) goto fail;
  }
  if (!obs_bigram && (st = vt_trans_create(&tr, L, W->A, W->S, W->F, rank)) != VT_OK) goto fail;
  batch_ctx x = {W, train, tr, {0}, order, pred, sst, maxT};
  vt_decode_opts_init(&x.dopts);
  x.dopts.algo = o->algo;
  for (int64_t s = 0; s < train->n_sent; s++) order[s] = s;
  uint64_t rng = o->seed;
  const int64_t tick = train->n_sent / 100 + 1;

  for (int32_t epoch = 1; epoch <= o->epochs; epoch++) {
    double t_start = now();
    vt_train_shuffle(order, train->n_sent, &rng);
    int64_t tok_err = 0, sent_err = 0;
    for (int64_t b0 = 0; b0 < train->n_sent; b0 += B) {
      const int64_t nb = train->n_sent - b0 < B ? train->n_sent - b0 : B;
      if (o->progress && b0 / tick != (b0 + nb) / tick)
        o->progress(o->ctx, epoch, o->epochs, b0, train->n_sent);
      x.sent = order + b0;
#pragma omp parallel num_threads(nthreads)
      {
        VT_OMP_BEGIN();
        worker *w = &wk[omp_get_thread_num()];
#pragma omp for schedule(dynamic, 1)
        for (int64_t i = 0; i < nb; i++) sst[i] = decode_one(&x, w, i);
        VT_OMP_END();
      }
      VT_OMP_JOINED();
      for (int64_t i = 0; i < nb; i++) {
        if ((st = sst[i]) != VT_OK) {
          vt_errorf(err, errlen, NULL, "training: decoding failed: %s", vt_strerror(st));
          goto fail;
        }
        st = vt_train_learn(W, tr, train, order[b0 + i], pred + (size_t)i * maxT, &xs, &tok_err,
                            &sent_err);
        if (st != VT_OK) goto fail;
      }
    }
    int stop = 0;
    st = vt_train_epoch_end(W, train, dev, rank, obs_bigram, o, epoch, tok_err, sent_err,
                            now() - t_start, rep, &stop);
    if (st != VT_OK) goto fail;
    if (stop) break;
  }
  st = VT_OK;
  goto done;
fail:
  if (st == VT_ENOMEM) vt_errorf(err, errlen, NULL, "training: out of memory");
done:
  for (int i = 0; wk && i < nthreads; i++) {
    vt_decode_stats_add(&rep->decode, &wk[i].stats);
    rep->decode_seconds += wk[i].decode_seconds;
    vt_arena_destroy(wk[i].arena);
    free(wk[i].E);
  }
  vt_trans_destroy(tr);
  free(wk);
  free(order);
  free(pred);
  free(sst);
  vt_train_scratch_free(&xs);
  return st;
}
