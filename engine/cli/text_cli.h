/* engine/cli/text_cli.h: what the text-pipeline subcommands (train, tag, lattice, eval) share:
 * the corpus reader options and their parsing. */
#ifndef VT_CLI_TEXT_CLI_H
#define VT_CLI_TEXT_CLI_H

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

#include "vitesse.h"

/* getopt_long codes of the corpus options (above every subcommand's own codes). */
enum {
  VT_OPT_SEP = 1000,
  VT_OPT_COMMENTS,
  VT_OPT_CONLLU,
  VT_OPT_MAX_TOKENS,
  VT_OPT_MAX_LINE_BYTES,
};

#define VT_CORPUS_LONGOPTS                                                                         \
  {"sep", required_argument, 0, VT_OPT_SEP}, {"comments", no_argument, 0, VT_OPT_COMMENTS},        \
      {"conllu", no_argument, 0, VT_OPT_CONLLU},                                                   \
      {"max-tokens", required_argument, 0, VT_OPT_MAX_TOKENS}, {                                   \
    "max-line-bytes", required_argument, 0, VT_OPT_MAX_LINE_BYTES                                  \
  }

#define VT_CORPUS_HELP                                                                             \
  "corpus options:\n"                                                                              \
  "  --sep tab|space|auto  column separator (auto: tabs if the first token line has one,\n"        \
  "                  else runs of blanks)\n"                                                       \
  "  --comments      lines starting with '#' are comments (kept in the output)\n"                  \
  "  --conllu        CoNLL-U: tabs, comments, multiword ranges and empty nodes passed through\n"   \
  "  --max-tokens N  longest sentence accepted (default 10000)\n"                                  \
  "  --max-line-bytes N  longest line accepted, in bytes (default 1048576)\n"

/* Handles corpus option `c` with argument `arg` into `o`: 1 when handled, 0 when `c` is not a
 * corpus option, -1 on a bad value (message printed). */
int vt_cli_corpus_opt(int c, const char *arg, vt_reader_opts *o);

/* Parses a column: a 0-based index, "last", or a CoNLL-U column name (ID FORM LEMMA UPOS XPOS
 * FEATS HEAD DEPREL DEPS MISC, any case). "last" gives -1. 0 on success, -1 otherwise. */
int vt_cli_parse_col(const char *s, int32_t *col);

/* The corpus options of a command that reads with a model's reader options (tag, lattice):
 * what was given, and which of --sep, --comments, --conllu were. */
typedef struct vt_cli_reader {
  vt_reader_opts given;
  int set; /* bit 0: --sep, bit 1: --comments, bit 2: --conllu */
} vt_cli_reader;

/* Starts with nothing given (vt_reader_opts defaults). */
void vt_cli_reader_init(vt_cli_reader *r);

/* As vt_cli_corpus_opt, into r->given, remembering which reader options were given. */
int vt_cli_reader_opt(vt_cli_reader *r, int c, const char *arg);

int vt_cmd_train(int argc, char **argv);
/* `vitesse learn`: crfsuite learn's command line (cmd_learn.c). */
int vt_cmd_learn(int argc, char **argv);
int vt_cmd_tag(int argc, char **argv);
int vt_cmd_tagdict(int argc, char **argv);
int vt_cmd_lattice(int argc, char **argv);
int vt_cmd_eval(int argc, char **argv);
int vt_cmd_convert(int argc, char **argv);

/* Parses --cost-factor's argument (a number > 0) into *out; -1 when it is not one (message
 * printed). */
int vt_cli_parse_cost_factor(const char *arg, double *out);

#endif
