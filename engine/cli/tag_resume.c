/* engine/cli/tag_resume.c: a tagging run that survives its end (tag_resume.h): the identity of
 * the run (the model, the input files, the options that change the output, the files they name)
 * and vt_engine_tag_from from the saved place; what is kept beside OUT, and how, is resume.c's. */
#define _POSIX_C_SOURCE 200809L
#include "cli/tag_resume.h"

#include <errno.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/resume.h"

/* The options that change no output byte (engine options, --resume...); -o and -m are
 * resume.c's. The model is identified by its content. */
static const char *const neutral_with_arg[] = {
    "threads", "bind", "topology", "batch-tokens", "output", "model", "max-model-memory", NULL};
static const char *const neutral_no_arg[] = {"quiet", "stats", "resume", "progress", NULL};

/* The identity of the run `r` into *id: model, inputs, options, the files options name. -1
 * after printing one line. */
static int identity(const vt_cli_tag_run *r, const char *head, vt_cli_resume_id *id) {
  char says[600];
  vt_cli_resume_id_line(id, "the progress file is not one of vitesse tag --resume", "%s", head);
  snprintf(says, sizeof says, "the model %s differs (size mtime hash)",
           r->model_path ? r->model_path : "-");
  if (!r->model_path) {
    vt_cli_error("tag: --resume: needs the model as a file (-m MODEL)");
    return -1;
  }
  if (vt_cli_resume_id_file(id, "tag", "model", says, r->model_path)) return -1;
  vt_cli_resume_id_line(id, "the number of input files differs", "inputs %d", r->n_files);
  for (int i = 0; i < r->n_files; i++) {
    snprintf(says, sizeof says, "the input %s differs (size mtime hash)", r->files[i]);
    if (vt_cli_resume_id_file(id, "tag", "input", says, r->files[i])) return -1;
  }
  vt_cli_resume_id_options(id, r->opts, r->n_opts, neutral_with_arg, neutral_no_arg);
  /* The files options name (a tag dictionary, forbidden transitions): their content too. */
  for (int i = 0; i < r->n_opts; i++) {
    const char *a = r->opts[i], *path = NULL;
    for (int k = 0; k < 2 && !path; k++) {
      const char *name = k ? "--forbid-transitions" : "--tag-dict";
      size_t n = strlen(name);
      if (!strcmp(a, name) && i + 1 < r->n_opts)
        path = r->opts[i + 1];
      else if (!strncmp(a, name, n) && a[n] == '=')
        path = a + n + 1;
    }
    if (!path) continue;
    snprintf(says, sizeof says,
             "a file an option names (--tag-dict, --forbid-transitions), %s, "
             "differs (size mtime hash)",
             path);
    if (vt_cli_resume_id_file(id, "tag", "file", says, path)) return -1;
  }
  return 0;
}

/* The refusals that need no file: one line, exit 2; -1 when the run may resume. */
static int refuse(const vt_cli_tag_run *r) {
  const char *why = NULL;
  if (!r->out_path || !strcmp(r->out_path, "-"))
    why = "needs -o OUT (the progress is kept beside OUT)";
  else if (r->n_files == 0)
    why = "standard input cannot resume: name the input files";
  else if (r->filter)
    why = "not with -t or -q (their scores cover the whole run)";
  else if (r->to->eval)
    why = "not with --eval (its scores cover the whole run)";
  for (int i = 0; !why && i < r->n_files; i++)
    if (!strcmp(r->files[i], "-")) why = "standard input cannot resume: name the input files";
  if (!why) return -1;
  vt_cli_error("tag: --resume: %s", why);
  return VT_EXIT_USAGE;
}

int vt_cli_tag_resume_id(const vt_cli_tag_run *r, const char *head, vt_cli_resume_id *id) {
  int rc = refuse(r);
  memset(id, 0, sizeof *id);
  if (rc >= 0) return rc;
  if (identity(r, head, id)) {
    vt_cli_resume_id_free(id);
    return VT_EXIT_USAGE;
  }
  return -1;
}

int vt_cli_tag_resume_drive(const vt_cli_tag_run *r) {
  vt_cli_resume rr;
  vt_cli_resume_id id;
  vt_engine *eng = NULL;
  int rc = vt_cli_tag_resume_id(r, "vitesse-tag-resume 1", &id);
  memset(&rr, 0, sizeof rr);
  if (rc >= 0) return rc;
  const vt_corpus_pos *from;
  const char *const outs[1] = {r->out_path};
  if ((rc = vt_cli_resume_begin(&rr, "tag", outs, 1, &id, r->files, r->n_files, r->run->quiet,
                                &from)) >= 0)
    goto done;
  rc = VT_EXIT_USAGE;
  if (vt_cli_engine_start(r->run, 0, &eng) != 0) goto done;
  vt_cli_progress_log_from(&r->run->log, from ? from->sentences : 0);
  const double t0 = vt_cli_now(), c0 = vt_cli_cpu_now();
  vt_run_report rep;
  vt_status st = vt_engine_tag_from(eng, r->m, r->to, r->files, r->n_files, from,
                                    vt_cli_resume_mark, &rr, vt_sink_file, rr.out[0], &rep);
  vt_cli_omp_release();
  char what[160];
  snprintf(what, sizeof what, "%lld sentences were tagged in order",
           (long long)(rr.at.sentences ? rr.at.sentences : rep.sentences));
  if ((rc = vt_cli_resume_finish(&rr, st, rep.write_errno, what, vt_cli_tag_fail_code(st))) != 0)
    goto done;
  vt_cli_tag_report(r, &rep, eng, t0, c0);
  rc = VT_EXIT_OK;
done:
  vt_cli_resume_end(&rr);
  vt_cli_engine_stop(eng);
  return rc;
}
