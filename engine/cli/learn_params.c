/* engine/cli/learn_params.c: the -p NAME=VALUE parameters of `vitesse learn`, crfsuite's names,
 * algorithms and defaults (learn.h), set into vitesse's vt_train_opts. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/learn.h"

/* Algorithm masks. */
#define A_LBFGS (1u << VT_TRAIN_LBFGS)
#define A_L2SGD (1u << VT_TRAIN_L2SGD)
#define A_AP (1u << VT_TRAIN_AP)
#define A_PA (1u << VT_TRAIN_PA)
#define A_AROW (1u << VT_TRAIN_AROW)
#define A_ALL (A_LBFGS | A_L2SGD | A_AP | A_PA | A_AROW)
#define A_ONLINE (A_AP | A_PA | A_AROW)

/* Where a parameter lives in vt_train_opts. */
typedef enum {
  P_MINFREQ,
  P_PSTATES,
  P_PTRANS,
  P_C1,
  P_C2,
  P_MAXIT,
  P_MEMORIES,
  P_EPSILON,
  P_PERIOD,
  P_DELTA,
  P_LINESEARCH,
  P_MAXLS,
  P_ETA,
  P_RATE,
  P_SAMPLES,
  P_CANDIDATES,
  P_TRIALS,
  P_PA_TYPE,
  P_PA_C,
  P_PA_SENSITIVE,
  P_PA_AVERAGING,
  P_VARIANCE,
  P_GAMMA
} param_id;

typedef struct param {
  const char *name;
  char type; /* 'i' int, 'f' float, 's' string */
  unsigned algos;
  param_id id;
  const char *help;
} param;

/* crfsuite's order: the feature parameters first, then the algorithm's. */
static const param params[] = {
    {"feature.minfreq", 'f', A_ALL, P_MINFREQ,
     "The minimum frequency of features (features of a lower frequency are dropped)."},
    {"feature.possible_states", 'i', A_ALL, P_PSTATES,
     "Force to generate possible state features (every label of every attribute seen)."},
    {"feature.possible_transitions", 'i', A_ALL, P_PTRANS,
     "Force to generate possible transition features (every label pair)."},
    {"c1", 'f', A_LBFGS, P_C1, "Coefficient for L1 regularization (OWL-QN when positive)."},
    {"c2", 'f', A_LBFGS | A_L2SGD, P_C2, "Coefficient for L2 regularization."},
    {"max_iterations", 'i', A_ALL, P_MAXIT, "The maximum number of iterations (epochs)."},
    {"num_memories", 'i', A_LBFGS, P_MEMORIES,
     "The number of corrections kept to approximate the inverse hessian matrix."},
    {"epsilon", 'f', A_LBFGS | A_ONLINE, P_EPSILON,
     "Epsilon for testing the convergence (lbfgs: of the gradient; ap, pa, arow: of the loss)."},
    {"period", 'i', A_LBFGS | A_L2SGD, P_PERIOD,
     "The duration of iterations to test the stopping criterion."},
    {"delta", 'f', A_LBFGS | A_L2SGD, P_DELTA,
     "The threshold for the stopping criterion: training stops when the objective improved\n"
     "by less than this over the last ${period} iterations."},
    {"linesearch", 's', A_LBFGS, P_LINESEARCH,
     "The line search: 'MoreThuente', 'Backtracking' or 'StrongBacktracking'."},
    {"max_linesearch", 'i', A_LBFGS, P_MAXLS, "The maximum number of trials for the line search."},
    {"calibration.eta", 'f', A_L2SGD, P_ETA, "The initial value of the learning rate (eta)."},
    {"calibration.rate", 'f', A_L2SGD, P_RATE, "The rate of increase/decrease of eta."},
    {"calibration.samples", 'i', A_L2SGD, P_SAMPLES,
     "The number of instances used for calibrating eta."},
    {"calibration.candidates", 'i', A_L2SGD, P_CANDIDATES, "The number of candidates of eta."},
    {"calibration.max_trials", 'i', A_L2SGD, P_TRIALS,
     "The maximum number of trials of eta for calibration."},
    {"type", 'i', A_PA, P_PA_TYPE,
     "The strategy for updating the weights: 0 without slack, 1 PA-I, 2 PA-II."},
    {"c", 'f', A_PA, P_PA_C, "The aggressiveness parameter (PA-I, PA-II)."},
    {"error_sensitive", 'i', A_PA, P_PA_SENSITIVE,
     "Include the square root of the predicted incorrect labels in the cost."},
    {"averaging", 'i', A_PA, P_PA_AVERAGING, "Compute the average of the weights."},
    {"variance", 'f', A_AROW, P_VARIANCE, "The initial variance of every feature weight."},
    {"gamma", 'f', A_AROW, P_GAMMA, "The tradeoff between the loss and the confidence."},
};
#define N_PARAMS (sizeof params / sizeof params[0])

