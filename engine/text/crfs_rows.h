/* engine/text/crfs_rows.h: the emission rows of a sequence of CRFsuite items, through the
 * attribute index (crfs_index.h): the tagger's fast path. A kernel family (cmake/VtIsa.cmake):
 * the body in crfs_rows_body.h, one table per instruction set in crfs_rows_<level>.c, their
 * dispatcher in crfs_rows.c. */
#ifndef VT_TEXT_CRFS_ROWS_H
#define VT_TEXT_CRFS_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "text/crfs_index.h"
#include "vitesse.h"

/* Adds the emission rows of T item lines (lines[t], lens[t] bytes) to E (T x L, zeroed by the
 * caller, with VT_CRFS_ROW_PAD doubles after it that it may add zeros to) through the index x of a
 * model of L labels: the same bits as vt_crfs_item_row on each line in turn, and the same error for
 * the same item (the first item whose row cannot be made: *bad, message in err). Escaped fields and
 * values are copied into `arena`. Returns 0, -1 (an error) or -2 (out of memory). */
int vt_crfs_rows(const vt_crfs_index *x, int32_t L, vt_arena *arena, const char *const *lines,
                 const size_t *lens, int32_t T, double *E, int32_t *bad, char *err, size_t errlen);

/* vt_crfs_rows at one level. */
typedef int (*vt_crfs_rows_fn)(const vt_crfs_index *x, int32_t L, vt_arena *arena,
                               const char *const *lines, const size_t *lens, int32_t T, double *E,
                               int32_t *bad, char *err, size_t errlen);

/* The rows of one level: every level gives the same bits and errors. */
typedef struct vt_crfs_rows_ops {
  vt_simd level;
  vt_crfs_rows_fn rows;
  uint64_t (*hash)(const vt_crfs_index *x, const char *s, size_t n); /* vt_crfs_index_hash */
} vt_crfs_rows_ops;

/* Returns the rows of `level`, or NULL when this build or CPU cannot run them. */
const vt_crfs_rows_ops *vt_crfs_rows_get(vt_simd level);

/* Per-level tables, defined in crfs_rows_<level>.c. */
extern const vt_crfs_rows_ops vt_crfs_rows_scalar;
#if defined(VT_HAVE_AVX2)
extern const vt_crfs_rows_ops vt_crfs_rows_avx2;
#endif
#if defined(VT_HAVE_AVX512)
extern const vt_crfs_rows_ops vt_crfs_rows_avx512;
#endif

#endif
