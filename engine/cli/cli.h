/* engine/cli/cli.h: what the `vitesse` subcommands share. */
#ifndef VT_CLI_CLI_H
#define VT_CLI_CLI_H

#include <stdio.h>

#include "vitesse.h"

/* Exit statuses of the CLI. */
enum { VT_EXIT_OK = 0, VT_EXIT_FAIL = 1, VT_EXIT_USAGE = 2 };

/* Keeps hwloc from loading its device plugins (hwloc_plugins.c): the engine's topology needs none
 * of them. Call in main, before any topology is built; a choice the user made in the environment
 * (HWLOC_PLUGINS_BLACKLIST) is kept. */
void vt_cli_hwloc_plugins_off(void);

/* Runs the process again (argv: main's, whole) with OMP_WAIT_POLICY=PASSIVE unless the user set
 * it or GOMP_SPINCOUNT (omp_wait.c): for commands whose OpenMP teams meet at barriers. Returns
 * only when nothing was done or the exec failed. */
void vt_cli_omp_passive(char **argv);

/* Ends the idle threads of the OpenMP pool the engine's run left (omp_wait.c): for the commands
 * that tag or decode once, right after the run. */
void vt_cli_omp_release(void);

/* Prints "vitesse: MESSAGE\n" on stderr (printf-style). */
void vt_cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Parses a whole decimal integer in [lo, hi] from `s` into *out; 0 on success, -1 otherwise. */
int vt_cli_parse_int(const char *s, long long lo, long long hi, long long *out);

/* Parses `s` into a count of bytes: a whole decimal number with an optional binary suffix K, M,
 * G or T (2^10 .. 2^40), at least 1; 0 on success, -1 otherwise. */
int vt_cli_parse_bytes(const char *s, unsigned long long *out);

/* Handles --max-model-memory SIZE (vt_model_memory_limit_set): 0, or -1 for a bad value with
 * the message printed. */
int vt_cli_max_model_memory(const char *arg);

/* The --help line of --max-model-memory. */
#define VT_CLI_MAX_MODEL_MEMORY_USAGE                                                              \
  "  --max-model-memory S  refuse a model needing more than S bytes (suffix K, M, G or T;\n"       \
  "                     default half of the physical memory)\n"

/* Reports the option getopt_long just refused with '?' in `cmd` (its short options `optstring`):
 * one line, "CMD: unknown option '--x' (see vitesse CMD --help)" or "CMD: option '--x' needs a
 * value (...)", never the whole usage. main() sets opterr to 0, so getopt prints nothing itself. */
void vt_cli_bad_option(const char *cmd, const char *optstring, char **argv);

/* vt_cli_bad_option for option `opt` (getopt's optopt: 0 for an unknown long option) refused in
 * the word `word` of the command line (argv[optind - 1] then). */
void vt_cli_option_refused(const char *cmd, const char *optstring, int opt, const char *word);

/* Monotonic clock in seconds. */
double vt_cli_now(void);

/* CPU time of the whole process (all threads), in seconds. */
double vt_cli_cpu_now(void);

/* Reads all of `path` into a NUL-terminated heap buffer (*len bytes; the caller frees it); a file
 * of more than max_bytes bytes is refused as too large for `what` ("a template file"). Prints
 * the problem and returns NULL on failure. */
char *vt_cli_read_file(const char *path, size_t max_bytes, const char *what, size_t *len);

int vt_cmd_decode(int argc, char **argv);
int vt_cmd_synth(int argc, char **argv);
int vt_cmd_demo(int argc, char **argv);
int vt_cmd_topo(int argc, char **argv);
int vt_cmd_convert(int argc, char **argv);
int vt_cmd_crf_learn(int argc, char **argv);

#endif
