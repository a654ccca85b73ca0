/* engine/decode/posteriors_fast.c: the forward and backward steps of vt_posteriors as products
 * in exp space (see posteriors.h): per sentence, Q[i][j] = exp(A[i][j] - colmax_j) and
 * RT[j][i] = exp(A[i][j] - rowmax_i); a forward step is then
 *   alpha'[j] = a* + colmax_j + log sum_i exp(alpha[i] - a*) Q[i][j]      (a* = max alpha)
 * one multiply-add per cell instead of an exp, and the backward step the same with RT. Every
 * term is at most 1 and the largest term of a sum is exp(m - a* - colmax_j) for the log-space
 * maximum m; a sum below VT_POST_TINY (where that term could have underflowed) is recomputed in
 * log space, two passes, so the result stays within rounding of the log-space one for any
 * scores. */
#include <math.h>
#include <string.h>

#include "alloc/arena.h"
#include "decode/posteriors_fast.h"

/* A sum at least this large lost only terms below 1e-305, relative 1e-55 of it. */
#define VT_POST_TINY 1e-250

vt_status vt_post_tables(const vt_trans *tr, vt_arena *arena, const vt_lse_ops *k,
                         vt_post_tables_t *pt) {
  const int32_t L = tr->L, ld = tr->ld;
  const size_t n = (size_t)L * (size_t)ld;
  pt->Q = VT_ARENA_NEW(arena, double, n);
  pt->RT = VT_ARENA_NEW(arena, double, n);
  pt->cmax = VT_ARENA_NEW(arena, double, (size_t)ld);
  pt->rmax = VT_ARENA_NEW(arena, double, (size_t)ld);
  pt->coef = VT_ARENA_NEW(arena, double, (size_t)ld);
  pt->cols = VT_ARENA_NEW(arena, int32_t, (size_t)ld);
  double *x = VT_ARENA_NEW(arena, double, (size_t)ld), *e = VT_ARENA_NEW(arena, double, (size_t)ld);
  if (!pt->Q || !pt->RT || !pt->cmax || !pt->rmax || !pt->coef || !pt->cols || !x || !e)
    return VT_ENOMEM;
  for (int32_t j = 0; j < ld; j++) pt->cmax[j] = -INFINITY;
  for (int32_t i = 0; i < L; i++) {
    const double *a = tr->A + (size_t)i * ld;
    double m = -INFINITY;
    for (int32_t j = 0; j < L; j++) {
      if (a[j] > m) m = a[j];
      if (a[j] > pt->cmax[j]) pt->cmax[j] = a[j];
    }
    pt->rmax[i] = m;
  }
  for (int32_t i = L; i < ld; i++) pt->rmax[i] = -INFINITY;
  memset(pt->RT, 0, n * sizeof *pt->RT);
  for (int32_t i = 0; i < L; i++) {
    const double *a = tr->A + (size_t)i * ld;
    for (int32_t j = 0; j < ld; j++)
      x[j] = j < L && pt->cmax[j] > -INFINITY ? a[j] - pt->cmax[j] : -INFINITY;
    k->expv(x, ld, pt->Q + (size_t)i * ld);
    const double r = pt->rmax[i];
    for (int32_t j = 0; j < ld; j++) x[j] = j < L && r > -INFINITY ? a[j] - r : -INFINITY;
    k->expv(x, ld, e);
    for (int32_t j = 0; j < L; j++) pt->RT[(size_t)j * ld + i] = e[j];
  }
  return VT_OK;
}

/* log sum_r exp(a[rows[r]] + A[rows[r]][j]), two passes. */
static double exact_col(const double *a, const int32_t *rows, int32_t nr, const double *A,
                        int32_t ld, int32_t j) {
  double m = -INFINITY;
  for (int32_t r = 0; r < nr; r++) {
    double x = a[rows[r]] + A[(size_t)rows[r] * ld + j];
    if (x > m) m = x;
  }
  if (m == -INFINITY) return -INFINITY;
  double s = 0.0;
  for (int32_t r = 0; r < nr; r++) s += exp(a[rows[r]] + A[(size_t)rows[r] * ld + j] - m);
  return m + log(s);
}

/* log sum_j exp(row[j] + v[j]) over j < L, two passes. */
static double exact_row(const double *row, const double *v, int32_t L) {
  double m = -INFINITY;
  for (int32_t j = 0; j < L; j++)
    if (row[j] + v[j] > m) m = row[j] + v[j];
  if (m == -INFINITY) return -INFINITY;
  double s = 0.0;
  for (int32_t j = 0; j < L; j++) s += exp(row[j] + v[j] - m);
  return m + log(s);
}

void vt_post_fwd(const vt_trans *tr, const vt_post_tables_t *pt, const vt_lse_ops *k,
                 const double *prev, const int32_t *rows, int32_t nr, double *cur, double *s) {
  const int32_t L = tr->L, ld = tr->ld;
  double am = -INFINITY;
  for (int32_t r = 0; r < nr; r++)
    if (prev[rows[r]] > am) am = prev[rows[r]];
  for (int32_t r = 0; r < nr; r++) pt->coef[r] = exp(prev[rows[r]] - am);
  k->matvec(pt->coef, rows, nr, pt->Q, ld, ld, s);
  for (int32_t j = 0; j < L; j++)
    cur[j] = s[j] >= VT_POST_TINY ? am + pt->cmax[j] + log(s[j])
                                  : exact_col(prev, rows, nr, tr->A, ld, j);
}

void vt_post_bwd(const vt_trans *tr, const vt_post_tables_t *pt, const vt_lse_ops *k,
                 const double *v, const int32_t *rows, int32_t nr, double *cur, double *s) {
  const int32_t L = tr->L, ld = tr->ld;
  double vm = -INFINITY;
  for (int32_t j = 0; j < L; j++)
    if (v[j] > vm) vm = v[j];
  int32_t nc = 0;
  if (vm > -INFINITY)
    for (int32_t j = 0; j < L; j++)
      if (v[j] > -INFINITY) {
        pt->cols[nc] = j;
        pt->coef[nc++] = exp(v[j] - vm);
      }
  k->matvec(pt->coef, pt->cols, nc, pt->RT, ld, ld, s);
  for (int32_t r = 0; r < nr; r++) {
    const int32_t i = rows[r];
    cur[i] = s[i] >= VT_POST_TINY ? pt->rmax[i] + vm + log(s[i])
                                  : exact_row(tr->A + (size_t)i * ld, v, L);
  }
}
