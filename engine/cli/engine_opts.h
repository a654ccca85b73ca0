/* engine/cli/engine_opts.h: what the batch commands (`decode`, `tag`, `topo`) share to run on
 * the library's engine (vt_engine): the engine options and their parsing, signals, the progress
 * line.
 *
 * A batch command splices VT_CLI_ENGINE_LONGOPTS into its getopt_long table, passes every
 * option code to vt_cli_engine_opt first, appends vt_cli_engine_usage to its --help, creates the
 * engine with vt_cli_engine_start (which also installs the signal handlers), runs it, and ends
 * with vt_cli_engine_stop. */
#ifndef VT_CLI_ENGINE_CLI_H
#define VT_CLI_ENGINE_CLI_H

#include <getopt.h>
#include <stdatomic.h>
#include <stdio.h>

#include "vitesse.h"

typedef struct vt_cli_progress {
  int enabled;         /* stderr is a terminal and not --quiet */
  int64_t total_items; /* for the ETA; 0 = unknown */
  const char *unit;    /* "sentences" */
  int shown;           /* a line is on the terminal */
} vt_cli_progress;

typedef struct vt_cli_engine {
  vt_engine_opts opts; /* threads, bind, topology, batch tokens (vt_engine_opts_init) */
  int quiet;           /* no progress line */
  int stats;           /* --stats */
  vt_cli_progress progress;
} vt_cli_engine;

enum {
  VT_CLI_OPT_THREADS = 1100, /* above the corpus options of text_cli.h */
  VT_CLI_OPT_BIND,
  VT_CLI_OPT_TOPOLOGY,
  VT_CLI_OPT_BATCH_TOKENS,
  VT_CLI_OPT_QUIET,
  VT_CLI_OPT_STATS
};

#define VT_CLI_ENGINE_LONGOPTS                                                                     \
  {"threads", required_argument, 0, VT_CLI_OPT_THREADS},                                           \
      {"bind", required_argument, 0, VT_CLI_OPT_BIND},                                             \
      {"topology", required_argument, 0, VT_CLI_OPT_TOPOLOGY},                                     \
      {"batch-tokens", required_argument, 0, VT_CLI_OPT_BATCH_TOKENS},                             \
      {"quiet", no_argument, 0, VT_CLI_OPT_QUIET}, {                                               \
    "stats", no_argument, 0, VT_CLI_OPT_STATS                                                      \
  }

/* The --help lines of the engine options. */
extern const char vt_cli_engine_usage[];

/* Sets the defaults: one worker per core, bind core, this machine, 4096 tokens a batch. */
void vt_cli_engine_init(vt_cli_engine *e);

/* Handles option `code` (from getopt_long) with argument `arg`. Returns 1 when it was an engine
 * option, 0 when it is not one, -1 for a bad value (the message is printed). */
int vt_cli_engine_opt(vt_cli_engine *e, int code, const char *arg);

/* Creates the engine of `e` into *out (the progress line, when enabled, counts `total_items`:
 * 0 = unknown) and installs the signal handlers that cancel it. Prints the problem and returns
 * nonzero on failure (*out is then NULL). */
int vt_cli_engine_start(vt_cli_engine *e, int64_t total_items, vt_engine **out);

/* Restores the signal handlers and destroys the engine (NULL: only the handlers). */
void vt_cli_engine_stop(vt_engine *eng);

/* ---- signals --------------------------------------------------------------------------------- */

/* The signal that asked the run to stop (SIGINT or SIGTERM), 0 while none did. */
extern atomic_int vt_cli_stop;

/* SIGINT and SIGTERM set vt_cli_stop and cancel `eng` (may be NULL) (a second one removes the
 * temporary file of vt_cli_signals_temp and kills as usual), unless the signal was ignored at
 * start (background jobs of a shell); SIGPIPE is ignored, so a write to a closed pipe fails with
 * EPIPE instead. */
void vt_cli_signals_install(vt_engine *eng);

/* Registers `path` (copied; NULL: none) as the temporary output file a second SIGINT or SIGTERM
 * removes before the process dies: vt_output_temp_path once the output is open, NULL before it
 * is committed or aborted (NULL also forgets the extra file). vt_cli_signals_restore forgets it. */
void vt_cli_signals_temp(const char *path);

/* As vt_cli_signals_temp, for a second temporary file (decode's --posteriors); a
 * vt_cli_signals_temp(NULL) forgets both. */
void vt_cli_signals_temp_extra(const char *path);

/* With `on`, the first SIGINT/SIGTERM already removes the temporary files (then asks the run to
 * stop as usual): for vitesse-mpi, whose ranks a launcher may SIGKILL soon after the signal
 * (Open MPI's mpirun: odls_base_sigkill_timeout seconds after its SIGTERM), before the run's
 * own clean-up. */
void vt_cli_signals_unlink_first(int on);

/* Ends a run's output: when writing to stdout (`to_stdout`) and *st is VT_OK, flushes it to see a
 * closed pipe (then *st becomes VT_EIO); `werr` is the errno of a failed write, 0 if none.
 * Returns the exit status to end with (128 + SIGPIPE quietly for a closed pipe, VT_EXIT_FAIL
 * after printing a write error), or -1 when the caller goes on. */
int vt_cli_output_end(vt_status *st, int werr, int to_stdout, const char *out_path);

/* Ends a tagging run (tag, chunk-tag) whose vt_engine_tag returned `st` with report `rep`,
 * writing to *of (target `out_path`): a write error or closed pipe as vt_cli_output_end; a cancel
 * says how many sentences were tagged in order and ends with 128 + the signal; another failure
 * prints vt_last_error and ends with `fail_rc`; on success commits *of (set to NULL). Returns the
 * exit status to end with, or -1 when the run succeeded and the caller goes on. */
int vt_cli_tag_end(vt_status st, const vt_run_report *rep, vt_output **of, const char *out_path,
                   int fail_rc);

/* Restores the default actions. */
void vt_cli_signals_restore(void);

/* ---- progress -------------------------------------------------------------------------------- */

/* Prepares the progress line: enabled only when stderr is a terminal and `quiet` is 0. */
void vt_cli_progress_init(vt_cli_progress *pg, int quiet, int64_t total_items);

/* Redraws the line from `p` (items done, tokens/s, elapsed, ETA); the final call erases it. A
 * vt_engine_opts progress callback (ctx: the vt_cli_progress). */
void vt_cli_progress_show(void *ctx, const vt_progress *p);

#endif
