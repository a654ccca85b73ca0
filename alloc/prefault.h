/* alloc/prefault.h: page advice. A large block that is about to be written all over has its
 * pages made present in one system call, instead of one page fault for each 4 KB page as the
 * writes reach it (a model's index: thousands of faults at load). */
#ifndef VT_ALLOC_PREFAULT_H
#define VT_ALLOC_PREFAULT_H

#include <stddef.h>

/* Makes the whole pages inside [p, p + n) present and writable (Linux 5.14's
 * MADV_POPULATE_WRITE); their contents are unchanged. Blocks under 64 KB, and systems without
 * the call, are left as they are: the writes then fault as usual. */
void vt_mem_prefault(void *p, size_t n);

/* Gives the kernel `advice` (an madvise advice) for the whole pages inside [p, p + n), if any:
 * the one page rounding of vt_mem_prefault and of the loaders' dropped mappings (filemap.h).
 * Returns madvise's result, or 0 when no whole page is inside. */
int vt_mem_advise_pages(const void *p, size_t n, int advice);

#endif
