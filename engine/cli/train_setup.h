/* engine/cli/train_setup.h: the options of `vitesse train` (the perceptron and CRFs over templates,
 * CRFs over CRFsuite item files) and what it prints, shared by the `vitesse train` command and
 * `vitesse-mpi train` (mpi/): one parser, so both accept the same options with the same meaning. */
#ifndef VT_CLI_TRAIN_SETUP_H
#define VT_CLI_TRAIN_SETUP_H

#include <stdio.h>

#include "cli/train_crf.h"
#include "cli/train_optcodes.h"
#include "vitesse.h"

/* A parsed `vitesse train` command line. */
typedef struct vt_cli_train {
  vt_train_opts to; /* every option; the callbacks once vt_cli_train_callbacks set them */
  vt_crf_cli crf;   /* --items, --log */
  vt_crf_print cp;  /* what the CRF iteration lines write to */
  int progress;     /* the perceptron's progress bar is drawn (a terminal) */
  int quiet;        /* --quiet */
  const char *tmpl_path, *train_path, *dev_path, *out_path;
  char *tmpl_text;  /* the template file's bytes (owned) */
  char *stage_path; /* where the model is written before vt_cli_train_finish renames it to
                       out_path (owned; NULL: out_path itself, standard output) */
  char *ckpt_id;    /* --checkpoint: the identity of the input files (owned; resume.h) */
} vt_cli_train;

/* Prints the --help of `vitesse train`. */
void vt_cli_train_usage(FILE *f);

/* Parses the arguments of `vitesse train` (argv[0] is the command's name) into `t` and reads the
 * template file. Returns -1 when the run can go on, else the exit status to end with (--help
 * printed: 0; a problem printed: 1 or 2). */
int vt_cli_train_setup(vt_cli_train *t, int argc, char **argv);

/* Sets the callbacks of t->to that print `vitesse train`'s lines (per epoch or iteration, unless
 * --quiet) and opens the --log file. Returns -1, or the exit status after a printed problem. */
int vt_cli_train_callbacks(vt_cli_train *t);

/* Ends a run: prints the failure (st != VT_OK, message from vt_last_error) or the closing line
 * (unless --quiet), closes the log (a failed write of it is a failure: exit 2) and, when all
 * succeeded, renames the staged model into place. Returns the exit status. */
int vt_cli_train_finish(vt_cli_train *t, vt_status st, const vt_train_report *rep);

/* The path to hand the library as the model's: a staging name beside -o that
 * vt_cli_train_finish renames into place once the run and its log succeeded. */
const char *vt_cli_train_model_path(const vt_cli_train *t);

/* Frees what setup and callbacks hold (the log is closed without a check; a staged model that
 * was not renamed into place is removed). */
void vt_cli_train_free(vt_cli_train *t);

#endif
