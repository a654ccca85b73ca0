/* engine/train/train.c: the sequential averaged-perceptron training loop, and the choice of
 * trainer (see train.h); the per-sentence steps are perc_step.c's. */
#define _POSIX_C_SOURCE 200809L
#include "train/train.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc/arena.h"
#include "core/clock.h"
#include "core/errmsg.h"
#include "train/perc_ckpt.h"
#include "train/perc_step.h"
#include "train/train_batch.h"
#include "train/train_eval.h"
#include "train/train_ipm.h"

vt_status vt_train_run(vt_weights *W, const vt_tcorpus *train, const vt_tcorpus *dev,
                       const int32_t *rank, int obs_bigram, const vt_perc_opts *o,
                       vt_perc_report *rep, char *err, size_t errlen) {
  vt_status st = VT_ENOMEM;
  const int32_t L = W->L;
  vt_arena *arena = NULL;
  vt_trans *tr = NULL;
  int64_t *order = NULL;
  double *E = NULL;
  int32_t *pred = NULL;
  vt_train_scratch x = {NULL, NULL, NULL};
  memset(rep, 0, sizeof *rep);
  rep->dev_accuracy = -1;
  vt_decode_opts opts;
  vt_decode_opts_init(&opts);
  opts.algo = o->algo;
  if (obs_bigram && o->algo != VT_ALGO_VITERBI) {
    vt_errorf(err, errlen, NULL,
              "--decoder %s: a model with observation-dependent bigram "
              "templates (B lines with macros) trains with viterbi only",
              vt_algo_name(o->algo));
    return VT_EUNSUPPORTED;
  }
  vt_perc_opts oc = *o; /* with the epochs a checkpoint did */
  if ((st = vt_perc_ckpt_load(o->ckpt, W, &oc.done, err, errlen)) != VT_OK) return st;
  o = &oc;
  if (o->shards > 1 || o->span)
    return vt_train_run_ipm(W, train, dev, rank, obs_bigram, o, rep, err, errlen);
  if (o->minibatch > 1)
    return vt_train_run_batch(W, train, dev, rank, obs_bigram, o, rep, err, errlen);
  const size_t maxT = (size_t)(train->max_T > 0 ? train->max_T : 1);
  E = malloc(maxT * (size_t)L * sizeof *E);
  pred = malloc(maxT * sizeof *pred);
  order = malloc(((size_t)train->n_sent + 1) * sizeof *order);
  if (!E || !pred || !order || vt_train_scratch_alloc(&x, maxT) != VT_OK) goto fail;
  if (vt_arena_create(&arena, 0) != VT_OK) goto fail;
  if (!obs_bigram) {
    st = vt_trans_create(&tr, L, W->A, W->S, W->F, rank);
    if (st != VT_OK) goto fail;
  }
  for (int64_t s = 0; s < train->n_sent; s++) order[s] = s;
  uint64_t rng = o->seed;
  const int64_t tick = train->n_sent / 100 + 1;
  for (int32_t e = 0; e < o->done; e++) vt_train_shuffle(order, train->n_sent, &rng);

  for (int32_t epoch = o->done + 1; epoch <= o->epochs; epoch++) {
    double t_start = vt_clock_seconds();
    vt_train_shuffle(order, train->n_sent, &rng);
    int64_t tok_err = 0, sent_err = 0;
    for (int64_t i = 0; i < train->n_sent; i++) {
      if (o->progress && i % tick == 0) o->progress(o->ctx, epoch, o->epochs, i, train->n_sent);
      st = vt_train_predict(W, train, tr, &opts, order[i], arena, E, pred, &rep->decode,
                            &rep->decode_seconds);
      if (st != VT_OK) {
        vt_errorf(err, errlen, NULL, "training: decoding failed: %s", vt_strerror(st));
        goto fail;
      }
      if ((st = vt_train_learn(W, tr, train, order[i], pred, &x, &tok_err, &sent_err)) != VT_OK)
        goto fail;
    }
    int stop = 0;
    st = vt_train_epoch_end(W, train, dev, rank, obs_bigram, o, epoch, tok_err, sent_err,
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
  vt_trans_destroy(tr);
  vt_arena_destroy(arena);
  free(order);
  free(E);
  free(pred);
  vt_train_scratch_free(&x);
  return st;
}
