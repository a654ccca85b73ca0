/* engine/train/blas.h: OpenBLAS, loaded when a CRF trainer first needs it.
 *
 * Only the CRF trainers multiply matrices (the batched forward-backward). Linked at build time,
 * OpenBLAS and its Fortran runtime were loaded into every process, and its thread pool started,
 * before main: 2.4 of the 4.3 ms of CPU a `vitesse --version` took, and as much of every
 * tagging run.
 * The library now loads it with dlopen when a trainer starts (the one it was built against,
 * else the one the system finds by its soname), and reports a clear error when it cannot. */
#ifndef VT_TRAIN_BLAS_H
#define VT_TRAIN_BLAS_H

#include <cblas.h>
#include <stddef.h>

#include "vitesse.h"

/* Loads OpenBLAS once per process (thread-safe) and sets its products to one thread at every
 * call (the trainers run them inside their own threads); when the process had not loaded it
 * before, its idle thread pool is stopped (no one else can use it, and it spins). Returns VT_OK, or
 * VT_EUNSUPPORTED with "cannot load OpenBLAS: WHY" in err. Every trainer calls it first. */
vt_status vt_blas_load(char *err, size_t errlen);

/* cblas_dgemm of the OpenBLAS vt_blas_load loaded (loaded here on the first call otherwise; a
 * process that cannot load it stops with that message: the trainers report it before). */
void vt_blas_dgemm(enum CBLAS_ORDER order, enum CBLAS_TRANSPOSE ta, enum CBLAS_TRANSPOSE tb,
                   blasint m, blasint n, blasint k, double alpha, const double *a, blasint lda,
                   const double *b, blasint ldb, double beta, double *c, blasint ldc);

#endif
