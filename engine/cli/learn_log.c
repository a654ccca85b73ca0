/* engine/cli/learn_log.c: the training log of `vitesse learn` in crfsuite learn's format (learn.h):
 * the feature generation and parameter blocks, a block per iteration (L-BFGS), epoch (SGD, with
 * its calibration trials) or pass (ap, pa, arow), each followed by the holdout evaluation, and
 * the closing lines. Times are CPU seconds (clock()), as crfsuite prints them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/crfs_test.h"
#include "cli/learn.h"

/* CPU seconds since c0. */
static double cpu_since(clock_t c0) { return (double)(clock() - c0) / CLOCKS_PER_SEC; }

/* The algorithm's parameter block, as each crfsuite trainer prints it. */
static void params_block(FILE *f, const vt_train_opts *to) {
  switch (to->algorithm) {
  case VT_TRAIN_LBFGS:
    fprintf(f, "L-BFGS optimization\n");
    fprintf(f, "c1: %f\n", to->c1);
    fprintf(f, "c2: %f\n", to->c2);
    fprintf(f, "num_memories: %d\n", to->num_memories);
    fprintf(f, "max_iterations: %d\n", to->max_iterations);
    fprintf(f, "epsilon: %f\n", to->epsilon);
    fprintf(f, "stop: %d\n", to->period);
    fprintf(f, "delta: %f\n", to->delta);
    fprintf(f, "linesearch: %s\n",
            to->linesearch == VT_LINESEARCH_BACKTRACKING          ? "Backtracking"
            : to->linesearch == VT_LINESEARCH_STRONG_BACKTRACKING ? "StrongBacktracking"
                                                                  : "MoreThuente");
    fprintf(f, "linesearch.max_iterations: %d\n", to->max_linesearch);
    break;
  case VT_TRAIN_L2SGD:
    fprintf(f, "Stochastic Gradient Descent (SGD)\n");
    fprintf(f, "c2: %f\n", to->c2);
    fprintf(f, "max_iterations: %d\n", to->max_iterations);
    fprintf(f, "period: %d\n", to->period);
    fprintf(f, "delta: %f\n", to->delta);
    break;
  case VT_TRAIN_AP:
    fprintf(f, "Averaged perceptron\n");
    fprintf(f, "max_iterations: %d\n", to->max_iterations);
    fprintf(f, "epsilon: %f\n", to->online_epsilon);
    break;
  case VT_TRAIN_PA:
    fprintf(f, "Passive Aggressive\n");
    fprintf(f, "type: %d\n", to->pa_type);
    fprintf(f, "c: %f\n", to->pa_c);
    fprintf(f, "error_sensitive: %d\n", to->pa_error_sensitive);
    fprintf(f, "averaging: %d\n", to->pa_averaging);
    fprintf(f, "max_iterations: %d\n", to->max_iterations);
    fprintf(f, "epsilon: %f\n", to->online_epsilon);
    break;
  default:
    fprintf(f, "Adaptive Regularization of Weights (AROW)\n");
    fprintf(f, "variance: %f\n", to->arow_variance);
    fprintf(f, "gamma: %f\n", to->arow_gamma);
    fprintf(f, "max_iterations: %d\n", to->max_iterations);
    fprintf(f, "epsilon: %f\n", to->online_epsilon);
    break;
  }
  fprintf(f, "\n");
}

