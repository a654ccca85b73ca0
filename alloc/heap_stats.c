/* alloc/heap_stats.c: jemalloc's "thread.allocatedp" (a pointer to the calling thread's
 * cumulative allocated-bytes counter), checked once to really count this process's malloc. */
#include "alloc/heap_stats.h"

#ifndef VT_NO_JEMALLOC
#include <jemalloc/jemalloc.h>
#endif
#include <stdatomic.h>
#include <stdlib.h>

#ifndef VT_NO_JEMALLOC
static _Thread_local uint64_t *thread_counter;
#endif
static atomic_int jemalloc_active; /* 0 unknown, 1 yes, -1 no */

static uint64_t *counter_get(void) {
#ifdef VT_NO_JEMALLOC
  return NULL; /* not linked (the ThreadSanitizer build) */
#else
  if (!thread_counter) {
    uint64_t *p = NULL;
    size_t len = sizeof p;
    if (mallctl("thread.allocatedp", &p, &len, NULL, 0) != 0) return NULL;
    thread_counter = p;
  }
  return thread_counter;
#endif
}

/* Whether malloc is jemalloc's: a malloc must move the counter (a sanitizer's malloc does not). */
static int active_check(void) {
  int a = atomic_load(&jemalloc_active);
  if (a) return a > 0;
  uint64_t *c = counter_get();
  a = -1;
  if (c) {
    /* Volatile reads: the compiler knows malloc writes no memory of ours, and would reuse the
     * first load. */
    const volatile uint64_t *vc = c;
    uint64_t before = *vc;
    void *volatile p = malloc(256);
    if (p && *vc != before) a = 1;
    free(p);
  }
  atomic_store(&jemalloc_active, a);
  return a > 0;
}

int64_t vt_heap_thread_allocated(void) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  /* The sanitizer owns malloc; calling into jemalloc (not instrumented) only confuses it. */
  (void)active_check;
  return -1;
#else
  if (!active_check()) return -1;
  const volatile uint64_t *c = counter_get();
  return c ? (int64_t)*c : -1;
#endif
}
