/* engine/train/ckpt.h: training checkpoints (vt_train_opts.checkpoint): a file that holds a
 * trainer's whole state after an epoch or iteration, so that a run killed later continues from
 * it and ends with the very model an uninterrupted run writes.
 *
 * The file: a text head (a magic line, the run's identity lines, the trainer's name), then the
 * trainer's state as raw bytes in the trainer's own order, then a hash of those bytes. It is
 * written beside CK (CK.tmp), synced and renamed over CK, its folder synced: a kill at any point
 * leaves the last whole checkpoint. The identity is the caller's lines (vt_train_opts.
 * checkpoint_id: its inputs) and the options that change the model, so a checkpoint of another
 * run is refused with one line saying what differs. */
#ifndef VT_TRAIN_CKPT_H
#define VT_TRAIN_CKPT_H

#include <stdint.h>
#include <stdio.h>

#include "vitesse.h"

/* The checkpoint of a run: where, how often, and the run's identity. */
typedef struct vt_ckpt {
  char *path;     /* CK (owned) */
  char *tmp;      /* CK.tmp (owned) */
  char *identity; /* identity lines, each ending in '\n' (owned) */
  int32_t every;  /* epochs or iterations between two checkpoints (>= 1) */
  int writer;     /* this process writes it (process 0 of a job; every process reads it) */
  int fixed;      /* the interval was asked for (else the time gate of vt_ckpt_due applies) */
  double *clock;  /* [0] when the last checkpoint was written, [1] what writing it took (s) */
  /* the caller's place and resume callbacks (vt_train_opts; process 0's only) */
  int64_t (*mark)(void *ctx);
  void (*resume)(void *ctx, int64_t mark, int64_t done);
  void *ctx;
  /* vt_train_opts.on_cancel (NULL across processes: set by the caller of vt_ckpt_setup), its
   * context, and whether it asked to stop (latched by vt_ckpt_on_interval) */
  int (*cancel)(void *ctx);
  void *cancel_ctx;
  int *stopping;
} vt_ckpt;

/* A checkpoint being written or read: the state's bytes go through a buffer of VT_CKPT_CHUNK
 * bytes, each chunk hashed as a whole (the writer's chunks and the reader's are the same: the
 * state's length is the file's less its head and the trailing hash). */
typedef struct vt_ckpt_io {
  FILE *fp;
  const vt_ckpt *ck;
  double t0;          /* when the writing began */
  unsigned char *buf; /* VT_CKPT_CHUNK bytes */
  size_t len, at;     /* bytes in buf; read: the next one to hand out */
  int64_t left;       /* read: state bytes not yet in buf */
  uint64_t hash;      /* of the chunks so far */
  int bad;            /* a read or write failed, or a read went past the state's end */
  int64_t done, mark; /* read: the epochs or iterations done, the caller's place */
  int writing;        /* opened by vt_ckpt_begin (else by vt_ckpt_open) */
} vt_ckpt_io;

#define VT_CKPT_CHUNK ((size_t)1 << 20)

/* Sets up the checkpoint of a run with options `o` (o->checkpoint NULL: *ck zeroed, VT_OK) for
 * `trainer` (the name of the trainer and of the state's layout: "perceptron", "lbfgs"...); when
 * CK exists, checks now, before any corpus is read, that it is a checkpoint of this run and
 * trainer (else VT_EINVAL, one line in err: what differs). `writer`: this process writes CK.
 * VT_OK, VT_EINVAL, VT_EFORMAT (not a checkpoint, or a damaged one), VT_EIO (CK unreadable) or
 * VT_ENOMEM. A half-written CK.tmp that a kill left is removed. */
vt_status vt_ckpt_setup(vt_ckpt *ck, const vt_train_opts *o, const char *trainer, int writer,
                        char *err, size_t errlen);

/* The name of the trainer of vt_train_opts.algorithm `algorithm`, as checkpoints record it. */
const char *vt_ckpt_trainer(int32_t algorithm);

/* Frees what vt_ckpt_setup made. */
void vt_ckpt_free(vt_ckpt *ck);

/* Whether epoch or iteration `k` of at most `last` (0: no cap) ends an interval: every
 * ck->every, never the last one (the model follows at once). The same on every process. On one
 * process, also every k once ck->cancel asked to stop (it is polled here). */
int vt_ckpt_on_interval(const vt_ckpt *ck, int64_t k, int64_t last);

/* VT_ECANCELED, with "train: stopped after epoch|iteration k; the checkpoint CK holds it" in err,
 * once ck->cancel asked to stop (a trainer calls it after the checkpoint of k is written); else
 * VT_OK. */
vt_status vt_ckpt_stop(const vt_ckpt *ck, int64_t k, int iterations, char *err, size_t errlen);

/* Whether this process writes a checkpoint after k: at the end of an interval, and with the
 * default interval (no vt_train_opts.checkpoint_every) only once 50 times what writing the last
 * checkpoint took has passed since it was written, so that checkpoints cost at most about 2% of
 * the time however short an epoch or iteration is. Process 0's answer is the job's (a process
 * that does not write answers vt_ckpt_on_interval's). */
int vt_ckpt_due(const vt_ckpt *ck, int64_t k, int64_t last);

/* Starts writing a checkpoint of `trainer`'s state after `done` epochs or iterations (CK.tmp:
 * head written, with the caller's place). VT_OK or VT_EIO. */
vt_status vt_ckpt_begin(vt_ckpt_io *io, const vt_ckpt *ck, const char *trainer, int64_t done,
                        char *err, size_t errlen);

/* Appends n bytes of state (a failure is remembered for vt_ckpt_commit). */
void vt_ckpt_put(vt_ckpt_io *io, const void *p, size_t n);

/* Ends the state (its hash), syncs CK.tmp, renames it over CK and syncs the folder. VT_OK, or
 * VT_EIO (one line in err; CK.tmp removed, CK as it was). */
vt_status vt_ckpt_commit(vt_ckpt_io *io, char *err, size_t errlen);

/* Opens CK to read `trainer`'s state: *found = 0 when there is no CK (VT_OK, nothing open),
 * else its head is checked as vt_ckpt_setup does and the state's first byte is next. VT_OK,
 * VT_EINVAL (another run's), VT_EFORMAT (damaged) or VT_EIO. */
vt_status vt_ckpt_open(vt_ckpt_io *io, const vt_ckpt *ck, const char *trainer, int *found,
                       char *err, size_t errlen);

/* Reads n bytes of state (past the end: zeros, and the failure is remembered). */
void vt_ckpt_get(vt_ckpt_io *io, void *p, size_t n);

/* vt_ckpt_put of the n bytes at p when io is being written, else vt_ckpt_get into them: one
 * list of a state's pieces serves both ways. */
void vt_ckpt_rw(vt_ckpt_io *io, void *p, size_t n);

/* Checks that the state ended exactly where its hash says and closes CK; then tells the caller
 * (ck->resume) where training continues. VT_OK, or VT_EFORMAT with "CK: damaged or truncated
 * checkpoint; remove it to start over". */
vt_status vt_ckpt_close(vt_ckpt_io *io, char *err, size_t errlen);

/* Closes CK without reading the rest (vt_ckpt_open's caller that only checked the head). */
void vt_ckpt_abandon(vt_ckpt_io *io);

/* Marks the state read as inconsistent (a count that does not fit the run): vt_ckpt_close
 * fails. */
void vt_ckpt_bad(vt_ckpt_io *io);

#endif
