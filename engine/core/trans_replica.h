/* engine/core/trans_replica.h: deep copies of a transition model into a chosen memory source, so
 * each NUMA node reads its own copy from local memory (the engine makes one per plan node). */
#ifndef VT_CORE_TRANS_REPLICA_H
#define VT_CORE_TRANS_REPLICA_H

#include "alloc/mem.h"
#include "core/trans_layout.h"

/* Copies `src` with every array it points to (kernel layouts, rank order, bound tables) into one
 * block taken from `mem`, and stores the copy in *out. The copy is read-only like the original,
 * owes nothing to it (the original may be destroyed first) and decodes identically. Free it
 * with vt_trans_clone_free and the same `mem`, never with vt_trans_destroy.
 * Returns VT_OK or VT_ENOMEM (*out is then NULL). */
vt_status vt_trans_clone_to(vt_trans **out, const vt_trans *src, const vt_mem *mem);

/* Frees a copy made by vt_trans_clone_to from `mem`. NULL is a no-op. */
void vt_trans_clone_free(vt_trans *clone, const vt_mem *mem);

#endif
