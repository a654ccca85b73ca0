/* engine/api/train_tagger.c: the public training API for taggers (vitesse.h, "training"): the
 * options' defaults and the entry points, for corpus files, sentences held in memory or one
 * process's part; the training itself is engine/train/pipeline_tagger.c's. */
#include <string.h>

#include "core/errmsg.h"
#include "train/corpus_src.h"
#include "train/pipeline.h"
#include "vitesse.h"

void vt_train_opts_init(vt_train_opts *o) {
  memset(o, 0, sizeof *o);
  vt_reader_opts_init(&o->reader);
  o->epochs = 10;
  o->seed = 1;
  o->label_col = -1;
  o->min_count = 1;
  o->decoder = VT_ALGO_VITERBI;
  o->lex_warmup = 1;
  o->pos_col = 1;
  o->chunk_col = -1;
  o->shards = 1;
  o->c2 = 1;
  o->epsilon = 1e-5;
  o->period = 10;
  o->delta = 1e-5;
  o->num_memories = 6;
  o->max_linesearch = 20;
  o->calibration_eta = 0.1;
  o->calibration_rate = 2;
  o->calibration_samples = 1000;
  o->calibration_candidates = 10;
  o->calibration_max_trials = 20;
  o->pa_c = 1;
  o->arow_variance = 1;
  o->arow_gamma = 1;
  o->pa_type = 1;
  o->pa_error_sensitive = 1;
  o->pa_averaging = 1;
}

/* Zeroes *rep (NULL: nothing to do): no figure yet, no dev accuracy. */
static void report_reset(vt_train_report *rep) {
  if (!rep) return;
  memset(rep, 0, sizeof *rep);
  rep->dev_accuracy = -1;
}

/* Runs train_tagger with *rep reset, or with a scratch report when rep is NULL. */
static vt_status run(const vt_train_opts *o, const vt_corpus_src *train, const vt_corpus_src *dev,
                     const char *out_path, vt_train_report *rep, const vt_train_comm *comm) {
  vt_train_report scratch;
  if (!rep) rep = &scratch;
  report_reset(rep);
  char err[VT_ERR_LINE] = "";
  vt_status st = vt_pipeline_tagger_run(o, train, dev, out_path, rep, comm, err, sizeof err);
  return st == VT_OK || !err[0] ? st : vt_fail(st, "%s", err);
}

vt_status vt_train_tagger(const vt_train_opts *opts, const char *const *train, int n_train,
                          const char *const *dev, int n_dev, const char *out_path,
                          vt_train_report *rep) {
  report_reset(rep);
  if (!train || n_train < 1 || n_dev < 0 || (n_dev > 0 && !dev))
    return vt_fail(VT_EINVAL, "train: expected at least one training corpus");
  for (int i = 0; i < n_train; i++)
    if (!train[i]) return vt_fail(VT_EINVAL, "train: corpus path %d is NULL", i);
  for (int i = 0; i < n_dev; i++)
    if (!dev[i]) return vt_fail(VT_EINVAL, "train: dev corpus path %d is NULL", i);
  vt_corpus_src ts = {train, n_train, NULL, 0, "train", NULL};
  vt_corpus_src ds = {dev, n_dev, NULL, 0, "dev", NULL};
  return run(opts, &ts, n_dev > 0 ? &ds : NULL, out_path, rep, NULL);
}

vt_status vt_train_tagger_mem(const vt_train_opts *opts, const vt_sentence_in *train,
                              int64_t n_train, const vt_sentence_in *dev, int64_t n_dev,
                              const char *out_path, vt_train_report *rep) {
  static const vt_sentence_in none = {NULL, 0, 0};
  report_reset(rep);
  if (n_train < 0 || (n_train > 0 && !train) || n_dev < 0 || (n_dev > 0 && !dev))
    return vt_fail(VT_EINVAL, "train: bad sentence array");
  vt_corpus_src ts = {NULL, 0, n_train > 0 ? train : &none, n_train, "train", NULL};
  vt_corpus_src ds = {NULL, 0, n_dev > 0 ? dev : &none, n_dev, "dev", NULL};
  return run(opts, &ts, n_dev > 0 ? &ds : NULL, out_path, rep, NULL);
}

vt_status vt_train_tagger_part(const vt_train_opts *opts, const vt_train_comm *comm,
                               const vt_train_part *part, const char *dev, const char *out_path,
                               vt_train_report *rep) {
  report_reset(rep);
  if (!comm || !part || comm->size < 1 || comm->rank < 0 || comm->rank >= comm->size ||
      (part->len && !part->data) || !part->name)
    return vt_fail(VT_EINVAL, "train: a process needs its comm and its part");
  const char *const devs[1] = {dev};
  vt_corpus_src ts = {NULL, 0, NULL, 0, part->name, part};
  vt_corpus_src ds = {devs, 1, NULL, 0, "dev", NULL};
  return run(opts, &ts, dev ? &ds : NULL, out_path, rep, comm);
}
