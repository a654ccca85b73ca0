/* alloc/prefault.c: pages made present ahead of the writes (see prefault.h). */
#define _DEFAULT_SOURCE /* madvise */
#include "alloc/prefault.h"

#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

int vt_mem_advise_pages(const void *p, size_t n, int advice) {
  const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  const uintptr_t b0 = ((uintptr_t)p + page - 1) & ~(page - 1);
  const uintptr_t b1 = ((uintptr_t)p + n) & ~(page - 1);
  return b1 > b0 ? madvise((void *)b0, b1 - b0, advice) : 0;
}

void vt_mem_prefault(void *p, size_t n) {
#if defined(MADV_POPULATE_WRITE)
  if (p && n >= ((size_t)64 << 10))
    (void)vt_mem_advise_pages(p, n, MADV_POPULATE_WRITE); /* EINVAL before 5.14 */
#else
  (void)p;
  (void)n;
#endif
}
