/* engine/cli/main.c: the `vitesse` command: dispatches to its subcommands. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static void usage(FILE *f) {
  fprintf(f,
          "vitesse %s: exact, fast decoding of linear-chain sequence-labeling models\n"
          "\n"
          "usage: vitesse COMMAND [OPTIONS]   (vitesse COMMAND --help for its options)\n"
          "commands:\n"
          "  decode   decode score lattices (.npy) with a chosen algorithm\n"
          "  demo     decode a seeded synthetic 300-label lattice set with every algorithm\n"
          "  synth    write a seeded synthetic lattice set as .npy files\n",
          vt_version());
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return VT_EXIT_USAGE;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "decode")) return vt_cmd_decode(argc - 1, argv + 1);
  if (!strcmp(cmd, "demo")) return vt_cmd_demo(argc - 1, argv + 1);
  if (!strcmp(cmd, "synth")) return vt_cmd_synth(argc - 1, argv + 1);
  if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
    usage(stdout);
    return VT_EXIT_OK;
  }
  if (!strcmp(cmd, "--version")) {
    printf("vitesse %s\n", vt_version());
    return VT_EXIT_OK;
  }
  vt_cli_error("unknown command '%s'", cmd);
  usage(stderr);
  return VT_EXIT_USAGE;
}
