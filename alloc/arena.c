/* alloc/arena.c: a bump allocator over blocks taken from the heap (jemalloc in this build).
 *
 * Allocation bumps a pointer in the current block; a request that does not fit opens a new block
 * of twice the previous size (capped), or a block of its own when it is large. Reset frees all but
 * the first block and, when the last round needed more than the first block, regrows the first
 * block to the high-water mark so that a steady workload stops touching the heap. */
#include "arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define VT_ARENA_ALIGN 64
#define VT_ARENA_DEFAULT_BLOCK ((size_t)1 << 20)
#define VT_ARENA_MAX_GROWTH ((size_t)64 << 20)

typedef struct vt_block {
  struct vt_block *next;
  size_t size; /* usable bytes after the header */
  size_t used;
} vt_block;

struct vt_arena {
  vt_block *first;   /* kept across resets */
  vt_block *current; /* where allocation bumps */
  size_t in_use;     /* bytes handed out since the last reset (with alignment padding) */
  size_t high_water;
  uint64_t block_allocs;
};

/* Header rounded up so that block data starts 64-byte aligned. */
#define VT_BLOCK_HEADER (((sizeof(vt_block) + VT_ARENA_ALIGN - 1) / VT_ARENA_ALIGN) * VT_ARENA_ALIGN)

static vt_block *block_new(vt_arena *arena, size_t size) {
  vt_block *b = aligned_alloc(VT_ARENA_ALIGN, VT_BLOCK_HEADER + size);
  if (!b) return NULL;
  b->next = NULL;
  b->size = size;
  b->used = 0;
  arena->block_allocs++;
  return b;
}

static unsigned char *block_data(vt_block *b) { return (unsigned char *)b + VT_BLOCK_HEADER; }

static size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

vt_status vt_arena_create(vt_arena **out, size_t first_block) {
  vt_arena *a = calloc(1, sizeof *a);
  if (!a) goto fail;
  if (first_block == 0) first_block = VT_ARENA_DEFAULT_BLOCK;
  a->first = block_new(a, round_up(first_block, VT_ARENA_ALIGN));
  if (!a->first) goto fail;
  a->current = a->first;
  *out = a;
  return VT_OK;
fail:
  free(a);
  *out = NULL;
  return VT_ENOMEM;
}

void vt_arena_destroy(vt_arena *arena) {
  if (!arena) return;
  vt_block *b = arena->first;
  while (b) {
    vt_block *next = b->next;
    free(b);
    b = next;
  }
  free(arena);
}

void *vt_arena_alloc(vt_arena *arena, size_t size) {
  size_t need = round_up(size ? size : 1, VT_ARENA_ALIGN);
  if (need < size) return NULL; /* overflow */
  vt_block *b = arena->current;
  if (b->size - b->used < need) {
    /* The current block is always the last one: open a new block after it. */
    size_t grow = b->size * 2;
    if (grow > VT_ARENA_MAX_GROWTH) grow = VT_ARENA_MAX_GROWTH;
    vt_block *nb = block_new(arena, need > grow ? need : grow);
    if (!nb) return NULL;
    b->next = nb;
    b = nb;
    arena->current = b;
  }
  void *p = block_data(b) + b->used;
  b->used += need;
  arena->in_use += need;
  if (arena->in_use > arena->high_water) arena->high_water = arena->in_use;
  return p;
}

void *vt_arena_calloc_n(vt_arena *arena, size_t n, size_t size) {
  if (size && n > SIZE_MAX / size) return NULL;
  return vt_arena_alloc(arena, n * size);
}

void vt_arena_reset(vt_arena *arena) {
  vt_block *first = arena->first;
  if (first->next) {
    /* The round needed several blocks: replace them by one first block that holds it all. */
    size_t want = round_up(arena->in_use, VT_ARENA_ALIGN);
    vt_block *b = first->next;
    while (b) {
      vt_block *next = b->next;
      free(b);
      b = next;
    }
    first->next = NULL;
    if (want > first->size) {
      vt_block *nb = block_new(arena, want);
      if (nb) { /* on failure keep the old first block: still correct, just slower */
        free(first);
        first = nb;
        arena->first = nb;
      }
    }
  }
  first->used = 0;
  arena->current = first;
  arena->in_use = 0;
}

size_t vt_arena_high_water(const vt_arena *arena) { return arena->high_water; }

uint64_t vt_arena_block_allocs(const vt_arena *arena) { return arena->block_allocs; }
