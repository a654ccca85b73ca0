/* alloc/heap_stats.h: how many bytes the calling thread has taken from the heap, from jemalloc's
 * per-thread counters. Used to show (in --stats and in tests) that a steady workload allocates
 * nothing. */
#ifndef VT_ALLOC_HEAP_STATS_H
#define VT_ALLOC_HEAP_STATS_H

#include <stdint.h>

/* Returns the cumulative number of bytes the calling thread has allocated from the heap since
 * it started, or -1 when that is unknown: jemalloc is not the process's malloc (sanitizer
 * builds replace it) or was built without statistics. Cheap after the first call on a thread
 * (one load through a per-thread pointer). */
int64_t vt_heap_thread_allocated(void);

#endif
