/* engine/cli/chunk_cli.h: the joint label-chunk subcommands (Shimizu & Haas 2006). */
#ifndef VT_CLI_CHUNK_CLI_H
#define VT_CLI_CHUNK_CLI_H

#include <stdio.h>

#include "cli/arg_list.h"
#include "cli/engine_opts.h"
#include "vitesse.h"

/* `vitesse chunk-train` (also `vitesse train --joint-chunk`): trains a joint model. */
int vt_cmd_chunk_train(int argc, char **argv);

/* `vitesse chunk-tag` (also `vitesse tag -m JOINT_MODEL`): tags with a joint model. */
int vt_cmd_chunk_tag(int argc, char **argv);

/* A parsed `vitesse chunk-tag` command line (shared with vitesse-mpi), its model opened. */
typedef struct vt_cli_chunk_tag {
  vt_model *m;                       /* set before setup: a model already opened, else NULL */
  vt_tag_opts to;                    /* columns, --max-chunk (resolved), --eval, corpus options */
  vt_cli_engine run;                 /* engine options, --quiet, --stats */
  vt_model_info info;                /* of m */
  const char *model_path, *out_path; /* -m, -o (NULL: stdout) */
  const char *const *files;          /* the corpus files (n_files; 0: standard input) */
  int n_files;
} vt_cli_chunk_tag;

/* The options only a joint model's tagging takes (chunk-tag's own; `vitesse tag` takes them too,
 * for a joint model). */
enum {
  VT_CLI_OPT_MAX_CHUNK = 1600, /* above the decoder options of decoder_opts.h */
  VT_CLI_OPT_WORD_COL,
  VT_CLI_OPT_POS_COL,
  VT_CLI_OPT_CHUNK_COL,
  VT_CLI_OPT_EVAL
};

#define VT_CLI_CHUNK_LONGOPTS                                                                      \
  {"max-chunk", required_argument, 0, VT_CLI_OPT_MAX_CHUNK},                                       \
      {"word-col", required_argument, 0, VT_CLI_OPT_WORD_COL},                                     \
      {"pos-col", required_argument, 0, VT_CLI_OPT_POS_COL},                                       \
      {"chunk-col", required_argument, 0, VT_CLI_OPT_CHUNK_COL}, {                                 \
    "eval", no_argument, 0, VT_CLI_OPT_EVAL                                                        \
  }

/* Parses the arguments of `vitesse chunk-tag` (argv[0] is the command's name) and applies them
 * (vt_cli_chunk_tag_apply). */
int vt_cli_chunk_tag_setup(vt_cli_chunk_tag *ct, int argc, char **argv);

/* Applies the options `args` (parsed by chunk-tag's or by `vitesse tag`'s options; one chunk-tag
 * does not take is refused as chunk-tag would refuse it) and opens the model (unless ct->m is
 * set; a model opened is ct->m's, closed by the caller, also on failure). Returns -1 when the run
 * can go on, else the exit status to end with (--help: 0; a problem printed: 1 or 2). */
int vt_cli_chunk_tag_apply(vt_cli_chunk_tag *ct, const vt_cli_arg_list *args);

/* Tags as `ct` says (set up by vt_cli_chunk_tag_setup or _apply from `argv`, whose options are
 * the run's identity with --resume); returns the exit status. */
int vt_cli_chunk_tag_run(vt_cli_chunk_tag *ct, char **argv);

/* Prints the --eval line of a joint run's report `rep` to `f`. */
void vt_cli_chunk_tag_eval(const vt_run_report *rep, FILE *f);

/* Prints the first fields of chunk-tag's --stats JSON object (`rep`, `secs` of wall time),
 * opening brace included, to `f`; the caller goes on with `"key": value, ` pairs and closes it. */
void vt_cli_chunk_tag_stats(const vt_cli_chunk_tag *ct, const vt_run_report *rep, double secs,
                            FILE *f);

/* Returns 1 when argv holds the flag --joint-chunk, else 0. */
int vt_chunk_cli_wants_joint(int argc, char **argv);

#endif
