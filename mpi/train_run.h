/* mpi/train_run.h: `vitesse-mpi train` (train.c) and the vt_train_comm it hands the library
 * (train_comm.c). */
#ifndef VT_MPI_TRAIN_RUN_H
#define VT_MPI_TRAIN_RUN_H

#include "mpi_cli.h"
#include "vitesse.h"

/* Fills *c with this job's collectives over MPI (w kept by pointer). Returns 0, or -1 when MPI
 * cannot make the 128-bit sum. */
int vt_mpi_train_comm(const vt_mpi *w, vt_train_comm *c);

#endif
