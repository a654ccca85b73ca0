/* engine/cli/cmd_tagdict.c: `vitesse tag-dict`, a tag dictionary from a labelled corpus
 * (vt_tagdict_build), for `vitesse tag --tag-dict`. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/text_cli.h"

static void tagdict_usage(FILE *f) {
  fputs("usage: vitesse tag-dict [--word-col C] [--label-col C] [corpus options] [-o DICT]\n"
        "                        FILE...\n"
        "\n"
        "Writes the tag dictionary of a labelled corpus (e.g. the training data): one line per\n"
        "word, in order of first appearance, the word and then every label it has in the\n"
        "corpus, separated by blanks; tokens whose word or label holds a blank are left out.\n"
        "vitesse tag --tag-dict DICT then gives each word of the dictionary only its labels.\n"
        "options:\n"
        "  --word-col C    the word column (0-based; default 0)\n"
        "  --label-col C   the label column (0-based, last or a CoNLL-U name; default last)\n"
        "  -o DICT         write to DICT atomically (default: stdout)\n",
        f);
  fputs(VT_CORPUS_HELP, f);
}

enum { OPT_WORD = 256, OPT_LABEL };

int vt_cmd_tagdict(int argc, char **argv) {
  static const struct option longopts[] = {{"word-col", required_argument, 0, OPT_WORD},
                                           {"label-col", required_argument, 0, OPT_LABEL},
                                           {"output", required_argument, 0, 'o'},
                                           {"help", no_argument, 0, 'h'},
                                           VT_CORPUS_LONGOPTS,
                                           {0, 0, 0, 0}};
  vt_reader_opts ro;
  vt_reader_opts_init(&ro);
  int32_t word_col = 0, label_col = -1;
  const char *out_path = NULL;
  vt_output *of = NULL;
  int rc = VT_EXIT_USAGE;
  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
    int h = vt_cli_corpus_opt(c, optarg, &ro);
    if (h < 0) goto done;
    if (h > 0) continue;
    switch (c) {
    case OPT_WORD:
    case OPT_LABEL:
      if (vt_cli_parse_col(optarg, c == OPT_WORD ? &word_col : &label_col) ||
          (c == OPT_WORD && word_col < 0)) {
        vt_cli_error("%s: expected a column index%s, got '%s'",
                     c == OPT_WORD ? "--word-col" : "--label-col",
                     c == OPT_WORD ? "" : ", last or a CoNLL-U name", optarg);
        goto done;
      }
      break;
    case 'o': out_path = optarg; break;
    case 'h':
      tagdict_usage(stdout);
      rc = VT_EXIT_OK;
      goto done;
    default: vt_cli_bad_option("tag-dict", "o:h", argv); goto done;
    }
  }
  if (optind >= argc) {
    vt_cli_error("tag-dict: a labelled corpus FILE is required (see vitesse tag-dict --help)");
    goto done;
  }
  if (vt_output_open(&of, out_path) != VT_OK) {
    vt_cli_error("%s", vt_last_error());
    rc = VT_EXIT_FAIL;
    goto done;
  }
  int64_t words = 0;
  vt_status st = vt_tagdict_build(&ro, (const char *const *)argv + optind, argc - optind, word_col,
                                  label_col, vt_output_file(of), &words);
  if (st != VT_OK) {
    vt_cli_error("%s", vt_last_error());
    rc = st == VT_ENOMEM ? VT_EXIT_FAIL : VT_EXIT_USAGE;
    goto done;
  }
  errno = 0;
  if (ferror(vt_output_file(of))) {
    vt_cli_error("write error: %s", strerror(errno ? errno : EIO));
    rc = VT_EXIT_FAIL;
    goto done;
  }
  st = vt_output_commit(of);
  of = NULL;
  if (st != VT_OK) {
    vt_cli_error("%s", vt_last_error());
    rc = VT_EXIT_FAIL;
    goto done;
  }
  rc = VT_EXIT_OK;
done:
  vt_output_abort(of);
  return rc;
}
