/* engine/cli/cmd_eval.c: `vitesse eval`, token accuracy and conlleval's chunk figures
 * (vt_eval_files). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/engine_opts.h"
#include "cli/text_cli.h"

static void eval_usage(FILE *f) {
  fputs("usage: vitesse eval [--chunk] [--split SEP] [--gold-col C] [--pred-col C]\n"
        "                    [corpus options] [FILE...]\n"
        "\n"
        "Compares gold and predicted labels of a tagged corpus (the output of vitesse tag on a\n"
        "corpus with gold labels; standard input when no FILE): token accuracy, and with\n"
        "--chunk the chunk precision, recall and F1 of conlleval (IOB1, IOB2, IOE1, IOE2,\n"
        "IOBES), overall and per type, in conlleval's format.\n"
        "options:\n"
        "  --chunk         chunk figures (labels B-TYPE, I-TYPE, E-TYPE, S-TYPE, O)\n"
        "  --split SEP     evaluate each layer of joint labels (e.g. --split '|' for NN|B-NP)\n"
        "  --gold-col C    gold label column (default: the one before the last; --conllu: UPOS)\n"
        "  --pred-col C    predicted label column (default: the last)\n"
        "Columns are 0-based indices, last, or CoNLL-U names. A line whose first column is -X-\n"
        "is a boundary, as in conlleval.\n",
        f);
  fputs(VT_CORPUS_HELP, f);
}

enum { OPT_CHUNK = 256, OPT_SPLIT, OPT_GOLD, OPT_PRED };

int vt_cmd_eval(int argc, char **argv) {
  static const struct option longopts[] = {{"chunk", no_argument, 0, OPT_CHUNK},
                                           {"split", required_argument, 0, OPT_SPLIT},
                                           {"gold-col", required_argument, 0, OPT_GOLD},
                                           {"pred-col", required_argument, 0, OPT_PRED},
                                           {"help", no_argument, 0, 'h'},
                                           VT_CORPUS_LONGOPTS,
                                           {0, 0, 0, 0}};
  vt_eval_opts eo;
  vt_eval_opts_init(&eo);
  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
    int h = vt_cli_corpus_opt(c, optarg, &eo.reader);
    if (h < 0) return VT_EXIT_USAGE;
    if (h > 0) continue;
    switch (c) {
    case OPT_CHUNK: eo.chunk = 1; break;
    case OPT_SPLIT:
      if (!*optarg) {
        vt_cli_error("--split: the separator is empty");
        return VT_EXIT_USAGE;
      }
      eo.split = optarg;
      break;
    case OPT_GOLD:
    case OPT_PRED:
      if (vt_cli_parse_col(optarg, c == OPT_GOLD ? &eo.gold_col : &eo.pred_col)) {
        vt_cli_error("%s: expected a column index, last or a CoNLL-U name, got '%s'",
                     c == OPT_GOLD ? "--gold-col" : "--pred-col", optarg);
        return VT_EXIT_USAGE;
      }
      break;
    case 'h': eval_usage(stdout); return VT_EXIT_OK;
    default: vt_cli_bad_option("eval", "h", argv); return VT_EXIT_USAGE;
    }
  }
  vt_status st = vt_eval_files(&eo, (const char *const *)argv + optind, argc - optind, stdout);
  if (st == VT_OK) {
    errno = 0; /* the report is buffered: flush it to see a write error (a full disk) */
    int werr = fflush(stdout) != 0 || ferror(stdout) ? (errno ? errno : EIO) : 0;
    int rc = vt_cli_output_end(&st, werr, 0, NULL);
    return rc >= 0 ? rc : VT_EXIT_OK;
  }
  vt_cli_error("%s", vt_last_error());
  return st == VT_ENOMEM ? VT_EXIT_FAIL : VT_EXIT_USAGE;
}
