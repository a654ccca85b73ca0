/* alloc/heap_trim.c: freed heap pages handed back at the end of a phase (see heap_trim.h). */
#include "alloc/heap_trim.h"

#include <stdio.h>
#include <stdlib.h>
#ifndef VT_NO_JEMALLOC
#include <jemalloc/jemalloc.h>
#endif
#if defined(__GLIBC__)
#include <malloc.h>
#endif

void vt_heap_trim(void) {
#if !defined(VT_NO_JEMALLOC) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
  char name[64];
  snprintf(name, sizeof name, "arena.%u.purge", (unsigned)MALLCTL_ARENAS_ALL);
  if (mallctl(name, NULL, NULL, NULL, 0) == 0) return;
#endif
#if defined(__GLIBC__)
  malloc_trim(0); /* not jemalloc's heap (a sanitizer's, or glibc's) */
#endif
}
