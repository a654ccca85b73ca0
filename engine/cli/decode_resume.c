/* engine/cli/decode_resume.c: a decoding run that survives its end (decode_resume.h): the
 * identity of the run (every file the options name, the options that change the output, and the
 * SIMD level with --logz or --posteriors) and vt_engine_decode_from the saved place; resume.c keeps
 * the files beside OUT. */
#include "cli/decode_resume.h"

#include <string.h>

#include "cli/resume.h"

/* The options that change no output byte: engine options, --resume, and the files (identified
 * by their content); -o is resume.c's. */
static const char *const neutral_with_arg[] = {
    "threads", "bind",      "topology", "batch-tokens",       "max-model-memory",
    "output",  "emissions", "lengths",  "transitions",        "start",
    "end",     "rank",      "labels",   "forbid-transitions", NULL};
static const char *const neutral_no_arg[] = {"quiet", "stats", "resume", "progress", NULL};

/* The identity of the run `d` into *id; -1 after printing one line. */
static int identity(const vt_cli_decode *d, char *const *opts, int n_opts, vt_cli_resume_id *id) {
  static const char *const key[8] = {"emissions", "lengths", "transitions",        "start",
                                     "end",       "rank",    "forbid-transitions", "labels"};
  const char *path[8] = {d->in_path[0], d->in_path[1], d->in_path[2],  d->in_path[3],
                         d->in_path[4], d->in_path[5], d->forbid_path, d->labels_path};
  char says[600];
  vt_cli_resume_id_line(id, "the progress file is not one of vitesse decode --resume",
                        "vitesse-decode-resume 1");
  for (int i = 0; i < 8; i++) {
    snprintf(says, sizeof says, "the --%s file %s differs (size mtime hash)", key[i],
             path[i] ? path[i] : "(none)");
    if (!path[i])
      vt_cli_resume_id_line(id, says, "%s -", key[i]);
    else if (vt_cli_resume_id_file(id, "decode", key[i], says, path[i]))
      return -1;
  }
  vt_cli_resume_id_options(id, opts, n_opts, neutral_with_arg, neutral_no_arg);
  /* After the options (which say whether there are log Z and marginals). The lines are the same
   * bytes at every SIMD level; log Z and the marginals may differ in the last bits. */
  vt_cli_resume_id_line(id,
                        "the SIMD level differs (log Z and the marginals may too in their last "
                        "bits: run where it ran, or set VITESSE_SIMD to the one it had)",
                        "simd %s",
                        d->post_path || d->conf.logz ? vt_simd_name(vt_simd_active()) : "any");
  return 0;
}

int vt_cli_decode_resume_run(vt_cli_decode *d, char *const *opts, int n_opts) {
  vt_cli_resume rr;
  vt_cli_resume_id id;
  vt_engine *eng = NULL;
  int rc = VT_EXIT_USAGE;
  memset(&rr, 0, sizeof rr);
  memset(&id, 0, sizeof id);
  if (!d->out_path || !strcmp(d->out_path, "-")) {
    vt_cli_error("decode: --resume: needs -o OUT (the progress is kept beside OUT)");
    return VT_EXIT_USAGE;
  }
  if (identity(d, opts, n_opts, &id)) {
    vt_cli_resume_id_free(&id);
    return VT_EXIT_USAGE;
  }
  const vt_corpus_pos *from;
  const char *const outs[2] = {d->out_path, d->post_path};
  if ((rc = vt_cli_resume_begin(&rr, "decode", outs, d->post_path ? 2 : 1, &id, NULL, 0,
                                d->run.quiet, &from)) >= 0)
    goto done;
  rc = VT_EXIT_USAGE;
  const int64_t n_sent = vt_lattices_sentences(d->lat), first = from ? from->sentences : 0;
  if (first > n_sent) {
    vt_cli_error("decode: --resume: %s: its place, after %lld sentences, is beyond the %lld of "
                 "the lattices; remove it and %s to start over",
                 rr.progress, (long long)first, (long long)n_sent, rr.partial[0]);
    goto done;
  }
  if (vt_cli_engine_start(&d->run, n_sent, &eng) != 0) goto done;
  vt_cli_progress_log_from(&d->run.log, first);
  if (d->post_path) {
    d->conf.post_sink = vt_sink_file;
    d->conf.post_ctx = rr.out[1];
  }
  d->names.sink = vt_sink_file;
  d->names.sink_ctx = rr.out[0];
  vt_run_report rs;
  vt_status st =
      d->labels_path
          ? vt_engine_decode_from(eng, d->trans, &d->opts, &d->conf, d->lat, first,
                                  vt_cli_resume_mark, &rr, vt_cli_names_sink, &d->names, &rs)
          : vt_engine_decode_from(eng, d->trans, &d->opts, &d->conf, d->lat, first,
                                  vt_cli_resume_mark, &rr, vt_sink_file, rr.out[0], &rs);
  vt_cli_omp_release();
  char what[160];
  snprintf(what, sizeof what, "%lld of %lld sentences were decoded in order",
           (long long)rr.at.sentences, (long long)n_sent);
  if ((rc = vt_cli_resume_finish(&rr, st, rs.write_errno, what, VT_EXIT_FAIL)) != 0) goto done;
  if (d->run.stats) {
    vt_cli_decode_stats(d, &rs, stderr);
    vt_engine_stats_json(eng, stderr);
    fputs("}\n", stderr);
  }
  rc = VT_EXIT_OK;
done:
  vt_cli_resume_end(&rr);
  vt_cli_engine_stop(eng);
  return rc;
}