void vt_learn_log_start(void *ctx, const vt_train_report *r) {
  vt_learn_log *g = ctx;
  FILE *f = g->out;
  const vt_train_opts *to = g->to;
  const int32_t Ld = g->d->labels.n;
  if (g->holdout >= 0) fprintf(f, "Holdout group: %d\n\n", g->holdout + 1);
  fprintf(f, "Feature generation\n");
  fprintf(f, "type: CRF1d\n");
  fprintf(f, "feature.minfreq: %f\n", to->min_freq);
  fprintf(f, "feature.possible_states: %d\n", to->possible_states);
  fprintf(f, "feature.possible_transitions: %d\n", to->possible_transitions);
  fprintf(f, "0....1....2....3....4....5....6....7....8....9....10\n");
  fprintf(f, "Number of features: %lld\n", (long long)r->features);
  fprintf(f, "Seconds required: %.3f\n\n", r->read_seconds);
  params_block(f, to);
  g->n_train = r->sentences;
  g->model_labels = r->labels;
  g->to_dict = malloc(((size_t)r->labels + 1) * sizeof *g->to_dict);
  g->match = calloc((size_t)Ld + 1, sizeof *g->match);
  g->pred = calloc((size_t)Ld + 1, sizeof *g->pred);
  g->hist = calloc((size_t)(to->period > 0 ? to->period : 1), sizeof *g->hist);
  g->failed = !g->to_dict || !g->match || !g->pred || !g->hist;
  for (int32_t y = 0; !g->failed && y < r->labels; y++) {
    const char *name = r->label_names ? r->label_names[y] : NULL;
    g->to_dict[y] =
        name ? vt_learn_names_get((vt_learn_names *)&g->d->labels, name, strlen(name), 0) : -1;
  }
  g->best_loss = INFINITY;
  g->calib_best_eta = to->calibration_eta;
  g->calib_best_loss = INFINITY;
  g->calib_trials = 0;
  if (to->algorithm == VT_TRAIN_L2SGD) {
    const int64_t S =
        r->sentences < to->calibration_samples ? r->sentences : to->calibration_samples;
    fprintf(f, "Calibrating the learning rate (eta)\n");
    fprintf(f, "calibration.eta: %f\n", to->calibration_eta);
    fprintf(f, "calibration.rate: %f\n", to->calibration_rate);
    fprintf(f, "calibration.samples: %lld\n", (long long)S);
    fprintf(f, "calibration.candidates: %d\n", to->calibration_candidates);
    fprintf(f, "calibration.max_trials: %d\n", to->calibration_max_trials);
  }
  fflush(f);
  g->clk_begin = g->clk_iter = clock();
}

/* The holdout evaluation of this iteration's weights (crfsuite's holdout_evaluation). */
static void holdout_block(vt_learn_log *g, const vt_iter_report *r) {
  if (g->holdout < 0 || !r->dev_counts) return;
  const int32_t Ld = g->d->labels.n, Lm = g->model_labels;
  memset(g->match, 0, (size_t)Ld * sizeof *g->match);
  memset(g->pred, 0, (size_t)Ld * sizeof *g->pred);
  for (int32_t y = 0; y < Lm; y++) {
    const int32_t k = g->to_dict[y];
    if (k < 0) continue;
    g->match[k] += r->dev_counts[y];
    g->pred[k] += r->dev_counts[Lm + y];
  }
  const int64_t *ref = g->d->ref + (size_t)g->holdout * (size_t)Ld;
  vt_cli_crfs_eval_print(g->out, (const char *const *)g->d->labels.str, Ld, g->match, g->pred, ref,
                         g->d->group_items[g->holdout], r->dev_counts[2 * (size_t)Lm],
                         g->d->group_seqs[g->holdout]);
}

/* A calibration trial of SGD: "Trial #k (eta = E): LOSS[ (worse)]". */
static void calibration_trial(vt_learn_log *g, const vt_iter_report *r) {
  FILE *f = g->out;
  if (r->calibration_trial == 1) fprintf(f, "Initial loss: %f\n", r->calibration_start);
  const int ok = isfinite(r->loss) && r->loss < r->calibration_start;
  fprintf(f, "Trial #%d (eta = %f): %f%s\n", r->calibration_trial, r->step, r->loss,
          ok ? "" : " (worse)");
  if (ok && r->loss < g->calib_best_loss) {
    g->calib_best_loss = r->loss;
    g->calib_best_eta = r->step;
  }
  g->calib_trials++;
}

/* An SGD epoch's block. */
static void epoch_block(vt_learn_log *g, const vt_iter_report *r, double secs) {
  FILE *f = g->out;
  const vt_train_opts *to = g->to;
  const int32_t e = r->iteration, period = to->period > 0 ? to->period : 1;
  const double N = (double)g->n_train, lambda = 2.0 * to->c2 / (N > 0 ? N : 1);
  fprintf(f, "***** Epoch #%d *****\n", e);
  fprintf(f, "Loss: %f\n", r->loss);
  if (period < e)
    fprintf(f, "Improvement ratio: %f\n", (g->hist[(e - 1) % period] - r->loss) / r->loss);
  g->hist[(e - 1) % period] = r->loss;
  if (r->loss < g->best_loss) g->best_loss = r->loss;
  fprintf(f, "Feature L2-norm: %f\n", r->feature_norm);
  /* vitesse reports the rate after the epoch's last step, 1 / (lambda (t0 + t)); crfsuite prints
   * the rate of that step, 1 / (lambda (t0 + t - 1)). */
  const double eta = r->step > 0 ? 1.0 / (1.0 / r->step - lambda) : r->step;
  fprintf(f, "Learning rate (eta): %f\n", eta);
  fprintf(f, "Total number of feature updates: %.0f\n", (double)e * N);
  fprintf(f, "Seconds required for this iteration: %.3f\n", secs);
}

