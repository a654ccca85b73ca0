/* engine/train/pipeline_tagger.c: training a tagger from start to model file (pipeline.h): the
 * averaged perceptron or a CRF over feature templates, from corpus files, sentences held in
 * memory or one process's part. Templates are parsed, the corpora compiled (train_corpus.h), the
 * weights trained (train.h, crf_train.h), exported (train_export.h) and written atomically
 * (engine/models/model_file.h); progress goes to the caller's callbacks, never to a stream. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/errmsg.h"
#include "io/outfile.h"
#include "io/sentbatch.h"
#include "models/model_file.h"
#include "train/ckpt.h"
#include "train/corpus_src.h"
#include "train/crf_grad.h"
#include "train/crf_report.h"
#include "train/crf_tmpl.h"
#include "train/crf_train.h"
#include "train/dist.h"
#include "train/pipeline.h"
#include "train/train.h"
#include "train/train_export.h"
#include "vitesse.h"

/* Compiles one batch into the corpus of a compile_ctx. */
typedef struct compile_ctx {
  vt_trainset *d;
  vt_tcorpus *c;
} compile_ctx;

static vt_status compile_batch(void *ctx, const vt_sentbatch *b, char *err, size_t errlen) {
  compile_ctx *x = ctx;
  return vt_trainset_compile(x->d, x->c, b, err, errlen);
}

/* Compiles every sentence of `src` into `c` with the dictionaries of `d`. Returns VT_OK or the
 * first failure (message in err). */
static vt_status compile_src(vt_trainset *d, vt_tcorpus *c, const vt_corpus_src *src,
                             const vt_reader_opts *ro, char *err, size_t errlen) {
  compile_ctx x = {d, c};
  return vt_corpus_src_each(src, ro, compile_batch, &x, err, errlen);
}

/* Trains a CRF (o->algorithm) on the compiled corpora and leaves its weights in W, for the
 * model file as the perceptron's: state features for the (feature, label) pairs of the training
 * corpus, transitions for the label pairs seen when the templates have a plain `B`. */
static vt_status train_crf(const vt_train_opts *o, const vt_trainset *d, const vt_tcorpus *tc,
                           const vt_tcorpus *dc, int transitions, const vt_textmodel *init,
                           const vt_crf_span *span, const vt_ckpt *ck, vt_weights *W,
                           vt_perc_report *pr, char *err, size_t errlen) {
  vt_status st = VT_ENOMEM;
  vt_crf_data td, dd;
  vt_crf_feats f;
  memset(&td, 0, sizeof td);
  memset(&dd, 0, sizeof dd);
  memset(&f, 0, sizeof f);
  double *w = NULL;
  vt_crf_prior prior;
  memset(&prior, 0, sizeof prior);
  memset(pr, 0, sizeof *pr);
  pr->dev_accuracy = -1;
  const int32_t L = d->labels.n;
  if (vt_crf_from_tcorpus(&td, tc, L, d->n_weights) != VT_OK ||
      (dc && vt_crf_from_tcorpus(&dd, dc, L, d->n_weights) != VT_OK))
    goto nomem;
  if (init && vt_crf_prior_from_textmodel(&prior, init, d) != VT_OK) goto nomem;
  vt_crf_featgen gen = {(double)o->min_freq, o->possible_states, o->possible_transitions,
                        init ? &prior : NULL};
  if (span && span->comm) {
    if ((st = vt_dist_feats_build(span->comm, &f, &td, &gen, err, errlen)) != VT_OK) goto done;
  } else if (vt_crf_feats_build(&f, &td, &gen, NULL) != VT_OK) {
    goto nomem;
  }
  if (!transitions) vt_crf_feats_drop_transitions(&f);
  if (!(w = calloc((size_t)(f.n ? f.n : 1), sizeof *w))) goto nomem;
  if (init) vt_crf_weights_from_prior(w, &f, &prior);
  vt_crf_result res;
  if ((st = vt_crf_train(&td, &f, dc ? &dd : NULL, w, o, &res, err, errlen, span, ck)) != VT_OK)
    goto done;
  pr->epochs = res.iterations;
  pr->stop = res.stop;
  pr->seconds = res.seconds;
  pr->dev_accuracy = dc ? vt_crf_accuracy(&dd, &f, w, o->threads) : -1;
  pr->train_accuracy = vt_crf_accuracy(&td, &f, w, o->threads);
  if (span && span->comm) { /* the tokens tagged right, over every process */
    int64_t right[2] = {(int64_t)llround(pr->train_accuracy * (double)td.n_tok), td.n_tok};
    if (span->comm->sum_i64(span->comm->ctx, right, 2)) {
      st = vt_fail_into(err, errlen, VT_EIO, "training: the processes lost touch");
      goto done;
    }
    pr->train_accuracy = right[1] ? (double)right[0] / (double)right[1] : 0;
  }
  if ((st = vt_crf_to_weights(W, &f, w)) != VT_OK) goto nomem;
  goto done;
nomem:
  st = vt_fail_into(err, errlen, VT_ENOMEM, "train: out of memory");
done:
  free(w);
  vt_crf_prior_free(&prior);
  vt_crf_feats_free(&f);
  vt_crf_data_free(&td);
  vt_crf_data_free(&dd);
  return st;
}

