/* alloc/mem.h: where long-lived blocks come from: the heap, or memory bound to one NUMA node.
 *
 * A vt_mem is a pair of functions and their context. Arenas take their blocks from one, and a
 * model replica is copied into one (engine/core/trans_replica.c), so the same code serves a plain
 * heap and node-bound memory (alloc/node_mem.h). */
#ifndef VT_ALLOC_MEM_H
#define VT_ALLOC_MEM_H

#include <stddef.h>

typedef struct vt_mem {
  /* Returns `size` bytes (size > 0, a multiple of 64), 64-byte aligned, or NULL. */
  void *(*alloc)(void *ctx, size_t size);
  /* Releases `p` (not NULL), which alloc returned for `size` bytes. */
  void (*free)(void *ctx, void *p, size_t size);
  void *ctx;
} vt_mem;

/* The heap (aligned_alloc and free: jemalloc in this build). Thread-safe. */
extern const vt_mem vt_mem_heap;

/* Returns `size` bytes from `mem`, rounded up to a multiple of 64, 64-byte aligned; NULL on
 * failure or when rounding overflows. size 0 is treated as 64. */
void *vt_mem_alloc(const vt_mem *mem, size_t size);

/* Releases `p` obtained from vt_mem_alloc(mem, size) with the same `size`. NULL is a no-op. */
void vt_mem_free(const vt_mem *mem, void *p, size_t size);

/* Rounds `size` up to the multiple of 64 that vt_mem_alloc hands out (0 becomes 64); 0 on
 * overflow. */
size_t vt_mem_round(size_t size);

#endif
