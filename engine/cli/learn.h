/* engine/cli/learn.h: `vitesse learn`, crfsuite learn's command line over vitesse's CRF trainers:
 * its options and -p parameters (learn_params.c), its data sets and groups (learn_data.c), and
 * its log, line for line in crfsuite's format (learn_log.c); cmd_learn.c drives them. */
#ifndef VT_CLI_LEARN_H
#define VT_CLI_LEARN_H

#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "vitesse.h"

/* A set of strings numbered in order of first insertion (labels, attributes). */
typedef struct vt_learn_names {
  uint64_t *slots; /* hash << 32 | (id + 1); 0: empty */
  uint64_t mask, key;
  char **str; /* NUL-terminated copies by id */
  int32_t n, cap;
} vt_learn_names;

/* One instance (sequence) of the data sets: its bytes in a file's buffer. */
typedef struct vt_learn_seq {
  const char *text; /* its lines, each ending in '\n' */
  size_t len;
  int32_t group; /* 0-based */
  int32_t file;  /* which data set it came from */
  int64_t line;  /* its first line there (1-based) */
  int64_t items; /* its lines */
} vt_learn_seq;

/* The data sets as crfsuite reads them: every file, its instances, the labels in crfsuite's
 * dictionary order (first seen over all files in order) and each group's reference counts. */
typedef struct vt_learn_data {
  int32_t n_files;
  const char **paths; /* the positional arguments */
  char **bufs;        /* each file's bytes */
  vt_learn_seq *seqs;
  int64_t n_seqs, cap_seqs, items;
  int32_t groups;        /* files, or -g N */
  vt_learn_names labels; /* crfsuite's label dictionary */
  int32_t n_attrs;       /* distinct attributes */
  int64_t *ref;          /* groups x labels.n: items of each label per group */
  int64_t *group_seqs;   /* groups: instances per group */
  int64_t *group_items;  /* groups: items per group */
  int stdin_used;        /* a file was "-" */
} vt_learn_data;

/* A parsed command line. */
typedef struct vt_learn_opts {
  int algo;              /* vt_train_algo */
  const char *algo_name; /* crfsuite's name: lbfgs, l2sgd, averaged-perceptron, ... */
  const char *model;     /* -m ("" or NULL: no model) */
  const char *logbase;   /* -L (default log.crfsuite) */
  int32_t split;         /* -g N (0: groups are the files) */
  int32_t holdout;       /* -e M, 0-based (-1: none) */
  int cross_validation;  /* -x */
  int logfile;           /* -l */
  int help, help_params; /* -h, -H */
  int32_t threads;       /* --threads (vitesse's; 0: one per core) */
  int n_params;
  char **params; /* the -p NAME=VALUE arguments, in order */
} vt_learn_opts;

/* Sets the defaults of algorithm `algo` as crfsuite's (where they differ from vitesse train's). */
void vt_learn_params_defaults(vt_train_opts *to, int algo);

/* Applies "NAME=VALUE" (crfsuite's parameter names for algorithm `algo`) to `to`. Returns 0, or -1
 * with the problem printed (an unknown name: "parameter not found", as crfsuite). */
int vt_learn_param_set(vt_train_opts *to, int algo, const char *arg);

/* Prints crfsuite's -H listing for `algo` ("TYPE NAME = VALUE;" and a help line) to f. */
void vt_learn_params_help(FILE *f, int algo, const char *algo_name);

/* Reads the data set files (each a group; "-" standard input) into d, printing crfsuite's
 * "Reading the data set(s)" block to `log`. Returns 0 or -1 (printed). */
int vt_learn_data_read(vt_learn_data *d, const char *const *paths, int n, FILE *log);

/* Shuffles the instances with crfsuite's rand() and deals them into `split` groups. */
void vt_learn_data_split(vt_learn_data *d, int32_t split);

/* Writes the instances of the groups other than `holdout` (in order) to train_path and, with
 * holdout >= 0, those of group `holdout` to test_path. Returns 0 or -1 (printed). */
int vt_learn_data_write(const vt_learn_data *d, int32_t holdout, const char *train_path,
                        const char *test_path);

/* Where line `line` of the part vt_learn_data_write wrote (want 1: the holdout group's, 0: the
 * others') came from: *file (a data set's index) and *orig (its line). 0, or -1 past the part. */
int vt_learn_data_where(const vt_learn_data *d, int32_t holdout, int want, uint64_t line,
                        int32_t *file, uint64_t *orig);

/* Frees the files' bytes and the instances once the library reads the files themselves (no -g,
 * no standard input): the counts stay. */
void vt_learn_data_release_text(vt_learn_data *d);

/* Frees what d holds. */
void vt_learn_data_free(vt_learn_data *d);

/* Label dictionary: the id of the `len` bytes at s (added when absent with `add`), -1 when
 * absent or out of memory (with add). */
int32_t vt_learn_names_get(vt_learn_names *n, const char *s, size_t len, int add);
void vt_learn_names_free(vt_learn_names *n);

/* What the log callbacks print to and keep between calls. */
typedef struct vt_learn_log {
  FILE *out;
  const vt_learn_opts *lo;
  const vt_train_opts *to;
  const vt_learn_data *d;
  int32_t holdout;        /* -1: none */
  int64_t n_train;        /* training instances (set by on_start) */
  int32_t *to_dict;       /* model label id -> dictionary id */
  int32_t model_labels;   /* labels the model has */
  int64_t *match, *pred;  /* per dictionary label: the holdout counts */
  clock_t clk_iter;       /* CPU clock when the last report ended */
  clock_t clk_begin;      /* CPU clock when training began */
  double *hist;           /* l2sgd: the last `period` losses (ring) */
  double best_loss;       /* l2sgd: the best epoch's loss */
  double calib_best_eta;  /* l2sgd: the calibration's best rate so far */
  double calib_best_loss; /* and its loss */
  int calib_trials;       /* trials printed */
  int failed;             /* out of memory in a callback: the run stops */
} vt_learn_log;

/* vt_train_opts.on_start: the "Holdout group", "Feature generation" and algorithm blocks. */
void vt_learn_log_start(void *ctx, const vt_train_report *r);

/* vt_train_opts.on_iteration: crfsuite's iteration (or epoch, or calibration trial) block with
 * the holdout evaluation. Returns nonzero to stop (a callback out of memory). */
int vt_learn_log_iteration(void *ctx, const vt_iter_report *r);

/* The lines after training: the stop and "Total seconds required for training". */
void vt_learn_log_end(vt_learn_log *g, const vt_train_report *rep);

/* Frees what the callbacks allocated. */
void vt_learn_log_free(vt_learn_log *g);

#endif
