/* engine/cli/engine_opts.c: the engine options of the batch commands, and their plan. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "engine_cli.h"

const char vt_cli_engine_usage[] =
    "engine:\n"
    "  --threads N        workers (default: one per core)\n"
    "  --bind MODE        core (default): each worker pinned to its own core; numa: to its\n"
    "                     NUMA node's cores; none: not bound (one queue, ordinary memory)\n"
    "  --batch-tokens N   tokens per batch (default 4096; a longer sentence is its own batch)\n"
    "  --topology T       plan for a hwloc synthetic topology or XML file instead of this\n"
    "                     machine, binding nothing (testing; see vitesse topo)\n"
    "  --quiet            no progress line (shown only when stderr is a terminal)\n"
    "  --stats            print a JSON object of run statistics on stderr at the end\n";

void vt_cli_engine_init(vt_cli_engine *e) {
  memset(e, 0, sizeof *e);
  e->bind = VT_BIND_CORE;
  e->batch_tokens = VT_CLI_BATCH_TOKENS;
}

int vt_cli_engine_opt(vt_cli_engine *e, int code, const char *arg) {
  long long v;
  switch (code) {
  case VT_CLI_OPT_THREADS:
    if (vt_cli_parse_int(arg, 1, 4096, &v)) {
      vt_cli_error("--threads: expected an integer in 1..4096, got '%s'", arg);
      return -1;
    }
    e->threads = (int)v;
    return 1;
  case VT_CLI_OPT_BIND:
    if (vt_bind_parse(arg, &e->bind)) {
      vt_cli_error("--bind: expected none|core|numa, got '%s'", arg);
      return -1;
    }
    return 1;
  case VT_CLI_OPT_TOPOLOGY: e->topology = arg; return 1;
  case VT_CLI_OPT_BATCH_TOKENS:
    if (vt_cli_parse_int(arg, 1, (long long)1 << 40, &v)) {
      vt_cli_error("--batch-tokens: expected a positive integer, got '%s'", arg);
      return -1;
    }
    e->batch_tokens = v;
    return 1;
  case VT_CLI_OPT_QUIET: e->quiet = 1; return 1;
  case VT_CLI_OPT_STATS: e->stats = 1; return 1;
  }
  return 0;
}

int vt_cli_engine_plan(const vt_cli_engine *e, vt_topo *topo, vt_plan *plan) {
  char err[700];
  memset(plan, 0, sizeof *plan);
  if (vt_topo_load(topo, e->topology, err, sizeof err) != VT_OK) {
    vt_cli_error("--topology: %s", err);
    return -1;
  }
  if (vt_topo_plan(topo, e->threads, e->bind, plan) != VT_OK) {
    vt_cli_error("cannot plan %d worker(s) on %s", e->threads, topo->source);
    vt_topo_free(topo);
    return -1;
  }
  return 0;
}

void vt_cli_batch_init(vt_cli_batch *b) {
  memset(b, 0, sizeof *b);
  vt_cli_engine_init(&b->eng);
}

void vt_cli_batch_free(vt_cli_batch *b) {
  vt_cli_signals_restore();
  free((void *)b->ss.workers);
  vt_plan_free(&b->plan);
  vt_topo_free(&b->topo);
}
