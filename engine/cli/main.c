/* engine/cli/main.c: the `vitesse` command: dispatches to its subcommands. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/chunk_cli.h"
#include "cli/cli.h"
#include "cli/text_cli.h"

static void usage(FILE *f) {
  fprintf(f,
          "vitesse %s: exact, fast decoding of linear-chain sequence-labeling models\n"
          "\n"
          "usage: vitesse COMMAND [OPTIONS]   (vitesse COMMAND --help for its options)\n"
          "commands:\n"
          "  decode   decode score lattices (.npy) with a chosen algorithm\n"
          "  demo     decode a seeded synthetic 300-label lattice set with every algorithm\n"
          "  synth    write a seeded synthetic lattice set as .npy files\n"
          "  train    train an averaged-perceptron tagger from a column corpus and templates\n"
          "  learn    train a CRF on CRFsuite item files with crfsuite learn's command line\n"
          "  tag      tag a column corpus with a trained model (or a CRF++ / Wapiti model), or\n"
          "           CRFsuite items with a CRFsuite model\n"
          "  convert  write a CRF++, Wapiti or CRFsuite model as a vitesse model file\n"
          "  tag-dict write the tag dictionary (word -> labels) of a labelled corpus\n"
          "  eval     token accuracy and conlleval chunk P/R/F1 of a tagged corpus\n"
          "  lattice  write the score lattices a model gives a corpus as .npy files\n"
          "  topo     show where the engine places its workers (NUMA nodes, cores, queues)\n"
          "  chunk-train  train a joint POS + chunk model (Shimizu & Haas 2006)\n"
          "  chunk-tag    tag with a joint POS + chunk model (exact label-chunk decoding)\n"
          "  crf_learn    CRF++'s crf_learn: train a CRF, write a model crf_test reads\n",
          vt_version());
}

int main(int argc, char **argv) {
  vt_cli_hwloc_plugins_off();
  if (argc < 2) {
    usage(stderr);
    return VT_EXIT_USAGE;
  }
  const char *cmd = argv[1];
  opterr = 0; /* a refused option is reported in one line by vt_cli_bad_option */
  if (!strcmp(cmd, "decode")) return vt_cmd_decode(argc - 1, argv + 1);
  if (!strcmp(cmd, "demo")) return vt_cmd_demo(argc - 1, argv + 1);
  if (!strcmp(cmd, "synth")) return vt_cmd_synth(argc - 1, argv + 1);
  if (!strcmp(cmd, "train") || !strcmp(cmd, "chunk-train") || !strcmp(cmd, "learn") ||
      !strcmp(cmd, "crf_learn"))
    vt_cli_omp_passive(argv);
  if (!strcmp(cmd, "train")) return vt_cmd_train(argc - 1, argv + 1);
  if (!strcmp(cmd, "learn")) return vt_cmd_learn(argc - 1, argv + 1);
  if (!strcmp(cmd, "tag")) return vt_cmd_tag(argc - 1, argv + 1);
  if (!strcmp(cmd, "tag-dict")) return vt_cmd_tagdict(argc - 1, argv + 1);
  if (!strcmp(cmd, "eval")) return vt_cmd_eval(argc - 1, argv + 1);
  if (!strcmp(cmd, "convert")) return vt_cmd_convert(argc - 1, argv + 1);
  if (!strcmp(cmd, "lattice")) return vt_cmd_lattice(argc - 1, argv + 1);
  if (!strcmp(cmd, "topo")) return vt_cmd_topo(argc - 1, argv + 1);
  if (!strcmp(cmd, "chunk-train")) return vt_cmd_chunk_train(argc - 1, argv + 1);
  if (!strcmp(cmd, "chunk-tag")) return vt_cmd_chunk_tag(argc - 1, argv + 1);
  if (!strcmp(cmd, "crf_learn")) return vt_cmd_crf_learn(argc - 1, argv + 1);
  if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
    usage(stdout);
    return VT_EXIT_OK;
  }
  if (!strcmp(cmd, "--version")) {
    printf("vitesse %s\n", vt_version());
    return VT_EXIT_OK;
  }
  vt_cli_error("unknown command '%s' (see vitesse --help)", cmd);
  return VT_EXIT_USAGE;
}
