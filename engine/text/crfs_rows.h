/* engine/text/crfs_rows.h: the emission rows of a sequence of CRFsuite items, through the
 * attribute index (crfs_index.h): the tagger's fast path (crfs_rows.c). */
#ifndef VT_TEXT_CRFS_ROWS_H
#define VT_TEXT_CRFS_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "text/crfs_index.h"
#include "vitesse.h"

/* Adds the emission rows of T item lines (lines[t], lens[t] bytes) to E (T x L, zeroed by the
 * caller) through the index x of a model of L labels: the same bits as vt_crfs_item_row on each
 * line in turn, and the same error for the same item (the first item whose row cannot be made:
 * *bad, message in err). Escaped fields and values are copied into `arena`. Returns 0, -1 (an
 * error) or -2 (out of memory). */
int vt_crfs_rows(const vt_crfs_index *x, int32_t L, vt_arena *arena, const char *const *lines,
                 const size_t *lens, int32_t T, double *E, int32_t *bad, char *err, size_t errlen);

#endif
