/* engine/cli/blas_pool.c: stopping OpenBLAS's thread pool in the command-line tools.
 *
 * Debian's default OpenBLAS (the pthread build) starts one thread per core when it is loaded,
 * before main, and each of them spins on sched_yield for a while after every call and at start.
 * The CRF trainer runs every matrix product on one BLAS thread inside its own team, so the pool
 * never works for the tools; on two cores its spinning cost `vitesse tag` about a fifth of its
 * CPU time, and it competes with a busy machine's other processes. The library itself never
 * stops the pool: a program that links it may want OpenBLAS's threads for its own products. */
#include "cli/cli.h"

/* OpenBLAS's own entry points, weak: a BLAS without them (a serial build, another BLAS) leaves
 * them NULL and this does nothing. */
extern void openblas_set_num_threads(int n) __attribute__((weak));
extern int blas_thread_shutdown_(void) __attribute__((weak));

void vt_cli_blas_pool_stop(void) {
  if (openblas_set_num_threads) openblas_set_num_threads(1);
  if (blas_thread_shutdown_) blas_thread_shutdown_();
}
