/* engine/core/bounds.c: rank-space layouts and suffix-maximum tables for degenerate lattices,
 * computed once per transition model (O(L^2) time, O(L^2) for the permuted matrices and
 * O(L log L) for the tables). The staggered and A* decoders read only these. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/bounds.h"
#include "core/trans_layout.h"

static int32_t qmin(int32_t a, int32_t b) { return a < b ? a : b; }
static double dmax(double a, double b) { return a > b ? a : b; }

void vt_bounds_free(vt_trans *tr) {
  vt_bounds *b = &tr->bd;
  if (b->Ar != tr->A) free(b->Ar);
  free(b->Art);
  free(b->Sr);
  free(b->Fr);
  free(b->to_max);
  free(b->from_max);
  free(b->both_max);
  free(b->s_suf);
  free(b->f_suf);
  free(b->row_max);
  free(b->row_mag);
  free(b->row_q);
  free(b->row_n);
  free(b->touched);
  free(b->seen);
  memset(b, 0, sizeof *b);
}

vt_status vt_bounds_build(vt_trans *tr) {
  const int32_t L = tr->L, ld = tr->ld;
  vt_bounds *b = &tr->bd;
  int identity = 1;
  vt_bounds_free(tr);
  for (int32_t r = 0; r < L; r++) identity &= tr->rank[r] == r;
  int32_t K = 0;
  while (((int64_t)1 << K) < L) K++;
  b->K = K;
  size_t mat = (size_t)L * (size_t)ld * sizeof(double);
  b->Ar = identity ? tr->A : aligned_alloc(64, mat);
  b->Art = aligned_alloc(64, mat);
  b->Sr = malloc((size_t)L * sizeof(double));
  b->Fr = malloc((size_t)L * sizeof(double));
  size_t kl = (size_t)(K ? K : 1) * (size_t)L;
  b->to_max = malloc(kl * sizeof(double));
  b->from_max = malloc(kl * sizeof(double));
  b->both_max = malloc((size_t)(K ? K * K : 1) * sizeof(double));
  b->s_suf = malloc((size_t)(K ? K : 1) * sizeof(double));
  b->f_suf = malloc((size_t)(K ? K : 1) * sizeof(double));
  b->row_max = malloc((size_t)L * sizeof(double));
  b->row_mag = malloc((size_t)L * sizeof(double));
  b->row_q = malloc((size_t)L * sizeof(int32_t));
  b->row_n = malloc(3 * (size_t)L * sizeof(int32_t));
  b->touched = malloc(2 * (size_t)L * sizeof(int32_t));
  b->seen = calloc(2 * (size_t)L, 1);
  if (!b->Ar || !b->Art || !b->Sr || !b->Fr || !b->to_max || !b->from_max || !b->both_max ||
      !b->s_suf || !b->f_suf || !b->row_max || !b->row_mag || !b->row_q || !b->row_n ||
      !b->touched || !b->seen) {
    vt_bounds_free(tr);
    return VT_ENOMEM;
  }
  double *Ar = b->Ar;
  if (!identity)
    for (int32_t ri = 0; ri < L; ri++) {
      const double *src = tr->A + (size_t)tr->rank[ri] * ld;
      double *dst = Ar + (size_t)ri * ld;
      for (int32_t rj = 0; rj < L; rj++) dst[rj] = src[tr->rank[rj]];
      for (int32_t rj = L; rj < ld; rj++) dst[rj] = -INFINITY;
    }
  for (int32_t j = 0; j < L; j++)
    for (int32_t i = 0; i < ld; i++)
      b->Art[(size_t)j * ld + i] = i < L ? Ar[(size_t)i * ld + j] : -INFINITY;
  for (int32_t i = 0; i < L; i++) {
    vt_bounds_row(tr, i);
    vt_bounds_row_extremes(tr, i);
    vt_bounds_col(tr, i);
  }
  vt_bounds_both(tr);
  vt_bounds_edges(tr);
  vt_bounds_global(tr);
  return VT_OK;
}

/* vt_quantum_log2(v) without branches (for the row scans). */
static int32_t quantum_log2_flat(double v) {
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  const int32_t e = (int32_t)((bits >> 52) & 0x7ff);
  const uint64_t m = (bits & (((uint64_t)1 << 52) - 1)) | ((uint64_t)(e != 0) << 52);
  const int32_t q = (e ? e : 1) - 1075 + (int32_t)__builtin_ctzll(m | ((uint64_t)1 << 63));
  return e == 0x7ff || m == 0 ? INT32_MAX : q;
}

void vt_bounds_row(vt_trans *tr, int32_t ri) {
  vt_bounds *b = &tr->bd;
  const int32_t L = tr->L;
  const double *row = b->Ar + (size_t)ri * tr->ld;
  double run = -INFINITY;
  for (int32_t j = L - 1; j >= 1; j--) {
    run = dmax(run, row[j]);
    if ((j & (j - 1)) == 0) b->to_max[(size_t)vt_level_of(j) * L + ri] = run;
  }
}

