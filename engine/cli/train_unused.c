/* engine/cli/train_unused.c: options that would do nothing are refused (train_unused.h). */
#include "cli/train_unused.h"

#include <stdio.h>

#include "cli/cli.h"
#include "cli/text_cli.h"
#include "cli/train_crf.h"
#include "cli/train_optcodes.h"

/* Algorithm bits of the CRF options' table. */
enum {
  LB = 1 << VT_TRAIN_LBFGS,
  SG = 1 << VT_TRAIN_L2SGD,
  AP = 1 << VT_TRAIN_AP,
  PA = 1 << VT_TRAIN_PA,
  AR = 1 << VT_TRAIN_AROW,
  ALL_CRF = LB | SG | AP | PA | AR
};

/* The algorithms each CRF option acts on. */
static int crf_option_algos(int c) {
  switch (c) {
  case VT_CRF_OPT_C1:
  case VT_CRF_OPT_MEMORIES:
  case VT_CRF_OPT_LINESEARCH:
  case VT_CRF_OPT_MAXLS: return LB;
  case VT_CRF_OPT_C2:
  case VT_CRF_OPT_PERIOD:
  case VT_CRF_OPT_DELTA: return LB | SG;
  case VT_CRF_OPT_EPSILON: return LB | AP | PA | AR;
  case VT_CRF_OPT_ETA:
  case VT_CRF_OPT_RATE:
  case VT_CRF_OPT_SAMPLES:
  case VT_CRF_OPT_CANDIDATES:
  case VT_CRF_OPT_TRIALS: return SG;
  case VT_CRF_OPT_PA_TYPE:
  case VT_CRF_OPT_PA_C:
  case VT_CRF_OPT_PA_SENSITIVE:
  case VT_CRF_OPT_PA_AVERAGING: return PA;
  case VT_CRF_OPT_VARIANCE:
  case VT_CRF_OPT_GAMMA: return AR;
  default: return ALL_CRF;
  }
}

/* "--name" of code c ("-o" for the short one). */
static const char *opt_name(const struct option *longopts, int c, char *buf, size_t n) {
  for (const struct option *o = longopts; o->name; o++)
    if (o->val == c) {
      snprintf(buf, n, "--%s", o->name);
      return buf;
    }
  snprintf(buf, n, "-%c", c);
  return buf;
}

static const char *algo_word(vt_train_algo a) {
  switch (a) {
  case VT_TRAIN_LBFGS: return "--algo lbfgs";
  case VT_TRAIN_L2SGD: return "--algo l2sgd";
  case VT_TRAIN_AP: return "--algo ap";
  case VT_TRAIN_PA: return "--algo pa";
  case VT_TRAIN_AROW: return "--algo arow";
  default: return "the perceptron";
  }
}

void vt_cli_seen_add(vt_cli_seen *s, int c) {
  if (c >= 0 && c < VT_CLI_TRAIN_CODES && s->n[c] < 255) s->n[c]++;
}

int vt_cli_train_unused(const vt_cli_seen *s, int items, vt_train_algo algo,
                        const struct option *longopts) {
  static const int files[] = {VT_TRAIN_OPT_TEMPLATE, VT_TRAIN_OPT_TRAIN, VT_TRAIN_OPT_DEV, 'o',
                              VT_CRF_OPT_ITEMS,      VT_CRF_OPT_LOG,     VT_CRF_OPT_INIT};
  /* What training over templates alone reads (item files have no columns, no decoder). */
  static const int columns[] = {VT_TRAIN_OPT_EPOCHS,  VT_TRAIN_OPT_SHARDS,   VT_TRAIN_OPT_MINIBATCH,
                                VT_TRAIN_OPT_DECODER, VT_TRAIN_OPT_MINCOUNT, VT_TRAIN_OPT_LABEL,
                                VT_OPT_SEP,           VT_OPT_COMMENTS,       VT_OPT_CONLLU};
  char name[64];
  for (size_t i = 0; i < sizeof files / sizeof *files; i++)
    if (s->n[files[i]] > 1) {
      vt_cli_error("train: %s given %d times: it takes one file",
                   opt_name(longopts, files[i], name, sizeof name), s->n[files[i]]);
      return -1;
    }
  /* items: every column option; a CRF over templates: the perceptron's epochs and decoder. */
  const size_t n_cols = items                         ? sizeof columns / sizeof *columns
                        : algo != VT_TRAIN_PERCEPTRON ? 4
                                                      : 0;
  for (size_t i = 0; i < n_cols; i++)
    if (s->n[columns[i]]) {
      vt_cli_error("train: %s does nothing with %s%s: refused",
                   opt_name(longopts, columns[i], name, sizeof name), algo_word(algo),
                   items ? " over --items" : " over templates");
      return -1;
    }
  if (algo == VT_TRAIN_PERCEPTRON) return 0; /* the CRF options: refused by the setup */
  for (int c = VT_CRF_OPT_FIRST; c < VT_CRF_OPT_LAST; c++)
    if (s->n[c] && !(crf_option_algos(c) & (1 << algo))) {
      vt_cli_error("train: %s does nothing with %s: refused",
                   opt_name(longopts, c, name, sizeof name), algo_word(algo));
      return -1;
    }
  return 0;
}
