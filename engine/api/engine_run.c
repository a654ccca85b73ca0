/* engine/api/engine_run.c: the public engine runs (vitesse.h): tagging with any model kind, and
 * decoding score lattices. The policy lives here (which decoder and which corpus options a model
 * tags with, asked of its kind's table); the run loops are beside the scheduler
 * (engine/sched/corpus_job.c, decode_job.c). */
#include <string.h>

#include "api/model_impl.h"
#include "core/errmsg.h"
#include "sched/engine.h"
#include "text/allowed_labels.h"

void vt_tag_opts_init(vt_tag_opts *o) {
  memset(o, 0, sizeof *o);
  vt_decode_opts_init(&o->decode);
  o->decode.k = 0; /* unset: the model's default decoder */
  vt_reader_opts_init(&o->reader);
  o->reader_from_model = 1;
  o->max_chunk = -1;
  o->word_col = 0;
  o->pos_col = 1;
  o->chunk_col = -1;
}

/* vt_engine_tag and vt_engine_tag_part: the files, or `part` when not NULL. */
static vt_status tag_run(vt_engine *e, const vt_model *m, const vt_tag_opts *opts,
                         const char *const *files, int n_files, const vt_corpus_part *part,
                         const vt_corpus_marks *marks, vt_sink_fn sink, void *sink_ctx,
                         vt_run_report *rep) {
  vt_run_report local;
  vt_tag_opts o;
  vt_reader_opts ro;
  vt_status st;
  if (!rep) rep = &local;
  memset(rep, 0, sizeof *rep);
  if (opts)
    o = *opts;
  else
    vt_tag_opts_init(&o);
  if (!sink) return vt_fail(VT_EINVAL, "tag: no sink");
  const vt_corpus_ops *k = m->ops->corpus;
  if (!k)
    return vt_fail(VT_EUNSUPPORTED, "a transition model has no features to tag with: decode "
                                    "score lattices with vt_engine_decode");
  if (o.crfsuite_out && !k->items)
    return vt_fail(VT_EUNSUPPORTED, "CRFsuite's -p, -i and -l need a CRFsuite model");
  const vt_textmodel *features = vt_kind_features(m);
  if ((o.verbose || o.constraints) && !features)
    return vt_fail(VT_EUNSUPPORTED, "marginals (-v) and allowed labels need a tagger model");
  if (o.constraints && o.constraints->model != features)
    return vt_fail(VT_EINVAL, "the constraints were made for another model");
  if (o.verbose < 0 || o.verbose > 2) return vt_fail(VT_EINVAL, "verbose: 0, 1 or 2 expected");
  if (o.label_sep != 0 && o.label_sep != '\t' && o.label_sep != ' ')
    return vt_fail(VT_EINVAL, "label_sep: 0, a tab or a space expected");
  if (o.decode.k < 1) vt_model_default_decoder(m, 1, &o.decode);
  if ((st = vt_model_check_decoder(m, &o.decode)) != VT_OK) return st;
  vt_model_reader(m, &o, &ro);
  char err[VT_ERR_LINE];
  if (k->check && (st = k->check(m, &o, err, sizeof err)) != VT_OK) return vt_fail(st, "%s", err);
  st = vt_corpus_job_run(e, m, &o, &ro, files, n_files, part, marks, sink, sink_ctx, rep, err,
                         sizeof err);
  return st == VT_OK ? st : vt_fail(st, "%s", err);
}

vt_status vt_engine_tag(vt_engine *e, const vt_model *m, const vt_tag_opts *opts,
                        const char *const *files, int n_files, vt_sink_fn sink, void *sink_ctx,
                        vt_run_report *rep) {
  return tag_run(e, m, opts, files, n_files, NULL, NULL, sink, sink_ctx, rep);
}

vt_status vt_engine_tag_from(vt_engine *e, const vt_model *m, const vt_tag_opts *opts,
                             const char *const *files, int n_files, const vt_corpus_pos *start,
                             vt_mark_fn mark, void *mark_ctx, vt_sink_fn sink, void *sink_ctx,
                             vt_run_report *rep) {
  if (start && (start->file < 0 || (start->file > 0 && start->file >= n_files) ||
                start->offset < 0 || start->lines < 0 || start->sentences < 0)) {
    if (rep) memset(rep, 0, sizeof *rep);
    return vt_fail(VT_EINVAL, "tag: the start is not a place in the %d files", n_files);
  }
  if (start && n_files == 0 && (start->offset || start->lines)) {
    if (rep) memset(rep, 0, sizeof *rep);
    return vt_fail(VT_EINVAL, "tag: standard input cannot start after its start");
  }
  vt_corpus_marks marks = {start, mark, mark_ctx};
  return tag_run(e, m, opts, files, n_files, NULL, &marks, sink, sink_ctx, rep);
}

