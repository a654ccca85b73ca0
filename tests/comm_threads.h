/* tests/comm_threads.h: a vt_train_comm (engine/train/train_comm.h) for processes played by
 * POSIX threads of one test program: the collectives meet at a barrier and read each other's
 * buffers in place, so that a test can run a job "on P processes" without MPI.
 *
 *   vt_comm_threads *g = vt_comm_threads_create(P);
 *   ... thread r: vt_train_comm c; vt_comm_threads_member(g, r, &c); train with &c ...
 *   vt_comm_threads_destroy(g);   (after every thread is done)
 *
 * Every member must make the same calls in the same order (a member that stops calling leaves
 * the others waiting, as MPI would). A call whose allocation fails on any member returns -1 on
 * every member. */
#ifndef VT_TESTS_COMM_THREADS_H
#define VT_TESTS_COMM_THREADS_H

#include "train/train_comm.h"

typedef struct vt_comm_threads vt_comm_threads;

/* The meeting place of `size` (>= 1) members; NULL when out of memory. */
vt_comm_threads *vt_comm_threads_create(int size);

/* Frees g (no member may be inside a call). NULL is fine. */
void vt_comm_threads_destroy(vt_comm_threads *g);

/* Fills *c as member `rank` (0 <= rank < size) of g: rank, size, ctx and every call (send and
 * recv through mailboxes, the rest collective). */
void vt_comm_threads_member(vt_comm_threads *g, int rank, vt_train_comm *c);

/* Calls made so far through g's gather_all by member 0: a test can see that the collectives it
 * expects did run. */
long vt_comm_threads_gathers(const vt_comm_threads *g);

#endif
