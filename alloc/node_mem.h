/* alloc/node_mem.h: a vt_mem whose blocks are bound to one NUMA node (hwloc), for the arenas
 * and the model replica of the workers placed on that node. */
#ifndef VT_ALLOC_NODE_MEM_H
#define VT_ALLOC_NODE_MEM_H

#include <hwloc.h>

#include "alloc/mem.h"
#include "vitesse.h"

typedef struct vt_node_mem {
  vt_mem mem;             /* what to hand to arenas and replicas; its ctx is this struct */
  hwloc_topology_t topo;  /* not owned; NULL when the blocks come from the heap */
  hwloc_bitmap_t nodeset; /* owned */
  int bound;              /* 1: blocks are bound to the node; 0: plain heap blocks */
} vt_node_mem;

/* Prepares *m to allocate memory bound to the NUMA node of logical index `numa` in `topo`.
 * Falls back to the heap (m->bound = 0) when `numa` < 0, when `topo` is not this machine
 * (a synthetic or XML topology) or when the OS cannot bind memory. *m must not move while in
 * use (its mem.ctx points to it). Returns VT_OK, or VT_EINVAL / VT_ENOMEM (*m is then a valid
 * heap source anyway, so vt_node_mem_fini is always fine). */
vt_status vt_node_mem_init(vt_node_mem *m, hwloc_topology_t topo, int numa);

/* Releases the nodeset. Blocks still allocated must have been freed before. */
void vt_node_mem_fini(vt_node_mem *m);

#endif
