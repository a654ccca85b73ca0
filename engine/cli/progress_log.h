/* engine/cli/progress_log.h: --progress, the lines a job scheduler's log reads (progress_log.c):
 * unlike the terminal's progress line (progress.h), whole lines of fields that keep their format,
 * at a bounded interval and at the end, whatever stderr is. */
#ifndef VT_CLI_PROGRESS_LOG_H
#define VT_CLI_PROGRESS_LOG_H

#include <stdint.h>

#include "vitesse.h"

typedef struct vt_cli_progress_log {
  int enabled;   /* --progress */
  int64_t total; /* sentences of the whole input; 0: unknown (the input's bytes say how far) */
  int64_t base;  /* sentences before this run's start (a resumed run) */
  double every;  /* seconds between lines (VITESSE_PROGRESS_INTERVAL, default 10) */
  double due;    /* the run's elapsed time at which the next line is due */
  int have_first;
  double t_first; /* the first call's elapsed time and input bytes read (the rate's start) */
  int64_t bytes_first;
} vt_cli_progress_log;

/* The --help line of --progress, and its getopt_long entry (code: the command's). */
#define VT_CLI_PROGRESS_USAGE                                                                      \
  "  --progress      a line on stderr every 10 s and at the end (VITESSE_PROGRESS_INTERVAL\n"      \
  "                  seconds): \"vitesse progress: sentences=N total=N|- percent=P rate=R\n"       \
  "                  eta=S|- elapsed=S state=running|end|stopped\" (docs/engine.md)\n"

/* Prepares the lines of a run of `total` sentences (0: unknown), `enabled` by --progress. */
void vt_cli_progress_log_init(vt_cli_progress_log *pl, int enabled, int64_t total);

/* A resumed run: `sentences` were done before its start (they count in the lines). */
void vt_cli_progress_log_from(vt_cli_progress_log *pl, int64_t sentences);

/* A vt_engine_opts progress callback (ctx: the vt_cli_progress_log): with --progress, a line
 * when one is due and on the final call. */
void vt_cli_progress_log_show(void *ctx, const vt_progress *p);

#endif
