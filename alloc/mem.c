/* alloc/mem.c: the heap as a vt_mem, and the rounding every vt_mem caller shares. */
#include "alloc/mem.h"

#include <stdint.h>
#include <stdlib.h>

static void *heap_alloc(void *ctx, size_t size) {
  (void)ctx;
  return aligned_alloc(64, size);
}

static void heap_free(void *ctx, void *p, size_t size) {
  (void)ctx;
  (void)size;
  free(p);
}

const vt_mem vt_mem_heap = {heap_alloc, heap_free, NULL};

size_t vt_mem_round(size_t size) {
  if (size == 0) size = 1;
  if (size > SIZE_MAX - 63) return 0;
  return (size + 63) & ~(size_t)63;
}

void *vt_mem_alloc(const vt_mem *mem, size_t size) {
  size_t n = vt_mem_round(size);
  return n ? mem->alloc(mem->ctx, n) : NULL;
}

void vt_mem_free(const vt_mem *mem, void *p, size_t size) {
  if (p) mem->free(mem->ctx, p, vt_mem_round(size));
}
