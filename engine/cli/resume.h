/* engine/cli/resume.h: what a resumable run (`vitesse tag --resume`, `vitesse decode --resume`)
 * keeps beside its output OUT, and how (resume.c): OUT.partial, the output so far (and a second
 * output's P.partial, decode's --posteriors), and OUT.progress, the run's identity and the place
 * in the input after the last batch made durable. The commands build the identity, run the
 * engine from the place with vt_cli_resume_mark as its mark, and end with vt_cli_resume_finish
 * (commit, keep or discard). */
#ifndef VT_CLI_RESUME_H
#define VT_CLI_RESUME_H

#include <pthread.h>
#include <stdio.h>

#include "cli/same_file.h"
#include "vitesse.h"

/* A run's identity under construction: lines "KEY VALUES" (the progress file's head), each with
 * the words that name it in a message ("the input a.txt differs"). */
typedef struct vt_cli_resume_id {
  char *text; /* the lines, each ending in '\n' (owned) */
  size_t len;
  char **says; /* per line: what differs when it differs (owned) */
  int n, cap;
  int nomem; /* an append failed */
} vt_cli_resume_id;

/* Appends a line printf(fmt, ...) (its key first) that `says` names (copied); nothing when out
 * of memory (id->nomem set). */
void vt_cli_resume_id_line(vt_cli_resume_id *id, const char *says, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Appends the line "KEY size mtime hash" (hash of the file's first and last 64 KiB) of the file
 * `path`, named by `says`. -1 after printing "CMD: --resume: PATH is not a regular file that can
 * be read" (standard input and pipes cannot resume), else 0. */
int vt_cli_resume_id_file(vt_cli_resume_id *id, const char *cmd, const char *key, const char *says,
                          const char *path);

/* Appends the line "options ..." of the arguments opts[0..n) (escaped: bytes outside '!'..'~'
 * and '%' as %XX) but those that change no output byte: the long options named in with_arg
 * (their value is the next argument unless given as --name=value) and no_arg, and -o and -m with
 * their value. Both lists end with NULL. */
void vt_cli_resume_id_options(vt_cli_resume_id *id, char *const *opts, int n,
                              const char *const *with_arg, const char *const *no_arg);

/* The identity line of a checkpointed training run's input files (`vitesse train --checkpoint`,
 * vt_train_opts.checkpoint_id): "inputs OPT=SIZE:MTIME:HASH ..." (OPT files[i].what; unset paths
 * skipped), malloc'd. NULL after printing one line "CMD: --checkpoint: ...": standard input
 * (it cannot be read again), a file that is not a regular file, no memory. */
char *vt_cli_inputs_id(const char *cmd, const vt_cli_file *files, int n);

/* Frees the identity's lines. */
void vt_cli_resume_id_free(vt_cli_resume_id *id);

/* A resumable run (fields private to resume.c but for `out` and `at`). */
typedef struct vt_cli_resume {
  const char *cmd;     /* "tag", "decode": in messages */
  int n_out;           /* 1, or 2 with a second output */
  const char *path[2]; /* OUT, and the second output */
  char *partial[2], *progress, *tmp;
  vt_cli_resume_id id; /* the identity (owned) */
  FILE *out[2];        /* OUT.partial, P.partial: the run's outputs */
  double every, last;  /* the interval, and when the writer last handed a place on */
  vt_corpus_pos at;    /* the place after the last batch written (the writer's) */
  pthread_t th;
  int th_on, mu_on;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  vt_corpus_pos snap; /* the place the thread is to make durable, with the outputs' lengths */
  long long snap_out[2];
  int snap_ready, stop;
  int sync_errno; /* the thread's first failure */
} vt_cli_resume;

/* Begins the run of command `cmd` whose outputs are out[0..n_out) (n_out 1 or 2) and whose
 * identity is `id` (taken over, freed by vt_cli_resume_end even on failure): refuses a progress
 * file of another identity (one line naming what differs), else opens the outputs' .partial
 * files where the run continues (a saved place: cut to their lengths there; else the start, the
 * identity written before any output) and starts the thread that makes places durable about
 * every VITESSE_RESUME_INTERVAL seconds (default 2). `files` (n_files, may be 0) name the input
 * files in the line that says where the run continues (not with `quiet`). *from: NULL (the start)
 * or the saved place. Returns -1 to go on, else the exit status (printed). */
int vt_cli_resume_begin(vt_cli_resume *rr, const char *cmd, const char *const *out, int n_out,
                        vt_cli_resume_id *id, const char *const *files, int n_files, int quiet,
                        const vt_corpus_pos **from);

/* A vt_mark_fn (ctx: the vt_cli_resume): records the place after the last batch written, and
 * about every interval flushes the outputs and hands the place to the background thread. */
void vt_cli_resume_mark(void *ctx, const vt_corpus_pos *after);

/* Makes the place after the last batch written durable (outputs synced, then the progress
 * file), the background thread stopped. 0 or an errno. */
int vt_cli_resume_durable(vt_cli_resume *rr);

/* Makes `at` the run's durable place, its outputs `out_len` bytes long there: writes the progress
 * file (beside, synced, renamed over). For a writer that makes its outputs' data durable itself
 * (vitesse-mpi's ranks write OUT.partial with MPI-IO and sync it together) and never calls
 * vt_cli_resume_mark. 0 or an errno. */
int vt_cli_resume_save(vt_cli_resume *rr, const vt_corpus_pos *at, const long long *out_len);

/* Ends a run that wrote everything: the outputs closed, the second renamed into place, then
 * OUT, then the progress file removed. Returns 0, or the exit status (printed). */
int vt_cli_resume_commit(vt_cli_resume *rr);

/* Ends a run on bad input: the .partial files and the progress file removed. */
void vt_cli_resume_discard(vt_cli_resume *rr);

/* Ends a run after the engine returned `st` (write_errno: its sink's first write error, 0 for
 * none): makes the place durable (vt_cli_resume_durable), then
 * - interrupted (st VT_ECANCELED, the place durable): prints "interrupted by SIGINT: DONE;
 *   OUT.partial keeps them, and the same command continues after them" (`done` says what was
 *   done: "12 sentences were tagged in order") and returns 128 + the signal;
 * - a write failed (the sink's, or making the place durable): prints "OUT.partial: write failed:
 *   ...", keeps the files (the run continues once there is room), returns VT_EXIT_FAIL;
 * - another failure (bad input): prints vt_last_error(), discards the files
 *   (vt_cli_resume_discard), returns `bad_input`;
 * - else commits: vt_cli_resume_commit's status (0 when the outputs are in place).
 * The caller still ends with vt_cli_resume_end. */
int vt_cli_resume_finish(vt_cli_resume *rr, vt_status st, int write_errno, const char *done,
                         int bad_input);

/* Stops the thread, closes what is open and frees `rr` (the files are kept as they are). */
void vt_cli_resume_end(vt_cli_resume *rr);

#endif
