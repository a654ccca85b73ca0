/* engine/cli/decoder_opts.h: the decoder options every decoding command shares (`decode`, `tag`):
 * --algo, -k, --beam, --heuristic, --refine, --kprime, --budget, their parsing, checks and --help
 * lines.
 *
 * A command splices VT_CLI_DECODER_LONGOPTS into its getopt_long table and "k:" into its short
 * options, passes every option code to vt_cli_decoder_opt, prints vt_cli_decoder_usage in its
 * --help, and turns what was given into vt_decode_opts with vt_cli_decoder_resolve. */
#ifndef VT_CLI_DECODER_OPTS_H
#define VT_CLI_DECODER_OPTS_H

#include <getopt.h>

#include "vitesse.h"

typedef struct vt_cli_decoder {
  const char *algo; /* --algo as given; NULL when absent */
  long long k, beam, kprime;
  vt_heuristic heuristic;
  vt_refine refine;
  double budget; /* --budget: vt_decode_opts.budget (0 = default, < 0 = none) */
} vt_cli_decoder;

enum {
  VT_CLI_OPT_ALGO = 1200, /* above the engine options of engine_opts.h */
  VT_CLI_OPT_BEAM,
  VT_CLI_OPT_HEURISTIC,
  VT_CLI_OPT_KPRIME,
  VT_CLI_OPT_REFINE,
  VT_CLI_OPT_BUDGET
};

#define VT_CLI_DECODER_LONGOPTS                                                                    \
  {"algo", required_argument, 0, VT_CLI_OPT_ALGO},                                                 \
      {"beam", required_argument, 0, VT_CLI_OPT_BEAM},                                             \
      {"budget", required_argument, 0, VT_CLI_OPT_BUDGET},                                         \
      {"heuristic", required_argument, 0, VT_CLI_OPT_HEURISTIC},                                   \
      {"kprime", required_argument, 0, VT_CLI_OPT_KPRIME}, {                                       \
    "refine", required_argument, 0, VT_CLI_OPT_REFINE                                              \
  }

/* The --help lines of -k, --beam, --heuristic, --refine, --kprime and --budget. */
extern const char vt_cli_decoder_usage[];

/* Sets the defaults: no --algo, k 1, beam 1, kprime 0 (2k), heuristic m9, split. */
void vt_cli_decoder_init(vt_cli_decoder *d);

/* Handles option `code` ('k' or a VT_CLI_OPT_* decoder code) with argument `arg`. Returns 1
 * when it was a decoder option, 0 when it is not one, -1 for a bad value (message printed). */
int vt_cli_decoder_opt(vt_cli_decoder *d, int code, const char *arg);

/* Fills *opts from what was given. Without --algo the algorithm is the library's default for
 * `L` labels and -k (vt_decode_opts_default); a command that learns L later calls this again.
 * Returns 0, or -1 after printing the problem: an unknown or unbuilt --algo, or -k > 1 with a
 * 1-best one. */
int vt_cli_decoder_resolve(const vt_cli_decoder *d, int32_t L, vt_decode_opts *opts);

#endif