void vt_bounds_row_extremes(vt_trans *tr, int32_t ri) {
  vt_bounds *b = &tr->bd;
  const int32_t L = tr->L;
  const double *row = b->Ar + (size_t)ri * tr->ld;
  double mx = -INFINITY, mag = 0;
  int32_t q = INT32_MAX, n_mx = 0, n_mag = 0, n_q = 0;
  for (int32_t j = 0; j < L; j++) {
    const double v = row[j], a = fabs(v);
    mx = dmax(mx, v);
    mag = a != INFINITY && a > mag ? a : mag;
    q = qmin(q, quantum_log2_flat(v));
  }
  for (int32_t j = 0; j < L; j++) {
    const double v = row[j], a = fabs(v);
    n_mx += v == mx;
    n_mag += a != INFINITY && a == mag;
    n_q += quantum_log2_flat(v) == q;
  }
  b->row_max[ri] = mx;
  b->row_mag[ri] = mag;
  b->row_q[ri] = q;
  b->row_n[3 * (size_t)ri] = n_mx;
  b->row_n[3 * (size_t)ri + 1] = n_mag;
  b->row_n[3 * (size_t)ri + 2] = n_q;
}

int vt_bounds_row_change(vt_trans *tr, int32_t ri, double old, double v) {
  vt_bounds *b = &tr->bd;
  int32_t *n = b->row_n + 3 * (size_t)ri;
  int lost = 0;
  /* each extreme: a value beyond it replaces it (the old one was not beyond), one equal to it
   * joins its count unless the old one was counted, and the old one leaves the count otherwise */
  if (v > b->row_max[ri])
    b->row_max[ri] = v, n[0] = 1;
  else if (v == b->row_max[ri])
    n[0] += old != v;
  else if (old == b->row_max[ri])
    lost |= --n[0] == 0;
  const double ao = fabs(old) != INFINITY ? fabs(old) : -1, av = fabs(v) != INFINITY ? fabs(v) : -1;
  if (av > b->row_mag[ri])
    b->row_mag[ri] = av, n[1] = 1;
  else if (av == b->row_mag[ri])
    n[1] += ao != av;
  else if (ao == b->row_mag[ri])
    lost |= --n[1] == 0;
  const int32_t qo = quantum_log2_flat(old), qv = quantum_log2_flat(v);
  if (qv < b->row_q[ri])
    b->row_q[ri] = qv, n[2] = 1;
  else if (qv == b->row_q[ri])
    n[2] += qo != qv;
  else if (qo == b->row_q[ri])
    lost |= --n[2] == 0;
  return lost;
}

void vt_bounds_col(vt_trans *tr, int32_t rj) {
  vt_bounds *b = &tr->bd;
  const int32_t L = tr->L;
  const double *col = b->Art + (size_t)rj * tr->ld; /* column rj of Ar */
  double run = -INFINITY;
  for (int32_t i = L - 1; i >= 1; i--) {
    run = dmax(run, col[i]);
    if ((i & (i - 1)) == 0) b->from_max[(size_t)vt_level_of(i) * L + rj] = run;
  }
}

void vt_bounds_both(vt_trans *tr) {
  /* both_max[k1][k2] = max over rows i >= 2^k1 of to_max[k2][i]: a suffix max over rows. */
  vt_bounds *b = &tr->bd;
  const int32_t L = tr->L, K = b->K;
  for (int32_t k2 = 0; k2 < K; k2++) {
    double run = -INFINITY;
    for (int32_t i = L - 1; i >= 1; i--) {
      run = dmax(run, b->to_max[(size_t)k2 * L + i]);
      if ((i & (i - 1)) == 0) b->both_max[(size_t)vt_level_of(i) * K + k2] = run;
    }
  }
}

void vt_bounds_edges(vt_trans *tr) {
  vt_bounds *b = &tr->bd;
  const int32_t L = tr->L;
  double rs = -INFINITY, rf = -INFINITY, smag = 0, fmag = 0;
  for (int32_t r = 0; r < L; r++) {
    b->Sr[r] = tr->S[tr->rank[r]];
    b->Fr[r] = tr->F[tr->rank[r]];
  }
  for (int32_t r = L - 1; r >= 1; r--) {
    rs = dmax(rs, b->Sr[r]);
    rf = dmax(rf, b->Fr[r]);
    if ((r & (r - 1)) == 0) {
      b->s_suf[vt_level_of(r)] = rs;
      b->f_suf[vt_level_of(r)] = rf;
    }
  }
  int32_t q = INT32_MAX;
  for (int32_t r = 0; r < L; r++) {
    if (isfinite(b->Sr[r])) smag = dmax(smag, fabs(b->Sr[r]));
    if (isfinite(b->Fr[r])) fmag = dmax(fmag, fabs(b->Fr[r]));
    q = qmin(q, qmin(vt_quantum_log2(b->Sr[r]), vt_quantum_log2(b->Fr[r])));
  }
  b->mag_sf = smag + fmag;
  b->q_sf = q;
}

void vt_bounds_global(vt_trans *tr) {
  vt_bounds *b = &tr->bd;
  double amax = -INFINITY, mag = 0;
  int32_t q = INT32_MAX;
  for (int32_t i = 0; i < tr->L; i++) {
    amax = dmax(amax, b->row_max[i]);
    mag = dmax(mag, b->row_mag[i]);
    q = qmin(q, b->row_q[i]);
  }
  b->a_max = amax;
  b->mag_a = mag;
  b->q_a = q;
}
