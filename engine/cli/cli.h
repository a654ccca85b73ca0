/* engine/cli/cli.h: what the `vitesse` subcommands share. */
#ifndef VT_CLI_H
#define VT_CLI_H

#include <stdio.h>

#include "vitesse.h"

/* Exit statuses of the CLI. */
enum { VT_EXIT_OK = 0, VT_EXIT_FAIL = 1, VT_EXIT_USAGE = 2 };

/* Prints "vitesse: MESSAGE\n" on stderr (printf-style). */
void vt_cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Parses a whole decimal integer in [lo, hi] from `s` into *out; 0 on success, -1 otherwise. */
int vt_cli_parse_int(const char *s, long long lo, long long hi, long long *out);

/* The sentences one batch run decodes: emissions of sentence s are rows offset[s]..offset[s+1]
 * of E (float or double, L columns). */
typedef struct vt_cli_source {
  int64_t n_sent;
  const int64_t *offset;
  const void *E;
  int E_is_f64;
  int32_t L;
  const struct vt_npy *E_file; /* the .npy E maps (pages behind the writer are released), or NULL */
} vt_cli_source;

typedef struct vt_cli_run_stats {
  vt_decode_stats decode;
  double decode_seconds;
  int64_t sentences_done;
} vt_cli_run_stats;

/* Decodes `src` with `opts` on the engine with `threads` workers (0 = one per core), bound to
 * cores, writing one line per sentence and path to `out` (NULL: no output) in input order:
 *   sentence<TAB>rank<TAB>score<TAB>labels
 * Stops reading after `time_budget` seconds when it is > 0. Returns VT_OK or the first decoder
 * failure (the message is printed). vt_cli_decode_run (run.h) gives every engine option. */
vt_status vt_cli_run(const vt_trans *trans, const vt_decode_opts *opts, const vt_cli_source *src,
                     int threads, FILE *out, double time_budget, vt_cli_run_stats *stats);

/* Monotonic clock in seconds. */
double vt_cli_now(void);

int vt_cmd_decode(int argc, char **argv);
int vt_cmd_synth(int argc, char **argv);
int vt_cmd_demo(int argc, char **argv);
int vt_cmd_topo(int argc, char **argv);

#endif
