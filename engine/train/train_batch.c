/* engine/train/train_batch.c: the averaged perceptron on several cores by mini-batches (see
 * vt_train_run_batch in train.h).
 *
 * A batch runs in one OpenMP region, in two phases:
 * 1. Emissions. The threads compute the batch's emission tables, one per sentence, from the
 *    feature weights as the batch began; meanwhile one of them first brings the bound transition
 *    model up to date with the previous batch's updates (one vt_trans_update over the cells
 *    that batch changed; it reads W's transitions and writes only `tr`, which nobody else
 *    touches in this phase).
 * 2. Decoding and updates. The threads take sentences in order from a shared counter and
 *    decode them (reading only their emission table and `tr`); whoever has finished one tries
 *    to become the updater and, while it is, makes the perceptron updates of the next decoded
 *    sentences in batch order, each at its own example number (vt_train_update: it writes W,
 *    which no decoder reads, and its transition changes reach `tr` at the next batch's phase
 *    1). No barrier ends the phase: the last sentence decoded is updated before its decoder
 *    leaves the region. A model with observation-dependent bigram templates (no `tr`: its
 *    decoder reads W) makes its updates after the region, as before. So the updates overlap the
 * decoding, and the weights are the same bits as when the calling thread made every update after
 * the whole batch was decoded, for any thread count. The transition model seen by a batch is the
 * one its batch began with, as before: the bounds of vt_trans_update equal those of a fresh binding
 * whatever the order of the updates (tested in tests/test_trans_update.c), so one update per batch
 * gives what one per sentence gave. Memory: one emission table per sentence of a batch (B x maxT x
 * L doubles), one arena per thread, the batch's changed cells (2 B maxT) and a byte per transition
 * cell, nothing that grows with the thread count but the arenas. */
#define _POSIX_C_SOURCE 200809L
#include <omp.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/errmsg.h"
#include "core/omp_tsan.h"
#include "train/perc_ckpt.h"
#include "train/perc_step.h"
#include "train/train_batch.h"
#include "train/train_eval.h"

/* One thread's scratch; written by that thread only. */
typedef struct worker {
  vt_arena *arena;
  vt_decode_stats stats;
  double decode_seconds;
} worker;

/* A batch's shared state. Phase 1 writes E (sentence i: its own table) and, on one thread, tr
 * and the cell list's values; phase 2 writes pred/sst of sentence i on its decoder, `done` and
 * `next` atomically, and the fields below `updating` only while holding it. */
typedef struct batch_ctx {
  vt_weights *W;
  const vt_tcorpus *c;
  vt_trans *tr; /* NULL for observation-dependent bigram models: their decoder reads W, so
                 * their updates wait for the whole batch to be decoded */
  vt_decode_opts dopts;
  const int64_t *sent; /* the batch's sentences, in order */
  int64_t nb;
  size_t maxT;
  double *E;            /* maxT x L doubles a sentence */
  int32_t *pred;        /* maxT labels a sentence */
  vt_status *sst;       /* decoding status a sentence */
  atomic_int *done;     /* 1 once sentence i is decoded (sst, pred written) */
  atomic_llong next;    /* next sentence to decode */
  atomic_int updating;  /* 1 while a thread makes updates */
  atomic_llong learned; /* sentences of the batch updated so far */
  /* owned by the updater: */
  vt_status ust; /* first update failure */
  int64_t tok_err, sent_err;
  int32_t *cprev, *ccur; /* transition cells changed since tr was last brought up to date */
  double *cval;
  int32_t n_cells;
  int se_changed;
  unsigned char *seen; /* L x L: cell already in the list */
} batch_ctx;

/* Brings tr up to date with the cells changed by the updates made since the last call (their
 * values now in W), deduplicated; empties the list. */
static vt_status trans_flush(batch_ctx *x) {
  vt_weights *W = x->W;
  const int32_t L = W->L;
  vt_status st = VT_OK;
  if (x->tr && (x->n_cells || x->se_changed)) {
    for (int32_t i = 0; i < x->n_cells; i++)
      x->cval[i] = W->A[(size_t)x->cprev[i] * L + (size_t)x->ccur[i]];
    st = vt_trans_update(x->tr, x->n_cells, x->cprev, x->ccur, x->cval, x->se_changed ? W->S : NULL,
                         x->se_changed ? W->F : NULL);
  }
  for (int32_t i = 0; i < x->n_cells; i++) x->seen[(size_t)x->cprev[i] * L + x->ccur[i]] = 0;
  x->n_cells = 0;
  x->se_changed = 0;
  return st;
}

