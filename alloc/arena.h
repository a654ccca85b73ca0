/* alloc/arena.h: internal view of the bump arena (the public API is in vitesse.h). */
#ifndef VT_ALLOC_ARENA_H
#define VT_ALLOC_ARENA_H

#include "alloc/mem.h"
#include "vitesse.h"

/* Allocates `n` elements of `size` bytes each from `arena`, 64-byte aligned; NULL on overflow
 * of n*size or when memory is exhausted. */
void *vt_arena_calloc_n(vt_arena *arena, size_t n, size_t size);

#define VT_ARENA_NEW(arena, type, n) ((type *)vt_arena_calloc_n((arena), (size_t)(n), sizeof(type)))

/* As vt_arena_create, taking every block from `mem` (copied; its context must outlive the
 * arena): e.g. memory bound to the NUMA node of the thread that will use the arena. The arena
 * header itself comes from the heap. Returns VT_OK or VT_ENOMEM (*out is then NULL). */
vt_status vt_arena_create_in(vt_arena **out, size_t first_block, const vt_mem *mem);

/* Returns the bytes the arena holds in blocks now (block headers included). */
size_t vt_arena_reserved(const vt_arena *arena);

#endif
