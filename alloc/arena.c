/* alloc/arena.c: a bump allocator over blocks taken from a vt_mem (the heap, or memory bound to
 * the worker's NUMA node).
 *
 * Allocation bumps a pointer in the current block. A request that does not fit opens the next
 * block, twice the size of the current one up to VT_ARENA_MAX_GROWTH; a request larger than that
 * next block gets a block of its own (kept on a separate list, so the bump block stays current).
 * Reset frees every block but the first and, when the round needed more than the first block,
 * regrows the first block to what the round used (up to VT_ARENA_KEEP_MAX): a steady workload
 * stops touching the heap. */
#include "alloc/arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define VT_ARENA_ALIGN 64
#define VT_ARENA_DEFAULT_BLOCK ((size_t)1 << 20)
#define VT_ARENA_MAX_GROWTH ((size_t)64 << 20)
/* The first block grows to what a round used up to this size; a rarer, larger round (one
 * pathological sentence of an A* decoder can need gigabytes) gets its memory back at reset. */
#define VT_ARENA_KEEP_MAX ((size_t)256 << 20)

typedef struct vt_block {
  struct vt_block *next;
  size_t size; /* usable bytes after the header */
  size_t used;
} vt_block;

struct vt_arena {
  vt_mem mem;        /* where blocks come from */
  vt_block *first;   /* kept across resets */
  vt_block *current; /* where allocation bumps: the last block of the chain from first */
  vt_block *large;   /* blocks of single large requests, freed at reset */
  size_t in_use;     /* bytes handed out since the last reset (with alignment padding) */
  size_t high_water;
  size_t reserved; /* bytes held in blocks now, headers included */
  uint64_t block_allocs;
};

/* Header rounded up so that block data starts 64-byte aligned. */
#define VT_BLOCK_HEADER                                                                            \
  (((sizeof(vt_block) + VT_ARENA_ALIGN - 1) / VT_ARENA_ALIGN) * VT_ARENA_ALIGN)

static size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

static vt_block *block_new(vt_arena *arena, size_t size) {
  if (size > SIZE_MAX - VT_BLOCK_HEADER) return NULL;
  vt_block *b = vt_mem_alloc(&arena->mem, VT_BLOCK_HEADER + size);
  if (!b) return NULL;
  b->next = NULL;
  b->size = size;
  b->used = 0;
  arena->block_allocs++;
  arena->reserved += VT_BLOCK_HEADER + size;
  return b;
}

static void block_free(vt_arena *arena, vt_block *b) {
  arena->reserved -= VT_BLOCK_HEADER + b->size;
  vt_mem_free(&arena->mem, b, VT_BLOCK_HEADER + b->size);
}

/* Frees the chain starting at b. */
static void chain_free(vt_arena *arena, vt_block *b) {
  while (b) {
    vt_block *next = b->next;
    block_free(arena, b);
    b = next;
  }
}

static unsigned char *block_data(vt_block *b) { return (unsigned char *)b + VT_BLOCK_HEADER; }

vt_status vt_arena_create_in(vt_arena **out, size_t first_block, const vt_mem *mem) {
  vt_arena *a = calloc(1, sizeof *a);
  *out = NULL;
  if (!a) return VT_ENOMEM;
  a->mem = *mem;
  if (first_block == 0) first_block = VT_ARENA_DEFAULT_BLOCK;
  if (first_block > SIZE_MAX / 2) goto fail;
  a->first = block_new(a, round_up(first_block, VT_ARENA_ALIGN));
  if (!a->first) goto fail;
  a->current = a->first;
  *out = a;
  return VT_OK;
fail:
  free(a);
  return VT_ENOMEM;
}

vt_status vt_arena_create(vt_arena **out, size_t first_block) {
  return vt_arena_create_in(out, first_block, &vt_mem_heap);
}

void vt_arena_destroy(vt_arena *arena) {
  if (!arena) return;
  chain_free(arena, arena->first);
  chain_free(arena, arena->large);
  free(arena);
}

void *vt_arena_alloc(vt_arena *arena, size_t size) {
  if (size > SIZE_MAX - VT_ARENA_ALIGN) return NULL;
  size_t need = round_up(size ? size : 1, VT_ARENA_ALIGN);
  vt_block *b = arena->current;
  if (b->size - b->used < need) {
    size_t grow = b->size > VT_ARENA_MAX_GROWTH / 2 ? VT_ARENA_MAX_GROWTH : b->size * 2;
    if (need > grow) {
      /* A large request: its own block, off the bump chain. */
      vt_block *lb = block_new(arena, need);
      if (!lb) return NULL;
      lb->used = need;
      lb->next = arena->large;
      arena->large = lb;
      b = lb;
      goto done;
    }
    vt_block *nb = block_new(arena, grow);
    if (!nb) return NULL;
    b->next = nb;
    arena->current = b = nb;
  }
  b->used += need;
done:
  arena->in_use += need;
  if (arena->in_use > arena->high_water) arena->high_water = arena->in_use;
  return block_data(b) + b->used - need;
}

void *vt_arena_calloc_n(vt_arena *arena, size_t n, size_t size) {
  if (size && n > SIZE_MAX / size) return NULL;
  return vt_arena_alloc(arena, n * size);
}

void vt_arena_reset(vt_arena *arena) {
  vt_block *first = arena->first;
  if (first->next || arena->large) {
    /* The round needed more than the first block: keep one first block that holds it all. */
    size_t want = round_up(arena->in_use, VT_ARENA_ALIGN);
    chain_free(arena, first->next);
    first->next = NULL;
    chain_free(arena, arena->large);
    arena->large = NULL;
    if (want > first->size && want <= VT_ARENA_KEEP_MAX) {
      vt_block *nb = block_new(arena, want);
      if (nb) { /* on failure keep the old first block: still correct, just slower */
        block_free(arena, first);
        first = arena->first = nb;
      }
    }
  }
  first->used = 0;
  arena->current = first;
  arena->in_use = 0;
}

size_t vt_arena_high_water(const vt_arena *arena) { return arena->high_water; }

uint64_t vt_arena_block_allocs(const vt_arena *arena) { return arena->block_allocs; }

size_t vt_arena_reserved(const vt_arena *arena) { return arena->reserved; }
