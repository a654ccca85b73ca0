/* engine/decode/posteriors.h: the exp-space steps of forward-backward (posteriors_fast.c), which
 * vt_posteriors (posteriors.c) uses on sentences long enough to pay for the per-sentence tables. */
#ifndef VT_DECODE_POSTERIORS_H
#define VT_DECODE_POSTERIORS_H

#include "core/lse.h"
#include "core/trans.h"

/* Sentences of at least this many tokens take the exp-space steps (unless constraints leave
 * fewer than 1 label in 8 finite: those keep the log-space steps, which skip -inf rows). */
#define VT_POST_FAST_MIN_T 4

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