/* The perceptron step of sentence i of the batch (decoded): as vt_train_learn, with the
 * transition cells it changed added to the list for trans_flush. Updater only. */
static vt_status learn_one(batch_ctx *x, int64_t i) {
  vt_weights *W = x->W;
  const vt_tcorpus *c = x->c;
  const int64_t s = x->sent[i], t0 = c->sent_off[s];
  const int32_t T = (int32_t)(c->sent_off[s + 1] - t0), L = W->L;
  const int32_t *p = x->pred + (size_t)i * x->maxT;
  int32_t wrong = 0;
  for (int32_t t = 0; t < T; t++) wrong += p[t] != c->gold[t0 + t];
  if (wrong) {
    x->tok_err += wrong;
    x->sent_err++;
    /* vt_train_update appends the cells at the list's end; keep those not yet in it (the
     * write position never passes the read one) */
    int32_t nc, *cp = x->cprev + x->n_cells, *cc = x->ccur + x->n_cells;
    int se;
    vt_status st = vt_train_update(W, c, t0, T, p, cp, cc, x->cval + x->n_cells, &nc, &se);
    if (st != VT_OK) return st;
    for (int32_t k = 0; k < nc; k++) {
      unsigned char *m = &x->seen[(size_t)cp[k] * L + cc[k]];
      if (*m) continue;
      *m = 1;
      x->cprev[x->n_cells] = cp[k];
      x->ccur[x->n_cells++] = cc[k];
    }
    x->se_changed |= se;
  }
  W->c += 1;
  return VT_OK;
}

/* Makes the updates of the decoded sentences that come next in batch order, if no other thread
 * is making them; re-checks after letting go, so that a sentence decoded meanwhile by a thread
 * that found the updater busy is not left for the batch's end. */
static void learn_ready(batch_ctx *x) {
  for (;;) {
    if (atomic_exchange(&x->updating, 1)) return;
    int64_t u = atomic_load(&x->learned);
    while (u < x->nb && x->ust == VT_OK && atomic_load(&x->done[u])) {
      if (x->sst[u] != VT_OK)
        x->ust = x->sst[u];
      else
        x->ust = learn_one(x, u);
      if (x->ust == VT_OK) u++;
    }
    const vt_status ust = x->ust; /* read while still the updater */
    atomic_store(&x->learned, u);
    atomic_store(&x->updating, 0);
    if (u >= x->nb || ust != VT_OK || !atomic_load(&x->done[u])) return;
  }
}

/* The emission table of sentence i of the batch, from the weights as the batch began. */
static void emit_one(batch_ctx *x, int64_t i) {
  const vt_tcorpus *c = x->c;
  const int64_t s = x->sent[i], t0 = c->sent_off[s];
  vt_weights_emit(x->W, c->ufeat + t0 * c->n_u, c->n_u, (int32_t)(c->sent_off[s + 1] - t0),
                  x->E + (size_t)i * x->maxT * (size_t)x->W->L, 0);
}

/* The best path of sentence i from its emission table; marks it decoded. */
static void decode_one(batch_ctx *x, worker *w, int64_t i) {
  x->sst[i] = vt_train_predict_from(x->W, x->c, x->tr, &x->dopts, x->sent[i], w->arena,
                                    x->E + (size_t)i * x->maxT * (size_t)x->W->L,
                                    x->pred + (size_t)i * x->maxT, &w->stats, &w->decode_seconds);
  atomic_store(&x->done[i], 1);
}

/* A batch on one thread, without a region: each sentence's emissions right before its decoding
 * (while they are in cache); the caller then makes the updates. The same weights are read as in
 * the parallel phases (no update comes before the last emission table). */
