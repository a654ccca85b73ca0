/* engine/cli/decode_setup.h: the options of `vitesse decode`, shared by the `vitesse decode`
 * command and `vitesse-mpi decode` (mpi/): one parser for both. */
#ifndef VT_CLI_DECODE_SETUP_H
#define VT_CLI_DECODE_SETUP_H

#include <stdio.h>

#include "cli/cli.h"
#include "cli/decoder_opts.h"
#include "cli/engine_opts.h"
#include "cli/label_names.h"
#include "vitesse.h"

/* A parsed `vitesse decode` command line, its lattices and transitions loaded. */
typedef struct vt_cli_decode {
  vt_lattices *lat;
  vt_trans *trans;
  vt_decode_opts opts; /* the decoder, resolved for the lattices' label count */
  vt_conf_opts conf;   /* --logz (the posteriors sink is the caller's) */
  vt_cli_decoder dec;  /* the decoder options as given (k, beam for --stats) */
  vt_cli_engine run;   /* engine options, --quiet, --stats */
  vt_cli_names names;  /* --labels */
  const char *out_path, *post_path, *labels_path; /* -o, --posteriors, --labels (NULL: none) */
  const char *in_path[6];  /* --emissions, --lengths, --transitions, --start, --end, --rank */
  const char *forbid_path; /* --forbid-transitions (NULL: none) */
} vt_cli_decode;

/* Prints the --help of `vitesse decode`. */
void vt_cli_decode_usage(FILE *f);

/* Clears `d`: nothing loaded, default options. */
void vt_cli_decode_init(vt_cli_decode *d);

/* Parses the arguments of `vitesse decode` (argv[0] is the command's name) and loads the
 * lattices, the transitions and the label names. Returns -1 when the run can go on, else the
 * exit status to end with (--help: 0; a problem printed: 2). */
int vt_cli_decode_setup(vt_cli_decode *d, int argc, char **argv);

/* Prints the first fields of decode's --stats JSON object for report `rs`, opening brace
 * included; the caller goes on with `"key": value, ` pairs and closes it. */
void vt_cli_decode_stats(const vt_cli_decode *d, const vt_run_report *rs, FILE *f);

/* Frees what setup loaded. */
void vt_cli_decode_free(vt_cli_decode *d);

#endif
