/* engine/cli/engine_cli.h: what the batch commands (`decode`, and `tag` when it plugs in) share
 * to run on the engine (engine/sched/scheduler.h): the engine options and their parsing, the plan,
 * signals, the progress line and the --stats report.
 *
 * A batch command splices VT_CLI_ENGINE_LONGOPTS into its getopt_long table, passes every
 * option code to vt_cli_engine_opt first, appends vt_cli_engine_usage to its --help, calls
 * vt_cli_engine_plan, vt_cli_signals_install, and runs its vt_sched_job (decode: run.c). */
#ifndef VT_CLI_ENGINE_CLI_H
#define VT_CLI_ENGINE_CLI_H

#include <getopt.h>
#include <stdatomic.h>
#include <stdio.h>

#include "scheduler.h"
#include "topo.h"

/* Default token budget of a batch: large enough that a batch takes milliseconds (scheduling
 * costs nothing), small enough that a few batches per worker in flight stay a few MB. */
#define VT_CLI_BATCH_TOKENS 4096

typedef struct vt_cli_engine {
  int threads;          /* workers; 0 = one per core */
  vt_bind bind;         /* default core */
  const char *topology; /* NULL: this machine; else plan for that topology, bind nothing */
  int64_t batch_tokens; /* token budget of a batch (a longer sentence is a batch of its own) */
  int slots;            /* batches in flight; 0 = 4 per worker */
  int quiet;            /* no progress line */
  int stats;            /* --stats */
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

/* Sets the defaults: one worker per core, bind core, this machine, VT_CLI_BATCH_TOKENS. */
void vt_cli_engine_init(vt_cli_engine *e);

/* Handles option `code` (from getopt_long) with argument `arg`. Returns 1 when it was an engine
 * option, 0 when it is not one, -1 for a bad value (the message is printed). */
int vt_cli_engine_opt(vt_cli_engine *e, int code, const char *arg);

/* What a batch command holds while it runs on the engine: its options, the machine and plan
 * they lead to, and the run's statistics. */
typedef struct vt_cli_batch {
  vt_cli_engine eng;
  vt_topo topo;
  vt_plan plan;
  vt_sched_stats ss; /* its `workers` array is owned (freed by vt_cli_batch_free) */
} vt_cli_batch;

/* Engine defaults (vt_cli_engine_init), no plan, no statistics yet. */
void vt_cli_batch_init(vt_cli_batch *b);

/* Restores the signal handlers (vt_cli_signals_restore) and frees the plan, the topology and
 * the per-worker statistics. Fine on a batch that never planned. */
void vt_cli_batch_free(vt_cli_batch *b);

/* Loads the topology (`e->topology` or this machine) and plans e->threads workers on it.
 * Prints the problem and returns nonzero on failure (*topo and *plan are then zeroed). */
int vt_cli_engine_plan(const vt_cli_engine *e, vt_topo *topo, vt_plan *plan);

/* ---- signals --------------------------------------------------------------------------------- */

/* The signal that asked the run to stop (SIGINT or SIGTERM), 0 while none did. Pass it as the
 * job's cancel flag. */
extern atomic_int vt_cli_stop;

/* SIGINT and SIGTERM set vt_cli_stop (a second one kills as usual: the handler is reset after
 * the first), unless the signal was ignored at start (background jobs of a shell); SIGPIPE is
 * ignored, so a write to a closed pipe fails with EPIPE instead. */
void vt_cli_signals_install(void);

/* Ends a run's output: when writing to stdout (`to_stdout`) and *st is VT_OK, flushes it to see a
 * closed pipe (then *st becomes VT_EIO); `werr` is the errno of a failed write, 0 if none.
 * Returns the exit status to end with (128 + SIGPIPE quietly for a closed pipe, VT_EXIT_FAIL
 * after printing a write error), or -1 when the caller goes on. */
int vt_cli_output_end(vt_status *st, int werr, int to_stdout, const char *out_path);

/* Restores the default actions. */
void vt_cli_signals_restore(void);

/* ---- progress -------------------------------------------------------------------------------- */

typedef struct vt_cli_progress {
  int enabled;         /* stderr is a terminal and not --quiet */
  int64_t total_items; /* for the ETA; 0 = unknown */
  const char *unit;    /* "sentences" */
  int shown;           /* a line is on the terminal */
} vt_cli_progress;

/* Prepares the progress line: enabled only when stderr is a terminal and `quiet` is 0. */
void vt_cli_progress_init(vt_cli_progress *pg, int quiet, int64_t total_items);

/* Redraws the line from `p` (items done, tokens/s, elapsed, ETA); the final call erases it. */
void vt_cli_progress_show(vt_cli_progress *pg, const vt_sched_progress *p);

/* ---- statistics ------------------------------------------------------------------------------ */

/* Prints the engine's part of the --stats JSON object, as `"key": value` pairs separated by
 * ", " without braces: threads, bind, batch tokens, slots, wall/read/decode/write split, the
 * per-worker array, and the process's VmRSS, RssAnon and VmHWM in kB (-1 where /proc has none). */
void vt_cli_engine_stats_json(FILE *f, const vt_cli_engine *e, const vt_plan *plan,
                              const vt_sched_stats *st);

#endif
