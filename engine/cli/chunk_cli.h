/* engine/cli/chunk_cli.h: the joint label-chunk subcommands (Shimizu & Haas 2006). */
#ifndef VT_CLI_CHUNK_CLI_H
#define VT_CLI_CHUNK_CLI_H

#include <stdio.h>

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

/* Parses the arguments of `vitesse chunk-tag` (argv[0] is the command's name) and opens the
 * model (unless ct->m is set; a model opened is ct->m's, closed by the caller, also on failure).
 * Returns -1 when the run can go on, else the exit status to end with (--help: 0; a problem
 * printed: 1 or 2). */
int vt_cli_chunk_tag_setup(vt_cli_chunk_tag *ct, int argc, char **argv);

/* Prints the --eval line of a joint run's report `rep` to `f`. */
void vt_cli_chunk_tag_eval(const vt_run_report *rep, FILE *f);

/* Prints the first fields of chunk-tag's --stats JSON object (`rep`, `secs` of wall time),
 * opening brace included, to `f`; the caller goes on with `"key": value, ` pairs and closes it. */
void vt_cli_chunk_tag_stats(const vt_cli_chunk_tag *ct, const vt_run_report *rep, double secs,
                            FILE *f);

/* vt_cmd_chunk_tag with the model of -m already open (`pre`, owned from here on; NULL: open
 * it from -m). */
int vt_cli_chunk_tag_with(int argc, char **argv, vt_model *pre);

/* Returns 1 when argv holds the flag --joint-chunk, else 0. */
int vt_chunk_cli_wants_joint(int argc, char **argv);

/* Returns 1 when argv names a model (-m M, -mM, --model M, --model=M) that is a joint model
 * file, else 0: `vitesse tag` then hands over to vt_cli_chunk_tag_with. A model that can be
 * read only once (a pipe, /dev/stdin) is opened here, into *pre, to learn its kind; -1 when that
 * fails (message printed). */
int vt_chunk_cli_joint_model(int argc, char **argv, vt_model **pre);

#endif
