/* engine/cli/engine_opts.h: what the batch commands (`decode`, `tag`, `topo`) share to run on
 * the library's engine (vt_engine): the engine options and their parsing; the signals
 * (signals.h) and the progress line (progress.h) come with them.
 *
 * A batch command splices VT_CLI_ENGINE_LONGOPTS into its getopt_long table, passes every
 * option code to vt_cli_engine_opt first, appends vt_cli_engine_usage to its --help, creates the
 * engine with vt_cli_engine_start (which also installs the signal handlers), runs it, and ends
 * with vt_cli_engine_stop. */
#ifndef VT_CLI_ENGINE_OPTS_H
#define VT_CLI_ENGINE_OPTS_H

#include <getopt.h>
#include <stdatomic.h>
#include <stdio.h>

#include "cli/output_end.h"
#include "cli/progress.h"
#include "cli/progress_log.h"
#include "cli/signals.h"
#include "vitesse.h"

typedef struct vt_cli_engine {
  vt_engine_opts opts; /* threads, bind, topology, batch tokens (vt_engine_opts_init) */
  int quiet;           /* no progress line */
  int stats;           /* --stats */
  int resume;          /* --resume (tag, chunk-tag, decode: VT_CLI_RESUME_LONGOPT) */
  int progress_lines;  /* --progress (tag, chunk-tag, decode: VT_CLI_PROGRESS_LONGOPT) */
  vt_cli_progress progress;
  vt_cli_progress_log log; /* the --progress lines */
} vt_cli_engine;

enum {
  VT_CLI_OPT_THREADS = 1100, /* above the corpus options of text_cli.h */
  VT_CLI_OPT_BIND,
  VT_CLI_OPT_TOPOLOGY,
  VT_CLI_OPT_BATCH_TOKENS,
  VT_CLI_OPT_QUIET,
  VT_CLI_OPT_STATS,
  VT_CLI_OPT_MAX_MODEL_MEMORY,
  VT_CLI_OPT_RESUME,
  VT_CLI_OPT_PROGRESS
};

/* --resume, for the commands that can resume a run (tag, chunk-tag: tag_resume.h). */
#define VT_CLI_RESUME_LONGOPT                                                                      \
  { "resume", no_argument, 0, VT_CLI_OPT_RESUME }

/* --progress, for the commands that print its lines (tag, chunk-tag, decode: progress_log.h). */
#define VT_CLI_PROGRESS_LONGOPT                                                                    \
  { "progress", no_argument, 0, VT_CLI_OPT_PROGRESS }

/* The --help line of --resume. */
#define VT_CLI_RESUME_USAGE                                                                        \
  "  --resume        with -o OUT: keep the progress durably beside OUT (OUT.partial,\n"            \
  "                  OUT.progress); the same command run again after a kill continues\n"           \
  "                  after the last durable sentence, and OUT is the same bytes\n"

#define VT_CLI_ENGINE_LONGOPTS                                                                     \
  {"threads", required_argument, 0, VT_CLI_OPT_THREADS},                                           \
      {"bind", required_argument, 0, VT_CLI_OPT_BIND},                                             \
      {"topology", required_argument, 0, VT_CLI_OPT_TOPOLOGY},                                     \
      {"batch-tokens", required_argument, 0, VT_CLI_OPT_BATCH_TOKENS},                             \
      {"quiet", no_argument, 0, VT_CLI_OPT_QUIET},                                                 \
      {"max-model-memory", required_argument, 0, VT_CLI_OPT_MAX_MODEL_MEMORY}, {                   \
    "stats", no_argument, 0, VT_CLI_OPT_STATS                                                      \
  }

/* The --help lines of the engine options. */
extern const char vt_cli_engine_usage[];

/* Sets the defaults: one worker per core, bind core, this machine, 4096 tokens a batch. */
void vt_cli_engine_init(vt_cli_engine *e);

/* Handles option `code` (from getopt_long) with argument `arg`. Returns 1 when it was an engine
 * option, 0 when it is not one, -1 for a bad value (the message is printed). */
int vt_cli_engine_opt(vt_cli_engine *e, int code, const char *arg);

/* Creates the engine of `e` into *out (the progress line, when enabled, and the --progress
 * lines, which replace it, count `total_items`: 0 = unknown) and installs the signal handlers that
 * cancel it. Prints the problem and returns nonzero on failure (*out is then NULL). */
int vt_cli_engine_start(vt_cli_engine *e, int64_t total_items, vt_engine **out);

/* Restores the signal handlers and destroys the engine (NULL: only the handlers). */
void vt_cli_engine_stop(vt_engine *eng);

#endif
