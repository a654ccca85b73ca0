/* alloc/heap_trim.h: the heap's freed pages handed back to the system at the end of a phase (a
 * model loaded, a corpus read), so that what the phase built and freed does not stay resident
 * through the long phase after it. jemalloc otherwise keeps freed pages for about ten seconds. */
#ifndef VT_ALLOC_HEAP_TRIM_H
#define VT_ALLOC_HEAP_TRIM_H

/* Returns the pages of freed heap memory to the system (jemalloc: every arena purged; another
 * malloc: glibc's malloc_trim, or nothing). Thread-safe; costs a system call or a few, so it is
 * called once a phase, never per sentence. */
void vt_heap_trim(void);

#endif
