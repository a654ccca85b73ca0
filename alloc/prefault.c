/* alloc/prefault.c: pages made present ahead of the writes (see prefault.h). */
#define _DEFAULT_SOURCE /* madvise */
#include "alloc/prefault.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int vt_mem_advise_pages(const void *p, size_t n, int advice) {
  const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  const uintptr_t b0 = ((uintptr_t)p + page - 1) & ~(page - 1);
  const uintptr_t b1 = ((uintptr_t)p + n) & ~(page - 1);
  return b1 > b0 ? madvise((void *)b0, b1 - b0, advice) : 0;
}

#define HUGE ((uintptr_t)2 << 20) /* a transparent huge page (x86-64, arm64 with 4 KB pages) */

void vt_mem_prefault(void *p, size_t n) {
#if defined(MADV_POPULATE_WRITE)
  if (!p || n < ((size_t)64 << 10)) return;
#if defined(MADV_HUGEPAGE)
  const uintptr_t h0 = ((uintptr_t)p + HUGE - 1) & ~(HUGE - 1);
  const uintptr_t h1 = ((uintptr_t)p + n) & ~(HUGE - 1);
  if (h1 > h0) (void)madvise((void *)h0, h1 - h0, MADV_HUGEPAGE); /* EINVAL: THP off */
#endif
  (void)vt_mem_advise_pages(p, n, MADV_POPULATE_WRITE); /* EINVAL before 5.14 */
#else
  (void)p;
  (void)n;
#endif
}

void *vt_mem_alloc_big(size_t n) {
  const size_t a = n >= HUGE ? HUGE : 64;
  if (n > SIZE_MAX - a) return NULL;
  return aligned_alloc(a, n ? (n + a - 1) & ~(a - 1) : a);
}
