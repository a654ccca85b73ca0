/* engine/train/train_mix.h: the exact mix of iterative parameter mixing (train_mix.c): the
 * deltas of one process's shards summed into its part, and the parts of all processes added
 * into the mixed weights. The layout of a part is in train_ipm.h. */
#ifndef VT_TRAIN_TRAIN_MIX_H
#define VT_TRAIN_TRAIN_MIX_H

#include <stddef.h>
#include <stdint.h>

#include "train/train_weights.h"
#include "vitesse.h"

/* One shard's deltas over a round as the mix reads them: the features it updated (own->d, with
 * their accumulators) and its transition deltas (dA, dAu: L x L, zero but on the cells[0..n_cells)
 * it changed, prev * L + cur, repeats allowed; the others: L). Every value is an integer. */
typedef struct vt_mix_deltas {
  const vt_wover *own;
  const double *dA, *dAu, *dS, *dSu, *dF, *dFu;
  const int32_t *cells;
  int64_t n_cells;
} vt_mix_deltas;

enum { VT_MIX_HEAD = 48 }; /* bytes of a part's header */

/* This process's buffers for its parts, kept from epoch to epoch. */
typedef struct vt_mixer vt_mixer;

/* A mixer for the weights' shape (labels, features); NULL when out of memory. */
vt_mixer *vt_mixer_create(const vt_weights *W);

/* Frees m (NULL is fine). */
void vt_mixer_destroy(vt_mixer *m);

/* Sums the deltas d[0..n) (n >= 0: the shards of this process) per weight and writes them as
 * this process's part, on `nthreads` OpenMP threads (the bytes do not depend on it): the
 * features' records with their keys ascending and no all-zero entry, then when n > 0 the
 * changed transition cells ascending and the start and end deltas. Its cost follows the
 * features and cells the shards changed. *part (valid until the next call) and *len get the
 * bytes. VT_OK or VT_ENOMEM. */
vt_status vt_mixer_part(vt_mixer *m, const vt_weights *W, const vt_mix_deltas *d, int32_t n,
                        int nthreads, const void **part, size_t *len);

/* Writes into buf (VT_MIX_HEAD bytes) the part of a process that cannot go on, for a model of
 * L labels; returns its length. */
size_t vt_mix_fail_part(void *buf, int32_t L);

/* Adds to W, for every weight, the sum of its deltas over the parts all[0..len) (those of every
 * process, one after the other): the sums exact (integers), each feature's keys added in
 * ascending order, on `nthreads` OpenMP threads, each owning whole features (W does not depend on
 * the thread count or on how the deltas were grouped into parts). When a part is a failure one,
 * sets *failed and adds nothing. Returns VT_OK, VT_ENOMEM, or VT_EFORMAT for parts that are not
 * well formed (out of order, out of range) or hold a value that is not an integer below 2^53 (W
 * is then undefined). m lists the transition cells it changed (vt_mixer_changed). */
vt_status vt_mix_add(vt_mixer *m, vt_weights *W, const void *all, size_t len, int nthreads,
                     int *failed);

/* The transition cells (prev * L + cur, each once) the last vt_mix_add may have changed, in
 * *cells (valid until the next call on m); returns their count (0 after a failed mix). */
int64_t vt_mixer_changed(const vt_mixer *m, const int32_t **cells);

#endif
