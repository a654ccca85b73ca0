/* engine/decode/agenda.h: the agenda of the A* decoders: a binary max-heap of (key, node) items in
 * the caller's arena, plus a floor below which nothing can be among the k best.
 *
 * Items are ordered by key (larger first), then exact before estimated, then by node index (the
 * order of creation): a total order, so the search is deterministic. The nodes (the decoder's
 * own struct) live in a pool next to the heap, which holds their indices.
 *
 * The floor: every path whose exact score is known to be at least some value is recorded with
 * vt_agenda_record (each distinct path at most once); the floor is the k-th largest recorded
 * value (-inf until k are recorded), or higher if the caller set it (it only rises): k distinct
 * paths score at least the floor, so a candidate whose upper bound is <= floor can be dropped
 * without changing the k best score list. */
#ifndef VT_DECODE_AGENDA_H
#define VT_DECODE_AGENDA_H

#include <math.h>

#include "alloc/arena.h"

typedef struct vt_agenda_item {
  double key;
  uint64_t tie; /* bit 62: estimated (not exact); low bits: node index */
} vt_agenda_item;

typedef struct vt_agenda {
  vt_arena *arena;
  vt_agenda_item *heap;
  int64_t n, cap;
  unsigned char *pool; /* the nodes, node_size bytes each, indexed by creation order */
  size_t node_size, pool_bytes;
  int64_t n_nodes;
  double *rec; /* min-heap of the k largest recorded values */
  int32_t k, n_rec;
  double floor; /* max(rec[0] once n_rec == k, what the caller set), else -inf */
} vt_agenda;

#define VT_AGENDA_EST ((uint64_t)1 << 62)

/* Prepares an empty agenda for the k best paths whose nodes are `node_size` bytes; the heap and
 * the node pool grow in the arena. Returns VT_OK or VT_ENOMEM. */
vt_status vt_agenda_init(vt_agenda *q, vt_arena *arena, int32_t k, size_t node_size);

/* Makes room for `nodes` nodes and heap items at once, so that an agenda expected to grow that
 * large is not copied at every doubling on the way. Returns VT_OK, or VT_ENOMEM with the agenda
 * as it was (still usable). */
vt_status vt_agenda_reserve(vt_agenda *q, int64_t nodes);

/* Copies `node` into the pool as a new node and pushes it with `key`; `exact` says whether key is
 * the path's exact score. Returns VT_OK or VT_ENOMEM. */
vt_status vt_agenda_add(vt_agenda *q, const void *node, double key, int exact);

/* Pushes existing node `node` again with `key`. Returns VT_OK or VT_ENOMEM. */
vt_status vt_agenda_push(vt_agenda *q, double key, int exact, int64_t node);

/* Returns node `node` of the pool (valid until the next vt_agenda_add). */
static inline void *vt_agenda_at(const vt_agenda *q, int64_t node) {
  return q->pool + (size_t)node * q->node_size;
}

/* Pops the first item into *out. Returns 0 when the agenda is empty. */
int vt_agenda_pop(vt_agenda *q, vt_agenda_item *out);

/* Returns the key of the first item, or -inf when the agenda is empty. */
static inline double vt_agenda_top(const vt_agenda *q) { return q->n ? q->heap[0].key : -INFINITY; }

/* Records one distinct path known to score at least `value` (see the floor above). */
void vt_agenda_record(vt_agenda *q, double value);

/* Returns the node index of an item. */
static inline int64_t vt_agenda_node(const vt_agenda_item *it) {
  return (int64_t)(it->tie & (VT_AGENDA_EST - 1));
}

/* Returns 1 when the item's key is the exact score of its path. */
static inline int vt_agenda_exact(const vt_agenda_item *it) { return !(it->tie & VT_AGENDA_EST); }

/* Keeps the k largest values seen in the min-heap h (*n entries, capacity k >= 1): adds v when
 * there is room or v beats the smallest. h[0] is the k-th largest once *n == k. */
void vt_topk_push(double *h, int32_t *n, int32_t k, double v);

#endif
