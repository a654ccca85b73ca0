/* engine/core/bounds.h: building the suffix bounds of a bound transition model (bounds.c). */
#ifndef VT_CORE_BOUNDS_H
#define VT_CORE_BOUNDS_H

#include "core/trans_layout.h"

/* (Re)builds tr->bd from A, S, F and the rank. Returns VT_OK or VT_ENOMEM (bd then empty). */
vt_status vt_bounds_build(vt_trans *tr);

/* Frees tr->bd. */
void vt_bounds_free(vt_trans *tr);

/* The parts of vt_bounds_build, for in-place updates (trans_update.c) that changed a few cells:
 * recompute to_max of rank row ri, its extremes and their counts (row_max, row_mag, row_q,
 * row_n), from_max of rank column rj, both_max (after rows changed), Sr/Fr and their suffix
 * maxima and magnitudes, and a_max/mag_a/q_a from the rows' extremes (O(L)). Each needs Ar/Art
 * current. */
void vt_bounds_row(vt_trans *tr, int32_t ri);
void vt_bounds_row_extremes(vt_trans *tr, int32_t ri);
void vt_bounds_col(vt_trans *tr, int32_t rj);
void vt_bounds_both(vt_trans *tr);
void vt_bounds_edges(vt_trans *tr);
void vt_bounds_global(vt_trans *tr);

/* Follows a cell of rank row ri going from `old` to v in the row's extremes and counts (O(1)).
 * Returns 1 when a count fell to 0: the row then needs vt_bounds_row_extremes (its extremes and
 * counts are stale until then, and further changes must not be followed here). */
int vt_bounds_row_change(vt_trans *tr, int32_t ri, double old, double v);

#endif
