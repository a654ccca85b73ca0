/* engine/cli/cmd_topo.c: `vitesse topo`, the placement plan of the engine's workers. */
#include <getopt.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/engine_opts.h"

static void topo_usage(FILE *f) {
  fputs("usage: vitesse topo [--topology SYNTHETIC|XMLFILE] [--threads N] [--bind MODE]\n"
        "\n"
        "Prints where `vitesse decode` (and tag) would place its workers: worker -> PU -> core\n"
        "-> NUMA node -> queue and model replica, then one line per queue. Without --topology,\n"
        "this machine (its allowed CPUs); else a hwloc synthetic description such as\n"
        "\"pack:2 numa:2 core:8 pu:2\" or \"numa:4 core:4\", or an XML file (lstopo --of xml).\n"
        "  --threads N   workers (default: OMP_NUM_THREADS, else one per CPU; with\n"
        "                --topology one per core)\n"
        "  --bind MODE   core (default), numa or none\n",
        f);
}

int vt_cmd_topo(int argc, char **argv) {
  static const struct option longopts[] = {
      VT_CLI_ENGINE_LONGOPTS, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
  vt_cli_engine eng;
  vt_engine *e = NULL;
  vt_cli_engine_init(&eng);
  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
    int r = vt_cli_engine_opt(&eng, c, optarg);
    if (r < 0) return VT_EXIT_USAGE;
    if (r > 0 && c != VT_CLI_OPT_BATCH_TOKENS && c != VT_CLI_OPT_QUIET && c != VT_CLI_OPT_STATS)
      continue;
    if (c == 'h') {
      topo_usage(stdout);
      return VT_EXIT_OK;
    }
    vt_cli_bad_option("topo", "h", argv);
    return VT_EXIT_USAGE;
  }
  if (optind < argc) {
    vt_cli_error("topo: unexpected argument '%s'", argv[optind]);
    return VT_EXIT_USAGE;
  }
  if (vt_engine_create(&e, &eng.opts) != VT_OK) {
    vt_cli_error("%s", vt_last_error());
    return VT_EXIT_USAGE;
  }
  vt_engine_print_plan(e, stdout);
  vt_engine_destroy(e);
  return fflush(stdout) == 0 ? VT_EXIT_OK : VT_EXIT_FAIL;
}
