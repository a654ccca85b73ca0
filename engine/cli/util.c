/* engine/cli/util.c: messages, number parsing and the clock for the CLI. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, CLOCK_MONOTONIC, CLOCK_PROCESS_CPUTIME_ID */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"

void vt_cli_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("vitesse: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

int vt_cli_parse_int(const char *s, long long lo, long long hi, long long *out) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (errno || end == s || *end || v < lo || v > hi) return -1;
  *out = v;
  return 0;
}

int vt_cli_parse_bytes(const char *s, unsigned long long *out) {
  char *end;
  errno = 0;
  if (*s < '0' || *s > '9') return -1;
  unsigned long long v = strtoull(s, &end, 10);
  int shift = 0;
  if (*end) {
    const char *u = strchr("KMGT", *end);
    if (!u || end[1]) return -1;
    shift = 10 * (int)(u - "KMGT" + 1);
  }
  if (errno || end == s || v == 0 || v > (~0ull >> shift)) return -1;
  *out = v << shift;
  return 0;
}

int vt_cli_max_model_memory(const char *arg) {
  unsigned long long v;
  if (vt_cli_parse_bytes(arg, &v)) {
    vt_cli_error("--max-model-memory: expected a size in bytes (e.g. 512M, 16G), got '%s'", arg);
    return -1;
  }
  vt_model_memory_limit_set(v);
  return 0;
}

void vt_cli_option_refused(const char *cmd, const char *optstring, int opt, const char *word) {
  char shortopt[3] = {'-', (char)opt, '\0'};
  int missing;    /* a known option without its value */
  if (opt == 0) { /* an unknown long option */
    missing = 0;
  } else if (word[0] == '-' && word[1] == '-') { /* a long option: its value is missing */
    missing = 1;
  } else { /* a short one, maybe in a cluster */
    missing = opt != ':' && strchr(optstring, opt) != NULL;
    word = shortopt;
  }
  size_t n = strcspn(word, "="); /* --opt=VALUE: the option's name */
  if (missing)
    vt_cli_error("%s: option '%.*s' needs a value (see vitesse %s --help)", cmd, (int)n, word, cmd);
  else
    vt_cli_error("%s: unknown option '%.*s' (see vitesse %s --help)", cmd, (int)n, word, cmd);
}

void vt_cli_bad_option(const char *cmd, const char *optstring, char **argv) {
  vt_cli_option_refused(cmd, optstring, optopt, optind > 0 ? argv[optind - 1] : "");
}

/* Seconds of clock `id` (0 when it cannot be read). */
static double clock_s(clockid_t id) {
  struct timespec ts;
  if (clock_gettime(id, &ts)) return 0;
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double vt_cli_now(void) { return clock_s(CLOCK_MONOTONIC); }

double vt_cli_cpu_now(void) { return clock_s(CLOCK_PROCESS_CPUTIME_ID); }
