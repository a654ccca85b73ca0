/* engine/cli/tag_setup.h: the options of `vitesse tag`, shared by the `vitesse tag` command and
 * `vitesse-mpi tag` (mpi/): one parser, so both accept the same options with the same meaning. */
#ifndef VT_CLI_TAG_SETUP_H
#define VT_CLI_TAG_SETUP_H

#include <stdio.h>

#include "cli/chunk_cli.h"
#include "cli/cli.h"
#include "cli/decoder_opts.h"
#include "cli/engine_opts.h"
#include "vitesse.h"

/* A parsed `vitesse tag` command line, its model opened and its options resolved. */
typedef struct vt_cli_tag {
  vt_model *m;          /* the model (set before setup: a model already opened, else NULL) */
  vt_constraints *cons; /* --tag-dict / --partial-col, NULL when none */
  vt_tag_opts to;       /* decoder, corpus options, -v, constraints */
  vt_cli_engine run;    /* engine options, --quiet, --stats */
  vt_cli_decoder dec;   /* the decoder options as given (k, beam for --stats) */
  vt_model_info info;   /* of m */
  const char *model_path, *out_path; /* -m, -o (NULL: stdout) */
  const char *const *files;          /* the corpus files (n_files; 0: standard input) */
  int n_files;
  int32_t partial_col;
  int crfs_test;          /* -t: score the labels against the items' references (crfs_test.h) */
  int crfs_quiet;         /* -q: no tagging output (with -t: the evaluation only) */
  int joint;              /* the model has chunk output: the options set up `chunk` instead */
  vt_cli_chunk_tag chunk; /* a joint model's run (chunk-tag's options), when joint */
} vt_cli_tag;

/* Prints the --help of `vitesse tag`. */
void vt_cli_tag_usage(FILE *f);

/* Clears `t`: no model, default options. */
void vt_cli_tag_init(vt_cli_tag *t);

/* Parses the arguments of `vitesse tag` (argv[0] is the command's name) once, every option a
 * tagger's or a joint model's run takes; learns what the model -m names can do (its file's first
 * bytes; a pipe is opened, into t->m); then applies the options as that model takes them: a model
 * with chunk output (VT_CAN_CHUNKS) as chunk-tag does (t->joint set, t->chunk set up), any other
 * as tag does, opening the model (unless t->m is set), loading the allowed labels. An option the
 * model's run does not take is refused as its own command would. Returns -1 when the run can go
 * on, else the exit status to end with (--help printed: 0; a problem printed: 1 or 2). */
int vt_cli_tag_setup(vt_cli_tag *t, int argc, char **argv);

/* Prints the first fields of tag's --stats JSON object (the tagging figures of `tot`, `secs` of
 * wall time, `cpu` seconds of CPU), opening brace included, to `f`; the caller goes on with
 * `"key": value, ` pairs and closes it. */
void vt_cli_tag_stats(const vt_cli_tag *t, const vt_run_report *tot, double secs, double cpu,
                      FILE *f);

/* Frees the models and the constraints. */
void vt_cli_tag_free(vt_cli_tag *t);

#endif