/* Builds the model of W (vt_export_build) into x and writes it to out_path. */
static vt_status write_model(vt_export *x, const vt_trainset *d, const vt_weights *W,
                             const char *tmpl, size_t tmpl_len, const vt_textmodel_meta *meta,
                             const char *out_path, vt_train_report *rep, char *err, size_t errlen) {
  vt_status st = vt_export_build(x, d, W, tmpl, tmpl_len, meta);
  if (st != VT_OK)
    return st == VT_EINVAL ? vt_fail_into(err, errlen, VT_EIO, "%s: model too large", out_path)
                           : vt_fail_into(err, errlen, VT_ENOMEM, "%s: out of memory", out_path);
  if ((st = vt_textmodel_write(out_path, &x->img, err, errlen)) != VT_OK)
    return (st == VT_ENOMEM ? VT_ENOMEM : VT_EIO);
  rep->model_features = x->img.n_feat;
  rep->model_bytes = x->img.recs_len + (uint64_t)W->L * (uint64_t)W->L * 4;
  return VT_OK;
}

/* Agrees with the other processes on `st` (dist.h): a failure keeps its message; another
 * process's failure is VT_ECANCELED here. */
static vt_status agree(const vt_train_comm *c, vt_status st, char *err, size_t errlen) {
  char mine[VT_ERR_LINE] = "";
  const vt_status a = vt_dist_agree(c, st, mine, sizeof mine);
  if (a != st) snprintf(err, errlen, "%s", mine);
  return a;
}

/* Training across processes takes the perceptron by shards and L-BFGS only. */
static vt_status dist_check(const vt_train_opts *o, char *err, size_t errlen) {
  if (o->init_model)
    return vt_fail_into(err, errlen, VT_EINVAL,
                        "training across processes: --init is not supported yet");
  if (o->algorithm == VT_TRAIN_PERCEPTRON && (o->shards < 2 || o->minibatch > 1))
    return vt_fail_into(err, errlen, VT_EINVAL,
                        "training across processes: the perceptron trains by --shards S "
                        "(S >= 2; S >= the number of processes keeps every one busy)");
  if (o->algorithm != VT_TRAIN_PERCEPTRON && o->algorithm != VT_TRAIN_LBFGS)
    return vt_fail_into(err, errlen, VT_EINVAL,
                        "training across processes: --algo lbfgs or the perceptron; the "
                        "others train on one process");
  return VT_OK;
}

