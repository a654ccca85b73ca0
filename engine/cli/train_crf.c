/* engine/cli/train_crf.c: the CRF options of `vitesse train` and its iteration lines and log
 * (train_crf.h). */
#define _POSIX_C_SOURCE 200809L
#include "cli/train_crf.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

const char vt_crf_help[] =
    "CRF training (CRFsuite's algorithms, objective, parameters and defaults):\n"
    "  --algo A        perceptron (default; ap is the same over templates), lbfgs (L-BFGS;\n"
    "                  OWL-QN with --c1) or l2sgd; with --items also ap (averaged\n"
    "                  perceptron), pa (passive-aggressive) or arow (AROW), as CRFsuite's\n"
    "  --items FILE    train on CRFsuite item files instead of --template/--train (label\n"
    "                  TAB attr[:value] ...; --dev then names item files too); the model is\n"
    "                  a CRFsuite model\n"
    "  --c1 C          L1 coefficient (lbfgs; default 0)\n"
    "  --c2 C          L2 coefficient (default 1)\n"
    "  --max-iterations N  iteration cap (lbfgs: none by default; l2sgd: epochs, 1000;\n"
    "                  ap, pa, arow: epochs, 100)\n"
    "  --epsilon E     lbfgs: stop when ||g|| / max(1, ||w||) < E (default 1e-5); ap, pa,\n"
    "                  arow: when an epoch's loss / sequences < E (arow: <=; default 0)\n"
    "  --period P      stop when the loss improved less than --delta over P iterations (10)\n"
    "  --delta D       (default 1e-5)\n"
    "  --num-memories M  lbfgs: corrections kept (default 6)\n"
    "  --linesearch L  MoreThuente (default), Backtracking or StrongBacktracking\n"
    "  --max-linesearch N  evaluations per line search (default 20)\n"
    "  --calibration-eta E, --calibration-rate R, --calibration-samples N,\n"
    "  --calibration-candidates N, --calibration-max-trials N\n"
    "                  l2sgd's learning-rate calibration (0.1, 2, 1000, 10, 20)\n"
    "  --pa-type N     pa: 0 (no slack), 1 (PA-I, default) or 2 (PA-II)\n"
    "  --c C           pa: the aggressiveness (default 1)\n"
    "  --error-sensitive 0|1  pa: the cost counts sqrt(wrong labels) (default 1)\n"
    "  --averaging 0|1 pa: average the weights (default 1)\n"
    "  --variance V, --gamma G  arow: initial variance, trade-off (default 1, 1)\n"
    "  --min-freq F    drop features of a lower frequency (default 0)\n"
    "  --possible-states       a state feature for every label of every attribute seen\n"
    "  --possible-transitions  a transition feature for every label pair\n"
    "  --init MODEL    continue from MODEL: its features keep their weights, new ones start\n"
    "                  at 0\n"
    "  --log FILE      one JSON object per iteration: iteration, loss, feature_norm,\n"
    "                  error_norm, active_features, step, evaluations, seconds (wall),\n"
    "                  cpu_seconds, total_seconds, eval_seconds (lbfgs), dev_accuracy (strict\n"
    "                  JSON: a value that is not finite is null), then a last object\n"
    "                  {\"stop\": why,\n"
    "                  \"iterations\": N}; - is standard output; a failed write stops the run\n"
    "                  (exit 2, no model)\n"
    "  --threads N     threads of the gradient (the model is the same for any N)\n";

/* Parses a whole finite number from s into *out; 0 or -1. */
static int parse_double(const char *s, double *out) {
  char *end;
  if (!*s) return -1;
  *out = strtod(s, &end);
  return *end || !isfinite(*out) ? -1 : 0;
}

