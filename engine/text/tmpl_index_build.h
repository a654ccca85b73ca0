/* engine/text/tmpl_index_build.h: building a model's template index (tmpl_index.h) at load
 * (tmpl_index_build.c). */
#ifndef VT_TEXT_TMPL_INDEX_BUILD_H
#define VT_TEXT_TMPL_INDEX_BUILD_H

#include "text/textmodel.h"
#include "text/tmpl_index.h"
#include "vitesse.h"

/* Builds the index of model `m` (its templates parsed, its records checked) into *out. Returns
 * VT_OK with *out NULL when no template can use it, when the model has more templates than a key
 * holds, past VT_TIX_LOCAL_WORK (a row cache serves it better) or when splitting its records
 * would take work out of proportion to their size; VT_OK with an index, or VT_ENOMEM. */
vt_status vt_tmpl_index_build(const vt_textmodel *m, vt_tmpl_index **out);

#endif
