/* engine/decode/agenda.c: the A* agenda (binary max-heap in the arena) and its k-best floor. A
 * 4-ary heap with cache-line-aligned children measured no faster on the large agendas of `astar`
 * with weak heuristics, where pops miss the cache at any arity. */
#include "decode/agenda.h"

#include <math.h>
#include <string.h>

/* Grows an arena array holding `used` bytes at *p to at least `want` bytes (doubling), copying
 * the content; the old storage is left to the arena. Returns VT_OK or VT_ENOMEM. */
static vt_status array_grow(vt_arena *arena, void **p, size_t *cap_bytes, size_t used,
                            size_t want) {
  if (want <= *cap_bytes) return VT_OK;
  size_t cap = *cap_bytes ? *cap_bytes : 64;
  while (cap < want) {
    if (cap > SIZE_MAX / 2) return VT_ENOMEM;
    cap *= 2;
  }
  void *np = vt_arena_alloc(arena, cap);
  if (!np) return VT_ENOMEM;
  if (used) memcpy(np, *p, used);
  *p = np;
  *cap_bytes = cap;
  return VT_OK;
}

vt_status vt_agenda_init(vt_agenda *q, vt_arena *arena, int32_t k, size_t node_size) {
  memset(q, 0, sizeof *q);
  q->arena = arena;
  q->k = k;
  q->floor = -INFINITY;
  q->node_size = node_size;
  q->cap = 256;
  q->heap = VT_ARENA_NEW(arena, vt_agenda_item, q->cap);
  q->rec = VT_ARENA_NEW(arena, double, k);
  return q->heap && q->rec ? VT_OK : VT_ENOMEM;
}

vt_status vt_agenda_reserve(vt_agenda *q, int64_t nodes) {
  size_t bytes = (size_t)q->cap * sizeof *q->heap;
  vt_status st = array_grow(q->arena, (void **)&q->heap, &bytes, (size_t)q->n * sizeof *q->heap,
                            (size_t)nodes * sizeof *q->heap);
  if (st != VT_OK) return st;
  q->cap = (int64_t)(bytes / sizeof *q->heap);
  return array_grow(q->arena, (void **)&q->pool, &q->pool_bytes, (size_t)q->n_nodes * q->node_size,
                    (size_t)nodes * q->node_size);
}

vt_status vt_agenda_add(vt_agenda *q, const void *node, double key, int exact) {
  const size_t used = (size_t)q->n_nodes * q->node_size;
  vt_status st = array_grow(q->arena, (void **)&q->pool, &q->pool_bytes, used, used + q->node_size);
  if (st != VT_OK) return st;
  memcpy(q->pool + used, node, q->node_size);
  return vt_agenda_push(q, key, exact, q->n_nodes++);
}

/* Item a comes before item b. */
static inline int item_first(const vt_agenda_item *a, const vt_agenda_item *b) {
  return a->key > b->key || (a->key == b->key && a->tie < b->tie);
}

vt_status vt_agenda_push(vt_agenda *q, double key, int exact, int64_t node) {
  if (q->n == q->cap) {
    size_t bytes = (size_t)q->cap * sizeof *q->heap;
    vt_status st = array_grow(q->arena, (void **)&q->heap, &bytes, bytes, bytes * 2);
    if (st != VT_OK) return st;
    q->cap = (int64_t)(bytes / sizeof *q->heap);
  }
  vt_agenda_item it = {key, (uint64_t)node | (exact ? 0 : VT_AGENDA_EST)};
  vt_agenda_item *h = q->heap;
  int64_t i = q->n++;
  while (i > 0) {
    int64_t parent = (i - 1) / 2;
    if (!item_first(&it, &h[parent])) break;
    h[i] = h[parent];
    i = parent;
  }
  h[i] = it;
  return VT_OK;
}

int vt_agenda_pop(vt_agenda *q, vt_agenda_item *out) {
  if (q->n == 0) return 0;
  vt_agenda_item *h = q->heap;
  *out = h[0];
  const vt_agenda_item last = h[--q->n];
  const int64_t n = q->n;
  int64_t i = 0;
  for (;;) {
    int64_t c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n && item_first(&h[c + 1], &h[c])) c++;
    if (!item_first(&h[c], &last)) break;
    h[i] = h[c];
    i = c;
  }
  if (n > 0) h[i] = last;
  return 1;
}

void vt_topk_push(double *h, int32_t *n, int32_t k, double v) {
  int32_t i;
  if (*n == k) {
    if (!(v > h[0])) return;
    /* Replace the minimum and sift it down. */
    i = 0;
    for (;;) {
      int32_t c = 2 * i + 1;
      if (c >= k) break;
      if (c + 1 < k && h[c + 1] < h[c]) c++;
      if (!(h[c] < v)) break;
      h[i] = h[c];
      i = c;
    }
  } else {
    i = (*n)++;
    while (i > 0 && h[(i - 1) / 2] > v) {
      h[i] = h[(i - 1) / 2];
      i = (i - 1) / 2;
    }
  }
  h[i] = v;
}

void vt_agenda_record(vt_agenda *q, double value) {
  vt_topk_push(q->rec, &q->n_rec, q->k, value);
  if (q->n_rec == q->k && q->rec[0] > q->floor) q->floor = q->rec[0];
}