/* The crfsuite-order parameters of algorithm `algo` as they appear in -H: crfsuite lists the
 * algorithm's own parameters in its own order, which for lbfgs puts max_iterations after c2 and
 * for the online trainers after their own parameters. */
static const char *const lbfgs_order[] = {"c1",           "c2",         "max_iterations",
                                          "num_memories", "epsilon",    "period",
                                          "delta",        "linesearch", "max_linesearch"};
static const char *const l2sgd_order[] = {"c2",
                                          "max_iterations",
                                          "period",
                                          "delta",
                                          "calibration.eta",
                                          "calibration.rate",
                                          "calibration.samples",
                                          "calibration.candidates",
                                          "calibration.max_trials"};
static const char *const ap_order[] = {"max_iterations", "epsilon"};
static const char *const pa_order[] = {"type",           "c",      "error_sensitive", "averaging",
                                       "max_iterations", "epsilon"};
static const char *const arow_order[] = {"variance", "gamma", "max_iterations", "epsilon"};

void vt_learn_params_defaults(vt_train_opts *to, int algo) {
  to->algorithm = algo;
  to->min_freq = 0;
  to->possible_states = to->possible_transitions = 0;
  if (algo == VT_TRAIN_LBFGS) {
    to->max_iterations = INT_MAX;
    to->delta = 1e-5;
  } else if (algo == VT_TRAIN_L2SGD) {
    to->max_iterations = 1000;
    to->delta = 1e-6; /* crfsuite's l2sgd default (its lbfgs': 1e-5) */
  } else {
    to->max_iterations = 100;
    to->online_epsilon = 0;
  }
}

/* Parses a whole finite number; 0 or -1. */
static int parse_num(const char *s, double *out) {
  char *end;
  if (!*s) return -1;
  *out = strtod(s, &end);
  return *end || !isfinite(*out) ? -1 : 0;
}

/* Stores value v of parameter p (an int parameter: v is whole). */
static void store(vt_train_opts *to, int algo, param_id id, double v) {
  const int32_t n = (int32_t)v;
  switch (id) {
  case P_MINFREQ: to->min_freq = v; break;
  case P_PSTATES: to->possible_states = n != 0; break;
  case P_PTRANS: to->possible_transitions = n != 0; break;
  case P_C1: to->c1 = v; break;
  case P_C2: to->c2 = v; break;
  case P_MAXIT: to->max_iterations = n; break;
  case P_MEMORIES: to->num_memories = n; break;
  case P_EPSILON:
    if (algo == VT_TRAIN_LBFGS)
      to->epsilon = v;
    else
      to->online_epsilon = v;
    break;
  case P_PERIOD: to->period = n; break;
  case P_DELTA: to->delta = v; break;
  case P_MAXLS: to->max_linesearch = n; break;
  case P_ETA: to->calibration_eta = v; break;
  case P_RATE: to->calibration_rate = v; break;
  case P_SAMPLES: to->calibration_samples = n; break;
  case P_CANDIDATES: to->calibration_candidates = n; break;
  case P_TRIALS: to->calibration_max_trials = n; break;
  case P_PA_TYPE: to->pa_type = n; break;
  case P_PA_C: to->pa_c = v; break;
  case P_PA_SENSITIVE: to->pa_error_sensitive = n; break;
  case P_PA_AVERAGING: to->pa_averaging = n; break;
  case P_VARIANCE: to->arow_variance = v; break;
  case P_GAMMA: to->arow_gamma = v; break;
  case P_LINESEARCH: break;
  }
}

/* The value of parameter p in to, as a double (ints are whole). */
static double fetch(const vt_train_opts *to, int algo, param_id id) {
  switch (id) {
  case P_MINFREQ: return to->min_freq;
  case P_PSTATES: return to->possible_states;
  case P_PTRANS: return to->possible_transitions;
  case P_C1: return to->c1;
  case P_C2: return to->c2;
  case P_MAXIT: return to->max_iterations;
  case P_MEMORIES: return to->num_memories;
  case P_EPSILON: return algo == VT_TRAIN_LBFGS ? to->epsilon : to->online_epsilon;
  case P_PERIOD: return to->period;
  case P_DELTA: return to->delta;
  case P_MAXLS: return to->max_linesearch;
  case P_ETA: return to->calibration_eta;
  case P_RATE: return to->calibration_rate;
  case P_SAMPLES: return to->calibration_samples;
  case P_CANDIDATES: return to->calibration_candidates;
  case P_TRIALS: return to->calibration_max_trials;
  case P_PA_TYPE: return to->pa_type;
  case P_PA_C: return to->pa_c;
  case P_PA_SENSITIVE: return to->pa_error_sensitive;
  case P_PA_AVERAGING: return to->pa_averaging;
  case P_VARIANCE: return to->arow_variance;
  case P_GAMMA: return to->arow_gamma;
  case P_LINESEARCH: return 0;
  }
  return 0;
}

