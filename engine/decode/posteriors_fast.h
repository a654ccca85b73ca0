/* engine/decode/posteriors_fast.h: the exp-space forward and backward steps of the posteriors
 * (posteriors_fast.c), for sentences long enough to pay for the tables. */
#ifndef VT_DECODE_POSTERIORS_FAST_H
#define VT_DECODE_POSTERIORS_FAST_H

#include <stdint.h>

#include "alloc/arena.h"
#include "core/lse.h"
#include "core/trans_layout.h"
#include "vitesse.h"

/* Per-sentence tables: Q = exp(A - column max), row-major [i][j]; RT = exp(A - row max),
 * transposed [j][i]; both L rows of ld (padding 0); cmax, rmax: the maxima (-inf: no finite
 * entry; padding -inf). */
typedef struct vt_post_tables_t {
  double *Q, *RT, *cmax, *rmax;
  double *coef;  /* ld: scratch, the weights of one step's rows */
  int32_t *cols; /* ld: scratch, the rows of RT one backward step reads */
} vt_post_tables_t;

/* Fills `pt` from tr->A (2 L^2 exps) in `arena`. Returns VT_OK or VT_ENOMEM. */
vt_status vt_post_tables(const vt_trans *tr, vt_arena *arena, const vt_lse_ops *k,
                         vt_post_tables_t *pt);

/* Forward step: cur[j] = log sum_{r} exp(prev[i] + A[i][j]), i = rows[r], for j < L (the
 * emission is the caller's to add). `s`: ld doubles of scratch. */
void vt_post_fwd(const vt_trans *tr, const vt_post_tables_t *pt, const vt_lse_ops *k,
                 const double *prev, const int32_t *rows, int32_t nr, double *cur, double *s);

/* Backward step: cur[i] = log sum_{j < L} exp(A[i][j] + v[j]) for the listed rows i (only they
 * are written). `s`: ld doubles of scratch. */
void vt_post_bwd(const vt_trans *tr, const vt_post_tables_t *pt, const vt_lse_ops *k,
                 const double *v, const int32_t *rows, int32_t nr, double *cur, double *s);

#endif
