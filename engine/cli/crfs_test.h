/* engine/cli/crfs_test.h: `vitesse tag -t` with a CRFsuite model, as `crfsuite tag -t`: the
 * predicted labels scored against the item files' reference labels, printed after the output in
 * crfsuite's layout (per label: #match, #model, #ref, precision, recall, F1; macro averages;
 * item and instance accuracy; the elapsed time).
 *
 * The engine is run with the reference column on (VT_CRFSUITE_REF); the output passes through
 * vt_cli_crfs_test_sink, which scores each line and writes it on, without the reference column
 * unless -r asked for it, or not at all with -q. crfsuite's own rules are kept: a sequence whose
 * reference label the model lacks is scored only up to that item and not counted as an instance,
 * and the macro averages divide by the model's label count, unseen labels included. */
#ifndef VT_CLI_CRFS_TEST_H
#define VT_CLI_CRFS_TEST_H

#include <stdint.h>
#include <stdio.h>

#include "vitesse.h"

/* A label name and its id. */
typedef struct vt_cli_crfs_label {
  const char *name;
  int32_t id;
} vt_cli_crfs_label;

typedef struct vt_cli_crfs_test {
  FILE *out;     /* where the output goes (the engine's sink context) */
  int quiet;     /* -q: nothing but the evaluation */
  int keep_ref;  /* -r: the reference column stays in the output */
  int with_marg; /* -i or -l: predicted labels carry ":MARGINAL" */
  int32_t L;
  const char **by_id;             /* label names by id (the model's) */
  vt_cli_crfs_label *sorted;      /* the labels by name (a binary search finds an id) */
  int64_t *correct, *model, *ref; /* per label */
  int64_t items, instances, instances_ok, sequences;
  int64_t seq_items, seq_ok; /* the sequence being read */
  int seq_cut;               /* it met an unknown reference label */
  char *line;                /* a line cut between two sink calls */
  size_t line_len, line_cap;
} vt_cli_crfs_test;

/* Prepares `e` for model `m` and the tag options `to` (crfsuite_out as given: -r, -i, -l);
 * `quiet` for -q. Returns VT_OK or VT_ENOMEM. */
vt_status vt_cli_crfs_test_init(vt_cli_crfs_test *e, const vt_model *m, const vt_tag_opts *to,
                                int quiet);

/* A vt_sink_fn (ctx: the vt_cli_crfs_test, whose `out` is set): scores the output lines and
 * writes them on to e->out as described above. Returns VT_OK, or VT_EIO when writing failed. */
vt_status vt_cli_crfs_test_sink(void *ctx, const char *data, size_t len);

/* Prints the evaluation to e->out (crfsuite_evaluation_output's layout), then "Elapsed time: S
 * [sec] (R [instance/sec])" for `secs`. Returns VT_OK or VT_EIO. */
vt_status vt_cli_crfs_test_print(vt_cli_crfs_test *e, double secs);

/* Prints crfsuite_evaluation_output's block to f: per label (L of them, by id) the items tagged
 * it rightly, the items tagged it and its reference items, precision, recall and F1 (******
 * without reference items), the macro averages over all L labels, item accuracy (of `items`)
 * and instance accuracy. Shared by `vitesse tag -t` and `vitesse learn`'s holdout evaluation. */
void vt_cli_crfs_eval_print(FILE *f, const char *const *names, int32_t L, const int64_t *correct,
                            const int64_t *model, const int64_t *ref, int64_t items,
                            int64_t instances_ok, int64_t instances);

/* Frees what init allocated. */
void vt_cli_crfs_test_free(vt_cli_crfs_test *e);

#endif