vt_status vt_engine_tag_part(vt_engine *e, const vt_model *m, const vt_tag_opts *opts,
                             const vt_corpus_part *part, vt_sink_fn sink, void *sink_ctx,
                             vt_run_report *rep) {
  if (!part) {
    if (rep) memset(rep, 0, sizeof *rep);
    return vt_fail(VT_EINVAL, "tag: no corpus part");
  }
  return tag_run(e, m, opts, NULL, 0, part, NULL, sink, sink_ctx, rep);
}

void vt_conf_opts_init(vt_conf_opts *o) { memset(o, 0, sizeof *o); }

vt_status vt_engine_decode(vt_engine *e, const vt_trans *trans, const vt_decode_opts *opts,
                           const vt_lattices *lat, vt_sink_fn sink, void *sink_ctx,
                           vt_run_report *rep) {
  return vt_engine_decode_conf(e, trans, opts, NULL, lat, sink, sink_ctx, rep);
}

vt_status vt_engine_decode_conf(vt_engine *e, const vt_trans *trans, const vt_decode_opts *opts,
                                const vt_conf_opts *conf, const vt_lattices *lat, vt_sink_fn sink,
                                void *sink_ctx, vt_run_report *rep) {
  return vt_engine_decode_range(e, trans, opts, conf, lat, 0, vt_lattices_sentences(lat), sink,
                                sink_ctx, rep);
}

/* vt_engine_decode_range and vt_engine_decode_from: sentences [first, first + count). */
static vt_status decode_run(vt_engine *e, const vt_trans *trans, const vt_decode_opts *opts,
                            const vt_conf_opts *conf, const vt_lattices *lat, int64_t first,
                            int64_t count, vt_mark_fn mark, void *mark_ctx, vt_sink_fn sink,
                            void *sink_ctx, vt_run_report *rep) {
  vt_run_report local;
  vt_decode_opts o;
  if (!rep) rep = &local;
  memset(rep, 0, sizeof *rep);
  if (opts)
    o = *opts;
  else
    vt_decode_opts_init(&o);
  if (o.k < 1 || (o.k > 1 && !vt_algo_kbest(o.algo)) || (o.algo == VT_ALGO_BEAM && o.beam < 1))
    return vt_fail(VT_EINVAL, "decode: k >= 1 (1 for a 1-best algorithm) and beam >= 1 expected");
  vt_conf_opts c;
  if (conf)
    c = *conf;
  else
    vt_conf_opts_init(&c);
  char err[VT_ERR_LINE];
  vt_status st = vt_decode_job_run(e, trans, &o, &c, lat, first, count, mark, mark_ctx, sink,
                                   sink_ctx, rep, err, sizeof err);
  return st == VT_OK ? st : vt_fail(st, "%s", err);
}

vt_status vt_engine_decode_range(vt_engine *e, const vt_trans *trans, const vt_decode_opts *opts,
                                 const vt_conf_opts *conf, const vt_lattices *lat, int64_t first,
                                 int64_t count, vt_sink_fn sink, void *sink_ctx,
                                 vt_run_report *rep) {
  return decode_run(e, trans, opts, conf, lat, first, count, NULL, NULL, sink, sink_ctx, rep);
}

vt_status vt_engine_decode_from(vt_engine *e, const vt_trans *trans, const vt_decode_opts *opts,
                                const vt_conf_opts *conf, const vt_lattices *lat, int64_t first,
                                vt_mark_fn mark, void *mark_ctx, vt_sink_fn sink, void *sink_ctx,
                                vt_run_report *rep) {
  const int64_t n = lat ? vt_lattices_sentences(lat) : 0;
  return decode_run(e, trans, opts, conf, lat, first, first >= 0 && first <= n ? n - first : -1,
                    mark, mark_ctx, sink, sink_ctx, rep);
}
