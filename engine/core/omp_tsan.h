/* engine/core/omp_tsan.h: tells ThreadSanitizer where an OpenMP parallel loop forks and joins.
 *
 * libgomp is not built with TSan, so TSan does not see its barriers and reports every read, in
 * a parallel region, of memory that the calling thread writes after the region (and every
 * write before it). These annotations add exactly those edges, through two tokens per loop:
 * the caller releases `fork` before the region and each iteration acquires it first; each
 * iteration releases `join` last and the caller acquires it after the region. No iteration
 * acquires another's release, so races between the region's threads are still reported. In
 * other builds they compile to nothing. */
#ifndef VT_CORE_OMP_TSAN_H
#define VT_CORE_OMP_TSAN_H

#if defined(__SANITIZE_THREAD__)
#define VT_OMP_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define VT_OMP_TSAN 1
#endif
#endif

#ifdef VT_OMP_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
#define VT_OMP_FORK(tok) __tsan_release(&(tok)->fork)  /* caller, before the region */
#define VT_OMP_ENTER(tok) __tsan_acquire(&(tok)->fork) /* each iteration, first */
#define VT_OMP_LEAVE(tok) __tsan_release(&(tok)->join) /* each iteration, last */
#define VT_OMP_JOIN(tok) __tsan_acquire(&(tok)->join)  /* caller, after the region */
#else
#define VT_OMP_FORK(tok) ((void)(tok))
#define VT_OMP_ENTER(tok) ((void)(tok))
#define VT_OMP_LEAVE(tok) ((void)(tok))
#define VT_OMP_JOIN(tok) ((void)(tok))
#endif

/* The two tokens of one parallel loop (any addresses would do; these are distinct). */
typedef struct vt_omp_tokens {
  char fork, join;
} vt_omp_tokens;

#endif
