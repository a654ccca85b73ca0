/* engine/cli/engine_opts.c: the engine options of the batch commands, and their engine. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/engine_opts.h"

const char vt_cli_engine_usage[] =
    "engine:\n"
    "  --threads N        workers (default: OMP_NUM_THREADS, else one per CPU)\n"
    "  --bind MODE        core (default): each worker pinned to its own core; numa: to its\n"
    "                     NUMA node's cores; none: not bound (one queue, ordinary memory)\n"
    "  --batch-tokens N   tokens per batch (default 4096; a longer sentence is its own batch)\n"
    "  --topology T       plan for a hwloc synthetic topology or XML file instead of this\n"
    "                     machine, binding nothing (testing; see vitesse topo)\n"
    "  --quiet            no progress line (shown only when stderr is a terminal)\n"
    "  --stats            print a JSON object of run statistics on stderr at the "
    "end\n" VT_CLI_MAX_MODEL_MEMORY_USAGE;

void vt_cli_engine_init(vt_cli_engine *e) {
  memset(e, 0, sizeof *e);
  vt_engine_opts_init(&e->opts);
  /* The CLI's sinks (vt_sink_file, the label-name rewriter) only need their calls ordered: let
   * the workers write, so the serial thread only reads and cuts. */
  e->opts.sink_any_thread = 1;
}

int vt_cli_engine_opt(vt_cli_engine *e, int code, const char *arg) {
  long long v;
  switch (code) {
  case VT_CLI_OPT_THREADS:
    if (vt_cli_parse_int(arg, 0, 4096, &v)) { /* 0: one per core */
      vt_cli_error("--threads: expected an integer in 0..4096, got '%s'", arg);
      return -1;
    }
    e->opts.threads = (int)v;
    return 1;
  case VT_CLI_OPT_BIND:
    if (vt_bind_parse(arg, &e->opts.bind) != VT_OK) {
      vt_cli_error("--bind: expected none|core|numa, got '%s'", arg);
      return -1;
    }
    return 1;
  case VT_CLI_OPT_TOPOLOGY: e->opts.topology = arg; return 1;
  case VT_CLI_OPT_BATCH_TOKENS:
    if (vt_cli_parse_int(arg, 1, (long long)1 << 40, &v)) {
      vt_cli_error("--batch-tokens: expected a positive integer, got '%s'", arg);
      return -1;
    }
    e->opts.batch_tokens = v;
    return 1;
  case VT_CLI_OPT_QUIET: e->quiet = 1; return 1;
  case VT_CLI_OPT_STATS: e->stats = 1; return 1;
  case VT_CLI_OPT_RESUME: e->resume = 1; return 1;
  case VT_CLI_OPT_PROGRESS: e->progress_lines = 1; return 1;
  case VT_CLI_OPT_MAX_MODEL_MEMORY: return vt_cli_max_model_memory(arg) ? -1 : 1;
  }
  return 0;
}

int vt_cli_engine_start(vt_cli_engine *e, int64_t total_items, vt_engine **out) {
  vt_cli_progress_init(&e->progress, e->quiet, total_items);
  vt_cli_progress_log_init(&e->log, e->progress_lines, total_items);
  if (e->log.enabled) { /* lines for a log, not the terminal's line */
    e->opts.progress = vt_cli_progress_log_show;
    e->opts.progress_ctx = &e->log;
  } else if (e->progress.enabled) {
    e->opts.progress = vt_cli_progress_show;
    e->opts.progress_ctx = &e->progress;
  }
  if (vt_engine_create(out, &e->opts) != VT_OK) {
    vt_cli_error("%s", vt_last_error());
    return -1;
  }
  vt_cli_signals_install(*out);
  return 0;
}

void vt_cli_engine_stop(vt_engine *eng) {
  vt_cli_signals_restore();
  vt_engine_destroy(eng);
}