int vt_crf_cli_opt(int c, const char *arg, vt_train_opts *o, vt_crf_cli *x) {
  long long n;
  double v;
  if (c < VT_CRF_OPT_FIRST || c >= VT_CRF_OPT_LAST) return 0;
  if (c != VT_CRF_OPT_ALGO && c != VT_CRF_OPT_ITEMS) x->crf_option = 1;
  switch (c) {
  case VT_CRF_OPT_ALGO:
    if (!strcmp(arg, "perceptron"))
      o->algorithm = VT_TRAIN_PERCEPTRON;
    else if (!strcmp(arg, "ap"))
      o->algorithm = VT_TRAIN_AP;
    else if (!strcmp(arg, "pa"))
      o->algorithm = VT_TRAIN_PA;
    else if (!strcmp(arg, "arow"))
      o->algorithm = VT_TRAIN_AROW;
    else if (!strcmp(arg, "lbfgs"))
      o->algorithm = VT_TRAIN_LBFGS;
    else if (!strcmp(arg, "l2sgd"))
      o->algorithm = VT_TRAIN_L2SGD;
    else {
      vt_cli_error("--algo: expected perceptron, lbfgs, l2sgd, ap, pa or arow, got '%s'", arg);
      return -1;
    }
    return 1;
  case VT_CRF_OPT_ITEMS: x->items = arg; return 1;
  case VT_CRF_OPT_INIT: o->init_model = arg; return 1;
  case VT_CRF_OPT_LOG: x->log_path = arg; return 1;
  case VT_CRF_OPT_PSTATES: o->possible_states = 1; return 1;
  case VT_CRF_OPT_PTRANS: o->possible_transitions = 1; return 1;
  case VT_CRF_OPT_LINESEARCH:
    if (!strcmp(arg, "MoreThuente"))
      o->linesearch = VT_LINESEARCH_MORETHUENTE;
    else if (!strcmp(arg, "Backtracking"))
      o->linesearch = VT_LINESEARCH_BACKTRACKING;
    else if (!strcmp(arg, "StrongBacktracking"))
      o->linesearch = VT_LINESEARCH_STRONG_BACKTRACKING;
    else {
      vt_cli_error("--linesearch: expected MoreThuente, Backtracking or StrongBacktracking, "
                   "got '%s'",
                   arg);
      return -1;
    }
    return 1;
  case VT_CRF_OPT_PA_TYPE:
  case VT_CRF_OPT_PA_SENSITIVE:
  case VT_CRF_OPT_PA_AVERAGING: {
    const long long hi = c == VT_CRF_OPT_PA_TYPE ? 2 : 1;
    if (vt_cli_parse_int(arg, 0, hi, &n)) {
      vt_cli_error("expected an integer in 0..%lld, got '%s'", hi, arg);
      return -1;
    }
    int32_t *dst = c == VT_CRF_OPT_PA_TYPE        ? &o->pa_type
                   : c == VT_CRF_OPT_PA_SENSITIVE ? &o->pa_error_sensitive
                                                  : &o->pa_averaging;
    *dst = (int32_t)n;
    return 1;
  }
  case VT_CRF_OPT_MAXIT:
  case VT_CRF_OPT_PERIOD:
  case VT_CRF_OPT_MEMORIES:
  case VT_CRF_OPT_MAXLS:
  case VT_CRF_OPT_SAMPLES:
  case VT_CRF_OPT_CANDIDATES:
  case VT_CRF_OPT_TRIALS: {
    const long long lo = c == VT_CRF_OPT_MAXIT || c == VT_CRF_OPT_PERIOD ? 0 : 1;
    if (vt_cli_parse_int(arg, lo, INT32_MAX, &n)) {
      vt_cli_error("expected an integer in %lld..%d, got '%s'", lo, INT32_MAX, arg);
      return -1;
    }
    int32_t *dst = c == VT_CRF_OPT_MAXIT        ? &o->max_iterations
                   : c == VT_CRF_OPT_PERIOD     ? &o->period
                   : c == VT_CRF_OPT_MEMORIES   ? &o->num_memories
                   : c == VT_CRF_OPT_MAXLS      ? &o->max_linesearch
                   : c == VT_CRF_OPT_SAMPLES    ? &o->calibration_samples
                   : c == VT_CRF_OPT_CANDIDATES ? &o->calibration_candidates
                                                : &o->calibration_max_trials;
    *dst = (int32_t)n;
    return 1;
  }
  default:
    if (parse_double(arg, &v) || v < 0) {
      vt_cli_error("expected a non-negative number, got '%s'", arg);
      return -1;
    }
    double *dst = c == VT_CRF_OPT_C1         ? &o->c1
                  : c == VT_CRF_OPT_C2       ? &o->c2
                  : c == VT_CRF_OPT_EPSILON  ? &o->epsilon
                  : c == VT_CRF_OPT_DELTA    ? &o->delta
                  : c == VT_CRF_OPT_ETA      ? &o->calibration_eta
                  : c == VT_CRF_OPT_RATE     ? &o->calibration_rate
                  : c == VT_CRF_OPT_PA_C     ? &o->pa_c
                  : c == VT_CRF_OPT_VARIANCE ? &o->arow_variance
                  : c == VT_CRF_OPT_GAMMA    ? &o->arow_gamma
                                             : &o->min_freq;
    *dst = v;
    if (c == VT_CRF_OPT_EPSILON) x->epsilon_set = 1;
    return 1;
  }
}