vt_status vt_pipeline_tagger_run(const vt_train_opts *o, const vt_corpus_src *train,
                                 const vt_corpus_src *dev, const char *out_path,
                                 vt_train_report *rep, const vt_train_comm *comm, char *err,
                                 size_t errlen) {
  vt_status st = VT_OK;
  vt_tmplset ts;
  memset(&ts, 0, sizeof ts);
  vt_trainset d;
  memset(&d, 0, sizeof d);
  vt_tcorpus tc, dc;
  memset(&tc, 0, sizeof tc);
  memset(&dc, 0, sizeof dc);
  vt_weights W;
  memset(&W, 0, sizeof W);
  vt_export x;
  memset(&x, 0, sizeof x);
  int32_t *rank = NULL;
  vt_textmodel *init = NULL;                   /* CRF: the model training continues from */
  int32_t *dest = NULL;                        /* across processes: where each sentence goes */
  const int writer = !comm || comm->rank == 0; /* reads dev, calls back, writes the model */
  vt_ckpt ck;
  memset(&ck, 0, sizeof ck);
  if (!writer) {
    dev = NULL;
    out_path = NULL;
  }

  if (!o || !o->templates || (writer && !out_path)) {
    st = vt_fail_into(err, errlen, VT_EINVAL,
                      "train: the templates and the model path are required");
    goto done;
  }
  if (o->epochs < 1 || o->label_col < -1 || o->min_count < 1 || o->reader.max_tokens < 1) {
    st = vt_fail_into(err, errlen, VT_EINVAL,
                      "train: epochs, min_count and max_tokens must be >= 1, label_col >= -1");
    goto done;
  }
  if (o->shards < 0 || o->shards > VT_TRAIN_SHARDS_MAX || o->threads < 0 || o->minibatch < 0 ||
      o->minibatch > VT_TRAIN_MINIBATCH_MAX || (o->shards > 1 && o->minibatch > 1)) {
    st = vt_fail_into(err, errlen, VT_EINVAL,
                      "train: shards must be in 0..%d, minibatch in 0..%d (not both above 1) and "
                      "threads >= 0",
                      VT_TRAIN_SHARDS_MAX, VT_TRAIN_MINIBATCH_MAX);
    goto done;
  }
  if (comm && (st = dist_check(o, err, errlen)) != VT_OK) goto done;
  vt_algo algo = VT_ALGO_VITERBI; /* without --decoder: set once the label count is known */
  if (o->decoder_set) {
    algo = o->decoder;
    if ((unsigned)algo >= (unsigned)VT_ALGO_COUNT_) {
      st = vt_fail_into(err, errlen, VT_EINVAL, "--decoder: unknown algorithm %d", (int)algo);
      goto done;
    }
    if (!vt_algo_available(algo)) {
      st = vt_fail_into(err, errlen, VT_EUNSUPPORTED,
                        "--decoder: not implemented in this version: '%s'", vt_algo_name(algo));
      goto done;
    }
    if (!vt_algo_exact(algo)) {
      st = vt_fail_into(err, errlen, VT_EINVAL,
                        "--decoder: '%s' is approximate; training needs an exact decoder",
                        vt_algo_name(algo));
      goto done;
    }
  }
  /* A checkpoint of another run is refused now, before the corpus is read. */
  st = vt_ckpt_setup(&ck, o, vt_ckpt_trainer(o->algorithm), writer, err, errlen);
  if (comm) ck.cancel = NULL; /* one process's request cannot stop the others at one place */
  if (comm) st = agree(comm, st, err, errlen);
  if (st != VT_OK) goto done;
  const size_t tmpl_len = o->templates_len ? o->templates_len : strlen(o->templates);
  st = vt_tmplset_parse(&ts, o->templates, tmpl_len,
                        o->templates_name ? o->templates_name : "templates", err, errlen);
  if (st != VT_OK) goto done;
  if (o->algorithm != VT_TRAIN_PERCEPTRON) {
    if ((st = vt_crf_opts_check(o, err, errlen)) != VT_OK) goto done;
    if (ts.n_b > 0) {
      st = vt_fail_into(err, errlen, VT_EUNSUPPORTED,
                        "%s: observation-dependent bigram templates (B lines with macros) are not "
                        "trained as a CRF yet: use U templates and a plain B",
                        o->templates_name ? o->templates_name : "templates");
      goto done;
    }
    if (o->init_model && (st = vt_textmodel_load(&init, o->init_model, err, errlen)) != VT_OK)
      goto done;
  }
  if (vt_trainset_init(&d, &ts, o->label_col) != VT_OK) goto nomem;
  if (init && vt_crf_tmpl_seed(&d, init, o->min_count) != VT_OK) goto nomem;
  double t0 = vt_clock_seconds();
  st = compile_src(&d, &tc, train, &o->reader, err, errlen);
  if (comm) st = agree(comm, st, err, errlen);
  if (st != VT_OK) goto done;
  /* The corpus as a whole: here, or summed over the processes. */
  int64_t sent_before = 0, n_sent = tc.n_sent, tok_before = 0, n_tok = tc.n_tok;
  if (comm && ((st = vt_dist_prefix(comm, tc.n_sent, &sent_before, &n_sent, err, errlen)) ||
               (st = vt_dist_prefix(comm, tc.n_tok, &tok_before, &n_tok, err, errlen))))
    goto done;
  if (n_sent == 0) {
    st = vt_fail_into(err, errlen, VT_EFORMAT, "%s: no sentence to train on",
                      train->part                           ? train->part->name
                      : train->sents || train->n_files != 1 ? train->name
                                                            : train->files[0]);
    goto done;
  }
  if (comm) {
    tc.n_u = ts.n_u; /* a process may have compiled nothing */
    tc.n_b = ts.n_b;
    if ((st = vt_dist_trainset_freeze(comm, &d, &tc, o->min_count, err, errlen)) != VT_OK)
      goto done;
  } else if (vt_trainset_freeze(&d, &tc, o->min_count) != VT_OK) {
    goto nomem;
  }
  if (dev && (st = compile_src(&d, &dc, dev, &o->reader, err, errlen)) != VT_OK) goto done;
  const int32_t L = d.labels.n;
  if (!o->decoder_set && ts.n_b == 0) { /* bigram templates keep viterbi */
    vt_decode_opts def;
    vt_decode_opts_default(&def, L, 1);
    algo = def.algo;
  }
  rank = malloc((size_t)L * sizeof *rank);
  if (!rank || vt_weights_init(&W, L, d.n_weights, d.bigram) != VT_OK) goto nomem;
  vt_export_rank(&d, rank);
  rep->sentences = n_sent;
  rep->tokens = n_tok;
  rep->labels = L;
  rep->features = d.n_weights;
  rep->templates = ts.n;
  rep->decoder = algo;
  rep->read_seconds = vt_clock_seconds() - t0;
  rep->input_ok = 1;
  /* The model goes to out_path once trained: see now, not after the epochs, that it cannot. */
  if (writer) st = vt_outfile_probe(out_path, err, errlen);
  if (comm) st = agree(comm, st, err, errlen);
  if (st != VT_OK) goto done;
  if (writer && o->on_start) o->on_start(o->ctx, rep);
  /* Across processes: each takes whole shards (the perceptron) or whole gradient batches. */
  const int crf = o->algorithm != VT_TRAIN_PERCEPTRON;
  const int64_t want = crf ? vt_crf_batch_count(n_tok, L) : 0;
  if (comm) {
    dest = crf ? vt_dist_dest_batches(comm, tc.sent_off, tc.n_sent, tok_before, n_tok, want)
               : vt_dist_dest_shards(comm, tc.n_sent, sent_before, n_sent, o->shards);
    st = dest ? VT_OK : vt_fail_into(err, errlen, VT_ENOMEM, "train: out of memory");
    if ((st = agree(comm, st, err, errlen)) != VT_OK) goto done;
    if ((st = vt_dist_move_tcorpus(comm, &tc, dest, err, errlen)) ||
        (st = vt_dist_prefix(comm, tc.n_sent, &sent_before, &n_sent, err, errlen)) ||
        (st = vt_dist_prefix(comm, tc.n_tok, &tok_before, &n_tok, err, errlen))) {
      goto done;
    }
  }
  const vt_crf_span span = {tok_before, n_tok, comm};
  const int32_t P = comm ? comm->size : 1, me = comm ? comm->rank : 0;
  const vt_ipm_span ispan = {(int32_t)(((int64_t)me * o->shards + P - 1) / P),
                             (int32_t)(((int64_t)(me + 1) * o->shards + P - 1) / P),
                             sent_before,
                             n_sent,
                             n_tok,
                             comm};

  vt_perc_report pr;
  memset(&pr, 0, sizeof pr);
  if (o->algorithm != VT_TRAIN_PERCEPTRON) {
    st = train_crf(o, &d, &tc, dev ? &dc : NULL, ts.plain_bigram, init, comm ? &span : NULL,
                   ck.path ? &ck : NULL, &W, &pr, err, errlen);
  } else {
    vt_perc_opts to = {o->epochs,
                       o->seed,
                       algo,
                       writer ? o->on_progress : NULL,
                       writer ? o->on_epoch : NULL,
                       o->ctx,
                       o->shards,
                       o->threads,
                       o->minibatch,
                       comm ? &ispan : NULL,
                       ck.path ? &ck : NULL,
                       0};
    st = vt_train_run(&W, &tc, dev ? &dc : NULL, rank, ts.n_b > 0, &to, &pr, err, errlen);
  }
  rep->epochs = pr.epochs;
  rep->stop_reason = pr.stop                 ? pr.stop
                     : pr.epochs < o->epochs ? "stopped by the callback"
                                             : "epoch cap reached";
  rep->train_seconds = pr.seconds;
  rep->decode_seconds = pr.decode_seconds;
  rep->train_accuracy = pr.train_accuracy;
  rep->dev_accuracy = pr.dev_accuracy;
  if (st != VT_OK) goto done;
  if (writer) {
    vt_textmodel_meta meta;
    memset(&meta, 0, sizeof meta);
    meta.label_col = o->label_col;
    meta.ncols = d.ncols;
    meta.epochs = pr.epochs;
    meta.reader = vt_textmodel_reader_pack(&o->reader);
    meta.seed = o->seed;
    meta.train_sentences = (uint64_t)n_sent;
    meta.train_tokens = (uint64_t)n_tok;
    snprintf(meta.decoder, sizeof meta.decoder, "%s", vt_algo_name(algo));
    st = write_model(&x, &d, &W, o->templates, tmpl_len, &meta, out_path, rep, err, errlen);
  }
  if (comm) st = agree(comm, st, err, errlen);
  goto done;
nomem:
  st = vt_fail_into(err, errlen, VT_ENOMEM, "train: out of memory");
done:
  vt_ckpt_free(&ck);
  free(dest);
  vt_export_free(&x);
  vt_weights_free(&W);
  vt_tcorpus_free(&tc);
  vt_tcorpus_free(&dc);
  vt_trainset_free(&d);
  vt_tmplset_free(&ts);
  vt_textmodel_free(init);
  free(rank);
  return st;
}