static vt_status batch_alone(batch_ctx *x, worker *w) {
  vt_status st = trans_flush(x);
  for (int64_t i = 0; st == VT_OK && i < x->nb; i++) {
    emit_one(x, i);
    decode_one(x, w, i);
  }
  return st;
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
  batch_ctx x;
  memset(&x, 0, sizeof x);
  worker *wk = calloc((size_t)nthreads, sizeof *wk);
  int64_t *order = malloc(((size_t)train->n_sent + 1) * sizeof *order);
  x.E = malloc((size_t)B * maxT * (size_t)L * sizeof *x.E);
  x.pred = malloc((size_t)B * maxT * sizeof *x.pred);
  x.sst = malloc((size_t)B * sizeof *x.sst);
  x.done = malloc((size_t)B * sizeof *x.done);
  x.cprev = malloc(2 * (size_t)B * maxT * sizeof *x.cprev);
  x.ccur = malloc(2 * (size_t)B * maxT * sizeof *x.ccur);
  x.cval = malloc(2 * (size_t)B * maxT * sizeof *x.cval);
  x.seen = calloc((size_t)L * (size_t)L, 1);
  if (!wk || !order || !x.E || !x.pred || !x.sst || !x.done || !x.cprev || !x.ccur || !x.cval ||
      !x.seen)
    goto fail;
  for (int i = 0; i < nthreads; i++)
    if (vt_arena_create(&wk[i].arena, 0) != VT_OK) goto fail;
  if (!obs_bigram && (st = vt_trans_create(&x.tr, L, W->A, W->S, W->F, rank)) != VT_OK) goto fail;
  x.W = W;
  x.c = train;
  x.maxT = maxT;
  vt_decode_opts_init(&x.dopts);
  x.dopts.algo = o->algo;
  for (int64_t s = 0; s < train->n_sent; s++) order[s] = s;
  uint64_t rng = o->seed;
  const int64_t tick = train->n_sent / 100 + 1;
  for (int32_t e = 0; e < o->done; e++) vt_train_shuffle(order, train->n_sent, &rng);

  for (int32_t epoch = o->done + 1; epoch <= o->epochs; epoch++) {
    double t_start = vt_clock_seconds();
    vt_train_shuffle(order, train->n_sent, &rng);
    x.tok_err = x.sent_err = 0;
    for (int64_t b0 = 0; b0 < train->n_sent; b0 += B) {
      const int64_t nb = train->n_sent - b0 < B ? train->n_sent - b0 : B;
      if (o->progress && b0 / tick != (b0 + nb) / tick)
        o->progress(o->ctx, epoch, o->epochs, b0, train->n_sent);
      x.sent = order + b0;
      x.nb = nb;
      x.ust = VT_OK;
      atomic_store(&x.next, 0);
      atomic_store(&x.updating, 0);
      atomic_store(&x.learned, 0);
      for (int64_t i = 0; i < nb; i++) atomic_store(&x.done[i], 0);
      vt_status tst = VT_OK;
      if (nthreads == 1) {
        tst = batch_alone(&x, &wk[0]);
      } else {
#pragma omp parallel num_threads(nthreads)
        {
          VT_OMP_BEGIN();
          worker *w = &wk[omp_get_thread_num()];
#pragma omp single nowait
          tst = trans_flush(&x);
#pragma omp for schedule(dynamic, 1)
          for (int64_t i = 0; i < nb; i++) emit_one(&x, i);
          for (;;) {
            const int64_t i = atomic_fetch_add(&x.next, 1);
            if (i >= nb) break;
            decode_one(&x, w, i);
            if (x.tr) learn_ready(&x);
          }
          VT_OMP_END();
        }
        VT_OMP_JOINED();
      }
      /* every decoded sentence was updated by the region (see learn_ready), except on one
       * thread and in a model whose decoder reads W: their updates are made here */
      learn_ready(&x);
      if ((st = tst) != VT_OK) goto fail;
      if ((st = x.ust) != VT_OK) {
        if (st != VT_ENOMEM)
          vt_errorf(err, errlen, NULL, "training: decoding failed: %s", vt_strerror(st));
        goto fail;
      }
    }
    int stop = 0;
    st = vt_train_epoch_end(W, train, dev, rank, obs_bigram, o, epoch, x.tok_err, x.sent_err,
                            vt_clock_seconds() - t_start, rep, &stop, err, errlen);
    if (st != VT_OK) goto fail;
    if (stop) break;
    if ((st = vt_perc_ckpt_save(o->ckpt, W, epoch, o->epochs, err, errlen)) != VT_OK ||
        (st = vt_ckpt_stop(o->ckpt, epoch, 0, err, errlen)) != VT_OK)
      goto done;
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
  }
  vt_trans_destroy(x.tr);
  free(wk);
  free(order);
  free(x.E);
  free(x.pred);
  free(x.sst);
  free(x.done);
  free(x.cprev);
  free(x.ccur);
  free(x.cval);
  free(x.seen);
  return st;
}
