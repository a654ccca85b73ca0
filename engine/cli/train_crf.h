/* engine/cli/train_crf.h: the CRF options of `vitesse train` (--algo lbfgs|l2sgd|ap|pa|arow and
 * CRFsuite's parameters), and what a CRF training prints: a line per iteration, a JSON log. */
#ifndef VT_CLI_TRAIN_CRF_H
#define VT_CLI_TRAIN_CRF_H

#include <getopt.h>
#include <stdio.h>

#include "vitesse.h"

/* The long options, first value VT_CRF_OPT_FIRST, for a getopt_long table. */
enum {
  VT_CRF_OPT_FIRST = 512,
  VT_CRF_OPT_ALGO = VT_CRF_OPT_FIRST,
  VT_CRF_OPT_C1,
  VT_CRF_OPT_C2,
  VT_CRF_OPT_MAXIT,
  VT_CRF_OPT_EPSILON,
  VT_CRF_OPT_PERIOD,
  VT_CRF_OPT_DELTA,
  VT_CRF_OPT_MEMORIES,
  VT_CRF_OPT_LINESEARCH,
  VT_CRF_OPT_MAXLS,
  VT_CRF_OPT_ETA,
  VT_CRF_OPT_RATE,
  VT_CRF_OPT_SAMPLES,
  VT_CRF_OPT_CANDIDATES,
  VT_CRF_OPT_TRIALS,
  VT_CRF_OPT_MINFREQ,
  VT_CRF_OPT_PSTATES,
  VT_CRF_OPT_PTRANS,
  VT_CRF_OPT_INIT,
  VT_CRF_OPT_LOG,
  VT_CRF_OPT_ITEMS,
  VT_CRF_OPT_PA_TYPE,
  VT_CRF_OPT_PA_C,
  VT_CRF_OPT_PA_SENSITIVE,
  VT_CRF_OPT_PA_AVERAGING,
  VT_CRF_OPT_VARIANCE,
  VT_CRF_OPT_GAMMA,
  VT_CRF_OPT_LAST
};

#define VT_CRF_LONGOPTS                                                                            \
  {"algo", required_argument, 0, VT_CRF_OPT_ALGO}, {"c1", required_argument, 0, VT_CRF_OPT_C1},    \
      {"c2", required_argument, 0, VT_CRF_OPT_C2},                                                 \
      {"max-iterations", required_argument, 0, VT_CRF_OPT_MAXIT},                                  \
      {"epsilon", required_argument, 0, VT_CRF_OPT_EPSILON},                                       \
      {"period", required_argument, 0, VT_CRF_OPT_PERIOD},                                         \
      {"delta", required_argument, 0, VT_CRF_OPT_DELTA},                                           \
      {"num-memories", required_argument, 0, VT_CRF_OPT_MEMORIES},                                 \
      {"linesearch", required_argument, 0, VT_CRF_OPT_LINESEARCH},                                 \
      {"max-linesearch", required_argument, 0, VT_CRF_OPT_MAXLS},                                  \
      {"calibration-eta", required_argument, 0, VT_CRF_OPT_ETA},                                   \
      {"calibration-rate", required_argument, 0, VT_CRF_OPT_RATE},                                 \
      {"calibration-samples", required_argument, 0, VT_CRF_OPT_SAMPLES},                           \
      {"calibration-candidates", required_argument, 0, VT_CRF_OPT_CANDIDATES},                     \
      {"calibration-max-trials", required_argument, 0, VT_CRF_OPT_TRIALS},                         \
      {"min-freq", required_argument, 0, VT_CRF_OPT_MINFREQ},                                      \
      {"possible-states", no_argument, 0, VT_CRF_OPT_PSTATES},                                     \
      {"possible-transitions", no_argument, 0, VT_CRF_OPT_PTRANS},                                 \
      {"init", required_argument, 0, VT_CRF_OPT_INIT},                                             \
      {"log", required_argument, 0, VT_CRF_OPT_LOG},                                               \
      {"items", required_argument, 0, VT_CRF_OPT_ITEMS},                                           \
      {"pa-type", required_argument, 0, VT_CRF_OPT_PA_TYPE},                                       \
      {"c", required_argument, 0, VT_CRF_OPT_PA_C},                                                \
      {"error-sensitive", required_argument, 0, VT_CRF_OPT_PA_SENSITIVE},                          \
      {"averaging", required_argument, 0, VT_CRF_OPT_PA_AVERAGING},                                \
      {"variance", required_argument, 0, VT_CRF_OPT_VARIANCE}, {                                   \
    "gamma", required_argument, 0, VT_CRF_OPT_GAMMA                                                \
  }

/* The help lines of these options. */
extern const char vt_crf_help[];

/* What the CRF options set besides vt_train_opts. */
typedef struct vt_crf_cli {
  const char *items;    /* --items FILE */
  const char *log_path; /* --log FILE */
  int crf_option;       /* a CRF-only option was given (refused with the perceptron) */
  int epsilon_set;      /* --epsilon was given (ap, pa and arow's default is 0, not 1e-5) */
} vt_crf_cli;

/* Handles option `c` (argument `arg`) when it is one of these: returns 1 (handled), 0 (not
 * one of them) or -1 (a bad value: printed). */
int vt_crf_cli_opt(int c, const char *arg, vt_train_opts *o, vt_crf_cli *x);

/* What the iteration callback writes to. */
typedef struct vt_crf_print {
  FILE *log;           /* JSON lines, or NULL */
  int lines;           /* a line per iteration on stderr */
  int progress;        /* --progress: a "vitesse progress:" line per iteration on stderr */
  int log_fail;        /* writing the log failed (training is then stopped) */
  int log_errno;       /* errno of that failure */
  double cpu;          /* the process's CPU seconds when the last report ended (or training
                          began: vt_cli_cpu_now) */
  int64_t last_active; /* the last iteration's active features */
} vt_crf_print;

/* The vt_train_opts.on_iteration of the CLI (ctx: a vt_crf_print): a line on stderr, a JSON
 * object on the log (non-finite numbers as null; `cpu_seconds` the process's CPU time since the
 * last report ended, every thread's); an SGD calibration trial (calibration_trial > 0) is a line
 * on stderr only. Returns nonzero (stop) once the log failed. */
int vt_crf_cli_on_iteration(void *ctx, const vt_iter_report *r);

/* Writes the log's last line, {"stop": reason, "iterations": n} (nothing without a log or a
 * reason). */
void vt_crf_cli_log_stop(vt_crf_print *p, const char *reason, int32_t iterations);

#endif