static const char *linesearch_name(int32_t ls) {
  return ls == VT_LINESEARCH_BACKTRACKING          ? "Backtracking"
         : ls == VT_LINESEARCH_STRONG_BACKTRACKING ? "StrongBacktracking"
                                                   : "MoreThuente";
}

/* The parameter of that name for `algo`, or NULL. */
static const param *param_find(const char *name, size_t len, int algo) {
  for (size_t i = 0; i < N_PARAMS; i++)
    if (strlen(params[i].name) == len && !strncmp(params[i].name, name, len) &&
        (params[i].algos & (1u << algo)))
      return &params[i];
  return NULL;
}

int vt_learn_param_set(vt_train_opts *to, int algo, const char *arg) {
  const char *eq = strchr(arg, '=');
  const size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
  const param *p = param_find(arg, len, algo);
  if (!p) {
    vt_cli_error("learn: parameter not found: %.*s (the parameters: vitesse learn -a ALGO -H)",
                 (int)len, arg);
    return -1;
  }
  const char *val = eq ? eq + 1 : "";
  if (p->type == 's') {
    if (!strcmp(val, "MoreThuente"))
      to->linesearch = VT_LINESEARCH_MORETHUENTE;
    else if (!strcmp(val, "Backtracking"))
      to->linesearch = VT_LINESEARCH_BACKTRACKING;
    else if (!strcmp(val, "StrongBacktracking"))
      to->linesearch = VT_LINESEARCH_STRONG_BACKTRACKING;
    else {
      vt_cli_error("learn: -p %s: expected MoreThuente, Backtracking or StrongBacktracking, got "
                   "'%s'",
                   p->name, val);
      return -1;
    }
    return 0;
  }
  double v;
  if (p->type == 'i') {
    long long n;
    if (vt_cli_parse_int(val, INT_MIN, INT_MAX, &n)) {
      vt_cli_error("learn: -p %s: expected an integer, got '%s'", p->name, val);
      return -1;
    }
    v = (double)n;
  } else if (parse_num(val, &v)) {
    vt_cli_error("learn: -p %s: expected a number, got '%s'", p->name, val);
    return -1;
  }
  store(to, algo, p->id, v);
  return 0;
}

void vt_learn_params_help(FILE *f, int algo, const char *algo_name) {
  vt_train_opts to;
  vt_train_opts_init(&to);
  vt_learn_params_defaults(&to, algo);
  const char *const *order = algo == VT_TRAIN_LBFGS   ? lbfgs_order
                             : algo == VT_TRAIN_L2SGD ? l2sgd_order
                             : algo == VT_TRAIN_AP    ? ap_order
                             : algo == VT_TRAIN_PA    ? pa_order
                                                      : arow_order;
  const size_t n_order = algo == VT_TRAIN_LBFGS   ? sizeof lbfgs_order / sizeof *lbfgs_order
                         : algo == VT_TRAIN_L2SGD ? sizeof l2sgd_order / sizeof *l2sgd_order
                         : algo == VT_TRAIN_AP    ? sizeof ap_order / sizeof *ap_order
                         : algo == VT_TRAIN_PA    ? sizeof pa_order / sizeof *pa_order
                                                  : sizeof arow_order / sizeof *arow_order;
  fprintf(f, "PARAMETERS for %s (crf1d):\n\n", algo_name);
  for (size_t i = 0; i < 3 + n_order; i++) {
    const char *name = i < 3 ? params[i].name : order[i - 3];
    const param *p = param_find(name, strlen(name), algo);
    if (!p) continue;
    if (p->type == 's')
      fprintf(f, "string %s = %s;\n", p->name, linesearch_name(to.linesearch));
    else if (p->type == 'i')
      fprintf(f, "int %s = %d;\n", p->name, (int)fetch(&to, algo, p->id));
    else
      fprintf(f, "float %s = %f;\n", p->name, fetch(&to, algo, p->id));
    fprintf(f, "%s\n\n", p->help);
  }
}
