/* alloc/node_mem.c: node-bound blocks through hwloc_alloc_membind (mmap + mbind on Linux).
 * A block that cannot be bound is still allocated (hwloc_alloc): binding is a placement hint for
 * speed, never a reason to fail. */
#include "alloc/node_mem.h"

#include <string.h>

static void *node_alloc(void *ctx, size_t size) {
  vt_node_mem *m = ctx;
  void *p =
      hwloc_alloc_membind(m->topo, size, m->nodeset, HWLOC_MEMBIND_BIND, HWLOC_MEMBIND_BYNODESET);
  return p ? p : hwloc_alloc(m->topo, size);
}

static void node_free(void *ctx, void *p, size_t size) {
  vt_node_mem *m = ctx;
  hwloc_free(m->topo, p, size);
}

vt_status vt_node_mem_init(vt_node_mem *m, hwloc_topology_t topo, int numa) {
  memset(m, 0, sizeof *m);
  m->mem = vt_mem_heap;
  if (!topo || numa < 0 || !hwloc_topology_is_thissystem(topo)) return VT_OK;
  hwloc_obj_t node = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, (unsigned)numa);
  if (!node) return VT_EINVAL;
  const struct hwloc_topology_support *sup = hwloc_topology_get_support(topo);
  if (!sup->membind->alloc_membind || !sup->membind->bind_membind) return VT_OK;
  m->nodeset = hwloc_bitmap_dup(node->nodeset);
  if (!m->nodeset) return VT_ENOMEM;
  m->topo = topo;
  m->bound = 1;
  m->mem.alloc = node_alloc;
  m->mem.free = node_free;
  m->mem.ctx = m;
  return VT_OK;
}

void vt_node_mem_fini(vt_node_mem *m) {
  if (!m) return;
  hwloc_bitmap_free(m->nodeset);
  memset(m, 0, sizeof *m);
}
