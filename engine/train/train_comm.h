/* engine/train/train_comm.h: the processes one training job runs on (the ranks of
 * `vitesse-mpi train`), as the trainers see them: collective calls behind function pointers, so
 * that the engine itself never links MPI. A trainer given no vt_train_comm (NULL) runs alone.
 *
 * Every process of the job calls the same collectives in the same order. A callback returns 0,
 * or -1 when the job cannot go on (every process then gets -1 from the same call and stops). */
#ifndef VT_TRAIN_TRAIN_COMM_H
#define VT_TRAIN_TRAIN_COMM_H

#include <stddef.h>
#include <stdint.h>

#include "core/fix128.h"

typedef struct vt_train_comm {
  int rank, size; /* this process, and how many there are */
  void *ctx;
  /* Replaces v[0..n) on every process by its sum over the processes: exact integer addition, so
   * the sum does not depend on how the processes are grouped. */
  int (*sum_fix)(void *ctx, vt_fix128 *v, int64_t n);
  /* The same for int64 values. */
  int (*sum_i64)(void *ctx, int64_t *v, int64_t n);
  /* Every process's `len` bytes at `mine`, one after the other in process order, into a buffer
   * malloc'd for *all (the caller frees it), of *all_len bytes. */
  int (*gather_all)(void *ctx, const void *mine, size_t len, void **all, size_t *all_len);
} vt_train_comm;

#endif
