/* engine/text/model_replica.h: deep copies of a loaded text model into a chosen memory source, so
 * each NUMA node tags from its own copy in local memory (the engine makes one per plan node,
 * as engine/core/trans_replica.h does for a bare transition model). */
#ifndef VT_TEXT_MODEL_REPLICA_H
#define VT_TEXT_MODEL_REPLICA_H

#include "alloc/mem.h"
#include "text/textmodel.h"

/* Copies `src` into memory from `mem`: one block with the struct, the model file's bytes
 * (labels, feature records, hash table, template text), the transition scores and the compiled
 * templates, plus a vt_trans_clone_to copy of the bound transition model. The copy shares
 * nothing with `src` (which may be freed first), is read-only like it and tags identically.
 * Free it with vt_textmodel_clone_free and the same `mem`, never with vt_textmodel_free.
 * Returns VT_OK or VT_ENOMEM (*out is then NULL). */
vt_status vt_textmodel_clone_to(vt_textmodel **out, const vt_textmodel *src, const vt_mem *mem);

/* Frees a copy made by vt_textmodel_clone_to from `mem`. NULL is a no-op. */
void vt_textmodel_clone_free(vt_textmodel *clone, const vt_mem *mem);

#endif