int vt_learn_log_iteration(void *ctx, const vt_iter_report *r) {
  vt_learn_log *g = ctx;
  FILE *f = g->out;
  if (g->failed) return 1;
  if (r->calibration_trial > 0) {
    calibration_trial(g, r);
    fflush(f);
    return 0;
  }
  const double secs = cpu_since(g->clk_iter);
  if (r->iteration == 0) { /* the starting point: crfsuite prints no block for it */
    if (g->to->algorithm == VT_TRAIN_L2SGD) {
      fprintf(f, "Best learning rate (eta): %f\n", g->calib_best_eta);
      fprintf(f, "Seconds required: %.3f\n\n", cpu_since(g->clk_begin));
    }
    fflush(f);
    g->clk_iter = clock();
    return 0;
  }
  switch (g->to->algorithm) {
  case VT_TRAIN_LBFGS:
    fprintf(f, "***** Iteration #%d *****\n", r->iteration);
    fprintf(f, "Loss: %f\n", r->loss);
    fprintf(f, "Feature norm: %f\n", r->feature_norm);
    fprintf(f, "Error norm: %f\n", r->error_norm);
    fprintf(f, "Active features: %lld\n", (long long)r->active_features);
    fprintf(f, "Line search trials: %d\n", r->evaluations);
    fprintf(f, "Line search step: %f\n", r->step);
    fprintf(f, "Seconds required for this iteration: %.3f\n", secs);
    break;
  case VT_TRAIN_L2SGD: epoch_block(g, r, secs); break;
  default:
    fprintf(f, "***** Iteration #%d *****\n", r->iteration);
    fprintf(f, "Loss: %f\n", r->loss);
    fprintf(f, "Feature norm: %f\n", r->feature_norm);
    fprintf(f, "Seconds required for this iteration: %.3f\n", secs);
    break;
  }
  holdout_block(g, r);
  fprintf(f, "\n");
  fflush(f);
  g->clk_iter = clock();
  return 0;
}

/* liblbfgs's status code behind a stop reason of vitesse's (crfsuite prints the code). */
static int lbfgs_code(const char *why) {
  static const struct {
    const char *why;
    int code;
  } codes[] = {{"already minimized", 2},
               {"rounding errors prevent progress", -1001},
               {"line search evaluation cap reached", -998},
               {"line search step below its minimum", -1000},
               {"line search step above its maximum", -999},
               {"line search interval too small", -996},
               {"the gradient increased (line search)", -994},
               {"logic error in the line search", -995},
               {"line search step out of its interval", -1003},
               {"line search interval lost", -1002},
               {"stopped by the callback", -1021}};
  for (size_t i = 0; i < sizeof codes / sizeof *codes; i++)
    if (!strcmp(codes[i].why, why)) return codes[i].code;
  return -1024;
}

void vt_learn_log_end(vt_learn_log *g, const vt_train_report *rep) {
  FILE *f = g->out;
  const char *why = rep->stop_reason ? rep->stop_reason : "";
  switch (g->to->algorithm) {
  case VT_TRAIN_LBFGS:
    if (!strcmp(why, "converged (epsilon)"))
      fprintf(f, "L-BFGS resulted in convergence\n");
    else if (!strcmp(why, "converged (delta over period)"))
      fprintf(f, "L-BFGS terminated with the stopping criteria\n");
    else if (!strcmp(why, "iteration cap reached"))
      fprintf(f, "L-BFGS terminated with the maximum number of iterations\n");
    else
      fprintf(f, "L-BFGS terminated with error code (%d)\n", lbfgs_code(why));
    break;
  case VT_TRAIN_L2SGD:
    if (!strcmp(why, "epoch cap reached"))
      fprintf(f, "SGD terminated with the maximum number of iterations\n");
    else
      fprintf(f, "SGD terminated with the stopping criteria\n");
    fprintf(f, "Loss: %f\n", g->best_loss);
    break;
  default:
    if (!strcmp(why, "converged (epsilon)"))
      fprintf(f, "Terminated with the stopping criterion\n\n");
    break;
  }
  fprintf(f, "Total seconds required for training: %.3f\n\n", cpu_since(g->clk_begin));
  fflush(f);
}

void vt_learn_log_free(vt_learn_log *g) {
  free(g->to_dict);
  free(g->match);
  free(g->pred);
  free(g->hist);
  g->to_dict = NULL;
  g->match = g->pred = NULL;
  g->hist = NULL;
}
