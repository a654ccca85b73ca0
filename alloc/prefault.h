/* alloc/prefault.h: page advice. A large block that is about to be written all over has its
 * pages made present in one system call, instead of one page fault for each 4 KB page as the
 * writes reach it (a model's index: thousands of faults at load). */
#ifndef VT_ALLOC_PREFAULT_H
#define VT_ALLOC_PREFAULT_H

#include <stddef.h>

/* Makes the whole pages inside [p, p + n) present and writable (Linux 5.14's
 * MADV_POPULATE_WRITE); their contents are unchanged. Blocks under 64 KB, and systems without
 * the call, are left as they are: the writes then fault as usual. The whole 2 MB stretches
 * inside the block (vt_mem_alloc_big's blocks are made of them) are first offered to the kernel
 * as transparent huge pages (MADV_HUGEPAGE): one page each to clear instead of 512 to allocate
 * (a 319-label model's 10 MB index: 4 ms of a 25 ms load). */
void vt_mem_prefault(void *p, size_t n);

/* A block of n bytes for vt_mem_prefault (freed with free), or NULL: 64-byte aligned, and from
 * 2 MB on aligned to 2 MB, so that its whole 2 MB stretches can be huge pages (its last, partial
 * stretch keeps small pages: the memory it takes is its own bytes). */
void *vt_mem_alloc_big(size_t n);

/* Gives the kernel `advice` (an madvise advice) for the whole pages inside [p, p + n), if any:
 * the one page rounding of vt_mem_prefault and of the loaders' dropped mappings (filemap.h).
 * Returns madvise's result, or 0 when no whole page is inside. */
int vt_mem_advise_pages(const void *p, size_t n, int advice);

#endif
