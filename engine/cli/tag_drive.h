/* engine/cli/tag_drive.h: one tagging run of `vitesse tag` and `vitesse chunk-tag`, for a model
 * of any kind: the engine, the atomic output file, vt_engine_tag, the end of the run (tag_drive.c).
 * The commands differ only in their options and in what they print after the run. */
#ifndef VT_CLI_TAG_DRIVE_H
#define VT_CLI_TAG_DRIVE_H

#include <stdio.h>

#include "cli/engine_opts.h"
#include "vitesse.h"

typedef struct vt_cli_tag_run {
  vt_cli_engine *run; /* the engine options (--threads, --stats, ...) */
  const vt_model *m;
  const vt_tag_opts *to;
  const char *const *files; /* n_files of them; none: standard input */
  int n_files;
  const char *out_path; /* NULL: standard output */
  /* With --resume (run->resume): the model's file and the options as given (n_opts arguments,
   * the files excluded), part of the run's identity (tag_resume.h). */
  const char *model_path;
  char *const *opts;
  int n_opts;
  /* Optional: after a run that succeeded, what the command prints on `f` (stderr): an
   * evaluation, and with --stats the opening of its JSON object (the engine's figures and the
   * closing brace follow). `secs`: the run's wall time, `cpu`: the process's CPU time in it. */
  void (*report)(void *ctx, const vt_run_report *rep, double secs, double cpu, FILE *f);
  void *ctx;
  /* Optional: a filter the output passes through on its way to the output stream (NULL:
   * straight there). *filter_out is set to the stream before the run; after a run that
   * succeeded, filter_end may write more (`secs`: the run's wall time) before the output is
   * committed. */
  vt_sink_fn filter;
  void *filter_ctx;
  FILE **filter_out;
  vt_status (*filter_end)(void *filter_ctx, double secs);
} vt_cli_tag_run;

/* The exit status of a tagging run that failed with `st`: bad input (a malformed corpus, an
 * option the model does not take, an unreadable file) VT_EXIT_USAGE, anything else
 * VT_EXIT_FAIL. */
int vt_cli_tag_fail_code(vt_status st);

/* After a run of `r` that succeeded (its report `rep`, on the engine `eng`): r->report's lines
 * (the wall and CPU seconds since t0 and c0, vt_cli_now and vt_cli_cpu_now), then with --stats
 * the engine's figures and the closing brace, on stderr. */
void vt_cli_tag_report(const vt_cli_tag_run *r, const vt_run_report *rep, vt_engine *eng, double t0,
                       double c0);

/* Runs `r`: starts the engine, opens the output, tags, ends as vt_cli_tag_end (bad input exits
 * 2, a failure 1, a cancel 128 + the signal, nothing left behind), reports. Returns the exit
 * status. */
int vt_cli_tag_drive(const vt_cli_tag_run *r);

#endif
