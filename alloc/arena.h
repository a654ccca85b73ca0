/* alloc/arena.h: internal view of the bump arena (the public API is in vitesse.h). */
#ifndef VT_ALLOC_ARENA_H
#define VT_ALLOC_ARENA_H

#include "vitesse.h"

/* Allocates `n` elements of `size` bytes each from `arena`, 64-byte aligned; NULL on overflow
 * of n*size or when memory is exhausted. */
void *vt_arena_calloc_n(vt_arena *arena, size_t n, size_t size);

#define VT_ARENA_NEW(arena, type, n) ((type *)vt_arena_calloc_n((arena), (size_t)(n), sizeof(type)))

#endif