/* A JSON number: a finite double in full, anything else null (JSON has no NaN or Infinity). */
static void json_num(FILE *f, const char *key, double v, const char *fmt) {
  fprintf(f, ", \"%s\": ", key);
  if (isfinite(v))
    fprintf(f, fmt, v);
  else
    fputs("null", f);
}

int vt_crf_cli_on_iteration(void *ctx, const vt_iter_report *r) {
  vt_crf_print *p = ctx;
  if (r->calibration_trial > 0) { /* SGD's calibration, as crfsuite prints its trials */
    if (p->lines) {
      const int ok = isfinite(r->loss) && r->loss < r->calibration_start;
      fprintf(stderr, "calibration trial %d: eta %f, loss %.6f%s (start %.6f)\n",
              r->calibration_trial, r->step, r->loss, ok ? "" : " (worse)", r->calibration_start);
    }
    return 0;
  }
  const double cpu_now = vt_cli_cpu_now(), cpu = cpu_now - p->cpu;
  p->last_active = r->active_features;
  if (p->progress && r->iteration > 0)
    fprintf(stderr, "vitesse progress: iteration=%d loss=%.6f seconds=%.3f\n", r->iteration,
            r->loss, r->seconds);
  if (p->lines) {
    fprintf(stderr, "iteration %d: loss %.6f, |w| %.4f, ", r->iteration, r->loss, r->feature_norm);
    if (r->error_norm >= 0) fprintf(stderr, "|g| %.4f, ", r->error_norm); /* SGD has none */
    fprintf(stderr, "%lld active, %.2f s", (long long)r->active_features, r->seconds);
    if (r->dev_accuracy >= 0) fprintf(stderr, "; dev item accuracy %.2f%%", 100 * r->dev_accuracy);
    fputc('\n', stderr);
  }
  if (p->log && !p->log_fail) {
    fprintf(p->log, "{\"iteration\": %d", r->iteration);
    json_num(p->log, "loss", r->loss, "%.17g");
    json_num(p->log, "feature_norm", r->feature_norm, "%.17g");
    json_num(p->log, "error_norm", r->error_norm, "%.17g");
    fprintf(p->log, ", \"active_features\": %lld", (long long)r->active_features);
    json_num(p->log, "step", r->step, "%.17g");
    fprintf(p->log, ", \"evaluations\": %d", r->evaluations);
    json_num(p->log, "seconds", r->seconds, "%.6f");
    json_num(p->log, "cpu_seconds", cpu, "%.6f");
    json_num(p->log, "total_seconds", r->total_seconds, "%.6f");
    if (r->eval_seconds >= 0) json_num(p->log, "eval_seconds", r->eval_seconds, "%.6f");
    if (r->dev_accuracy >= 0) json_num(p->log, "dev_accuracy", r->dev_accuracy, "%.17g");
    fputs("}\n", p->log);
    if (fflush(p->log) || ferror(p->log)) {
      p->log_errno = errno;
      p->log_fail = 1;
    }
  }
  p->cpu = vt_cli_cpu_now();
  return p->log_fail; /* a log that cannot be written stops the run (no model is kept) */
}

void vt_crf_cli_log_stop(vt_crf_print *p, const char *reason, int32_t iterations) {
  if (!p->log || p->log_fail || !reason) return;
  fputs("{\"stop\": \"", p->log);
  for (const char *c = reason; *c; c++) /* the reasons are plain words; escape anyway */
    if (*c == '"' || *c == '\\')
      fprintf(p->log, "\\%c", *c);
    else if ((unsigned char)*c >= 0x20)
      fputc(*c, p->log);
  fprintf(p->log, "\", \"iterations\": %d}\n", iterations);
  if (fflush(p->log) || ferror(p->log)) {
    p->log_errno = errno;
    p->log_fail = 1;
  }
}
