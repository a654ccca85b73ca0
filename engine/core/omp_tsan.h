/* engine/core/omp_tsan.h: tells ThreadSanitizer where an OpenMP parallel region forks and joins.
 *
 * libgomp is not built with TSan, so TSan does not see its fork, barriers and join: every value
 * the calling thread hands to a region and every result it reads after the region would be
 * reported as a race. In a TSan build these macros add those edges: VT_OMP_BEGIN, first in the
 * region, has the calling thread (thread 0) release a token and, after a barrier, every thread
 * acquire it; VT_OMP_END, last in the region, has every thread release a second token, which
 * the caller acquires with VT_OMP_JOINED after the region. No thread acquires what another
 * region thread released, so races between the region's threads are still reported. What they
 * cannot cover: GCC's outlined region function reads libgomp's argument block (the addresses
 * and values the region shares) on entry, before any code of ours runs, so TSan still reports
 * those reads, one per field, at the `#pragma omp parallel` line. In other builds the macros
 * compile to nothing (no extra barrier). */
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
#include <omp.h>
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
/* The tokens are file-scope so that no thread reads libgomp's argument block before acquiring. */
static char vt_omp_fork_token, vt_omp_join_token;
#define VT_OMP_BEGIN()                                                                             \
  do {                                                                                             \
    if (omp_get_thread_num() == 0) __tsan_release(&vt_omp_fork_token);                             \
    _Pragma("omp barrier") __tsan_acquire(&vt_omp_fork_token);                                     \
  } while (0)
#define VT_OMP_END() __tsan_release(&vt_omp_join_token)
#define VT_OMP_JOINED() __tsan_acquire(&vt_omp_join_token)
#else
#define VT_OMP_BEGIN() ((void)0)
#define VT_OMP_END() ((void)0)
#define VT_OMP_JOINED() ((void)0)
#endif

#endif
