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
#include "vitesse.h"

/* vt_train_comm itself is public (vitesse.h): vitesse-mpi provides one over MPI. */

#endif
