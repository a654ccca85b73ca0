/* engine/train/crf_kern_body.h: the batched forward-backward (crf_fb.h) and its sparse
 * transition steps (crf_sparse.h), the body of the kernel family crf_kern (cmake/VtIsa.cmake):
 * each crf_kern_<level>.c includes it once, and its plain loops are compiled with that level's
 * flags. No contraction and no reassociation (ISO C, no fast-math): every level gives the same
 * bits (tests/test_isa_crf_kern.c). Only the level files include this. */
#ifndef VT_TRAIN_CRF_KERN_BODY_H
#define VT_TRAIN_CRF_KERN_BODY_H

#include <float.h>
#include <math.h>
#include <string.h>

#include "train/blas.h"
#include "train/crf_exp.h"
#include "train/crf_fb.h"
#include "train/crf_plan.h"
#include "train/crf_sparse.h"

/* oT (L x n) = row-block aT (L x n, each of the n columns summing to 1) times M, transposed:
 * oT[j][k] = c + sum_i S_ij aT[i][k]. */
static void sparse_fwd(const vt_crf_sparse *sp, const double *aT, int32_t n, double *oT) {
  const size_t ns = (size_t)n;
  for (size_t i = 0; i < (size_t)sp->L * ns; i++) oT[i] = sp->c;
  for (int64_t e = 0; e < sp->nnz; e++) {
    const double s = sp->s[e];
    const double *a = aT + (size_t)sp->from[e] * ns;
    double *o = oT + (size_t)sp->to[e] * ns;
    for (size_t k = 0; k < ns; k++) o[k] += s * a[k];
  }
}

/* oT (L x n) = M times row-block yT (L x n), transposed: oT[i][k] = c ysum[k] + sum_j S_ij
 * yT[j][k], where ysum[k] is column k's sum; and, on the way, the transition counts of the step:
 * G[e] += sum over k of aT[from_e][k] yT[to_e][k], aT the previous position's alpha-hat block. */
static void sparse_bwd(const vt_crf_sparse *sp, const double *yT, const double *ysum,
                       const double *aT, int32_t n, double *oT, double *G) {
  const size_t ns = (size_t)n;
  for (int32_t i = 0; i < sp->L; i++)
    for (size_t k = 0; k < ns; k++) oT[(size_t)i * ns + k] = sp->c * ysum[k];
  for (int64_t e = 0; e < sp->nnz; e++) {
    const double s = sp->s[e];
    const double *y = yT + (size_t)sp->to[e] * ns, *a = aT + (size_t)sp->from[e] * ns;
    double *o = oT + (size_t)sp->from[e] * ns;
    double acc = 0;
    for (size_t k = 0; k < ns; k++) {
      o[k] += s * y[k];
      acc += a[k] * y[k];
    }
    G[e] += acc;
  }
}

/* Transposes the n x L row block `in` into the L x n block `out`. */
static void transpose(const double *in, int32_t n, int32_t L, double *out) {
  const size_t ns = (size_t)n, Ls = (size_t)L;
  /* In tiles of 8 x 8, so that both sides stay in a few cache lines. */
  for (size_t k0 = 0; k0 < ns; k0 += 8)
    for (size_t y0 = 0; y0 < Ls; y0 += 8) {
      const size_t k1 = k0 + 8 < ns ? k0 + 8 : ns, y1 = y0 + 8 < Ls ? y0 + 8 : Ls;
      for (size_t y = y0; y < y1; y++)
        for (size_t k = k0; k < k1; k++) out[y * ns + k] = in[k * Ls + y];
    }
}

/* Divides row[0, L) by its sum and returns the sum. */
static double row_normalize(double *row, int32_t L) {
  double s = 0;
  for (int32_t y = 0; y < L; y++) s += row[y];
  double inv = 1.0 / s;
  for (int32_t y = 0; y < L; y++) row[y] *= inv;
  return s;
}

/* Copies the L x n transposed block tO back into n rows of `out` (row-major), clamping the
 * rounding of the sparse form's sums at 0. */
static void untranspose(const double *tO, int32_t n, int32_t L, double *out) {
  const size_t ns = (size_t)n, Ls = (size_t)L;
  for (size_t k0 = 0; k0 < ns; k0 += 8) /* in tiles of 8 x 8, as transpose() */
    for (size_t y0 = 0; y0 < Ls; y0 += 8) {
      const size_t k1 = k0 + 8 < ns ? k0 + 8 : ns, y1 = y0 + 8 < Ls ? y0 + 8 : Ls;
      for (size_t k = k0; k < k1; k++)
        for (size_t y = y0; y < y1; y++) {
          const double v = tO[y * ns + k];
          out[k * Ls + y] = v > 0 ? v : 0.0;
        }
    }
}

/* vt_crf_fb_batch (crf_fb.h). */
static int fb_batch(vt_crf_batch *b, const vt_crf_data *d, const vt_crf_feats *f, const double *w,
                    double ws, const double *M, const vt_crf_sparse *sp, double mA, double *G) {
  const int32_t L = f->L, nb = b->nb;
  const size_t Ls = (size_t)L;
  int bad = 0;
  /* Loss starts as minus the gold score plus the shifts; log S_t is added as rows are made. */
  for (int32_t k = 0; k < nb; k++) {
    int64_t s = b->sent[k], t0 = d->sent_off[s], T = d->sent_off[s + 1] - t0;
    double loss = (double)(T - 1) * mA;
    for (int64_t t = 0; t < T; t++) {
      const int64_t row = b->off_at[t] + k;
      double *E = b->P + (size_t)row * Ls;
      double m = E[0];
      for (int32_t y = 1; y < L; y++)
        if (E[y] > m) m = E[y];
      for (int32_t y = 0; y < L; y++) E[y] = vt_crf_exp_nonpos(E[y] - m);
      loss += m - b->gs[row];
      if (t > 0) {
        int32_t tr = f->tr_id[(size_t)d->gold[t0 + t - 1] * Ls + (size_t)d->gold[t0 + t]];
        if (tr >= 0) loss -= w[tr] * ws;
      }
    }
    b->loss[k] = loss;
  }
  /* Forward: alpha-hat_t = normalize((alpha-hat_{t-1} M) (.) E'_t). */
  for (int32_t t = 0; t < b->Tmax; t++) {
    const int32_t n = b->n_at[t];
    double *Al = b->Al + (size_t)b->off_at[t] * Ls, *P = b->P + (size_t)b->off_at[t] * Ls;
    const double *prev = t > 0 ? b->Al + (size_t)b->off_at[t - 1] * Ls : NULL;
    if (t == 0) {
      memcpy(Al, P, (size_t)n * Ls * sizeof *Al);
    } else if (sp) {
      /* alpha-hat of t-1's live rows, transposed: kept for the backward pass's counts */
      double *aT = b->AlT + (size_t)b->off_at[t - 1] * Ls;
      transpose(prev, n, L, aT);
      sparse_fwd(sp, aT, n, b->tO);
      untranspose(b->tO, n, L, Al);
    } else {
      vt_blas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, L, L, 1.0, prev, L, M, L, 0.0, Al,
                    L);
    }
    for (int32_t k = 0; k < n; k++) {
      double *row = Al + (size_t)k * Ls;
      const double *e = P + (size_t)k * Ls;
      if (t > 0)
        for (int32_t y = 0; y < L; y++) row[y] *= e[y];
      double S = row_normalize(row, L);
      if (!(S > 0) || !isfinite(S)) bad = 1;
      b->loss[k] += log(S);
      b->S[b->off_at[t] + k] = S;
    }
  }
  /* Backward: betahat_{T-1} = 1; Y_t = E'_t (.) betahat_t / S_t; betahat_{t-1} = Y_t M^T. The Y
   * of position t goes to the rows of position t-1 (zero for sequences that end at t-1). */
  for (int32_t t = b->Tmax - 1; t >= 0; t--) {
    const int32_t n = b->n_at[t], nprev = t > 0 ? b->n_at[t - 1] : 0;
    double *Be = b->Be + (size_t)b->off_at[t] * Ls, *P = b->P + (size_t)b->off_at[t] * Ls;
    const int32_t nnext = t + 1 < b->Tmax ? b->n_at[t + 1] : 0;
    for (int32_t k = nnext; k < n; k++) /* the last item of sequence k */
      for (int32_t y = 0; y < L; y++) Be[(size_t)k * Ls + (size_t)y] = 1.0;
    if (t == 0) break;
    double *Yp = b->Y + (size_t)b->off_at[t - 1] * Ls;
    for (int32_t k = 0; k < n; k++) {
      const double inv = 1.0 / b->S[b->off_at[t] + k];
      const double *be = Be + (size_t)k * Ls, *e = P + (size_t)k * Ls;
      double *yr = Yp + (size_t)k * Ls;
      for (int32_t y = 0; y < L; y++) yr[y] = e[y] * be[y] * inv;
    }
    memset(Yp + (size_t)n * Ls, 0, (size_t)(nprev - n) * Ls * sizeof *Yp);
    double *Bp = b->Be + (size_t)b->off_at[t - 1] * Ls;
    if (sp) {
      for (int32_t k = 0; k < n; k++) {
        double sum = 0;
        for (int32_t y = 0; y < L; y++) sum += Yp[(size_t)k * Ls + (size_t)y];
        b->ysum[k] = sum;
      }
      transpose(Yp, n, L, b->tA);
      sparse_bwd(sp, b->tA, b->ysum, b->AlT + (size_t)b->off_at[t - 1] * Ls, n, b->tO, G);
      untranspose(b->tO, n, L, Bp);
    } else {
      vt_blas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, L, L, 1.0, Yp, L, M, L, 0.0, Bp, L);
      if (G) /* the step's transition counts, alphahat_{t-1}^T Y_t, while its rows are in cache */
        vt_blas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, L, L, n, 1.0,
                      b->Al + (size_t)b->off_at[t - 1] * Ls, L, Yp, L, 1.0, G, L);
    }
  }
  /* The rows of the last position have no Y. */
  const int64_t last = b->Tmax > 0 ? b->off_at[b->Tmax - 1] : 0;
  if (b->Tmax > 0)
    memset(b->Y + (size_t)last * Ls, 0, (size_t)(b->rows - last) * Ls * sizeof *b->Y);
  /* Marginals: alpha-hat (.) beta-hat, into P. */
  for (size_t i = 0; i < (size_t)b->rows * Ls; i++) b->P[i] = b->Al[i] * b->Be[i];
  if (bad)
    for (int32_t k = 0; k < nb; k++)
      if (!isfinite(b->loss[k])) b->loss[k] = INFINITY;
  return bad ? -1 : 0;
}

/* ---- the plans' state-feature loops (crf_plan.h) ------------------------------------------------
 * An attribute that scores enough labels is taken densely: its weights spread into
 * an L-long row (zeros elsewhere), added to each occurrence's row whole (the loop the compiler
 * widens to the level's vectors), and its counts gathered whole; x + 0.0 is x for every score
 * here (they start at +0.0), so the bits are those of the feature-by-feature loops. */

/* Doubles a vector of this level holds: an attribute is taken densely when its labels fill
 * at least one lane in each of a row's vectors (the dense row costs L / lanes vector additions
 * an occurrence, the feature-by-feature loop one scalar addition a feature). */
#if defined(__AVX512F__)
#define PLAN_LANES 8
#elif defined(__AVX2__)
#define PLAN_LANES 4
#else
#define PLAN_LANES 2
#endif

/* Whether attribute range [q0, q1) is taken densely. */
static inline int plan_dense(int64_t q0, int64_t q1, int32_t L) {
  return PLAN_LANES * (q1 - q0) >= L;
}

/* row[0, n) += wd[0, n): the two never overlap (a batch row and a scratch row, either way round),
 * which restrict tells the compiler, so that no overlap test runs per occurrence. */
static inline void row_add(double *restrict row, const double *restrict wd, size_t n) {
  for (size_t y = 0; y < n; y++) row[y] += wd[y];
}

/* row[0, n) += wd[0, n) * v, as row_add (v * wd[y] is the same product). */
static inline void row_add_scaled(double *restrict row, const double *restrict wd, double v,
                                  size_t n) {
  for (size_t y = 0; y < n; y++) row[y] += wd[y] * v;
}

static void plan_scores(const vt_crf_plan *p, const vt_crf_feats *f, const double *w, int32_t L,
                        double *E, double *wd) {
  const size_t Ls = (size_t)L;
  for (int32_t j = 0; j < p->n; j++) {
    const int32_t a = p->attr[j];
    const int64_t o0 = p->off[j], o1 = p->off[j + 1];
    const int64_t q0 = f->st_off[a], q1 = f->st_off[a + 1];
    if (plan_dense(q0, q1, L)) {
      memset(wd, 0, Ls * sizeof *wd);
      for (int64_t q = q0; q < q1; q++) wd[f->st_label[q]] = w[q];
      if (p->val)
        for (int64_t o = o0; o < o1; o++)
          row_add_scaled(E + (size_t)p->row[o] * Ls, wd, p->val[o], Ls);
      else
        for (int64_t o = o0; o < o1; o++) row_add(E + (size_t)p->row[o] * Ls, wd, Ls);
      continue;
    }
    for (int64_t q = q0; q < q1; q++) {
      double *col = E + f->st_label[q];
      const double wq = w[q];
      if (p->val)
        for (int64_t o = o0; o < o1; o++) col[(size_t)p->row[o] * Ls] += wq * p->val[o];
      else
        for (int64_t o = o0; o < o1; o++) col[(size_t)p->row[o] * Ls] += wq;
    }
  }
}

/* The dense gather of rows of at most N labels into out[0, N): the sums in registers (N a
 * constant), each lane's in occurrence order. Reads N doubles a row: past the row's L into the
 * next row, or into the batch's padding after the last one (VT_CRF_ROW_PAD); those lanes are
 * not used. */
#define PLAN_GATHER(N)                                                                             \
  static void plan_gather_##N(const vt_crf_plan *p, int64_t o0, int64_t o1, const double *P,       \
                              size_t Ls, double *out) {                                            \
    double a[N] = {0};                                                                             \
    for (int64_t o = o0; o < o1; o++) {                                                            \
      const double *row = P + (size_t)p->row[o] * Ls;                                              \
      if (p->val) {                                                                                \
        const double v = p->val[o];                                                                \
        for (int y = 0; y < N; y++) a[y] += v * row[y];                                            \
      } else {                                                                                     \
        for (int y = 0; y < N; y++) a[y] += row[y];                                                \
      }                                                                                            \
    }                                                                                              \
    memcpy(out, a, sizeof a);                                                                      \
  }
PLAN_GATHER(8)
PLAN_GATHER(16)
PLAN_GATHER(24)
PLAN_GATHER(32)
#undef PLAN_GATHER

static void plan_counts(const vt_crf_plan *p, const vt_crf_feats *f, const double *P, int32_t L,
                        double *out, double *acc) {
  const size_t Ls = (size_t)L;
  for (int32_t j = 0; j < p->n; j++) {
    const int32_t a = p->attr[j];
    const int64_t o0 = p->off[j], o1 = p->off[j + 1];
    const int64_t q0 = f->st_off[a], q1 = f->st_off[a + 1];
    double *c = out + p->cnt[j] - q0; /* c[q]: feature q's count */
    if (plan_dense(q0, q1, L) && L <= 32) {
      if (L <= 8)
        plan_gather_8(p, o0, o1, P, Ls, acc);
      else if (L <= 16)
        plan_gather_16(p, o0, o1, P, Ls, acc);
      else if (L <= 24)
        plan_gather_24(p, o0, o1, P, Ls, acc);
      else
        plan_gather_32(p, o0, o1, P, Ls, acc);
      for (int64_t q = q0; q < q1; q++) c[q] = acc[f->st_label[q]];
      continue;
    }
    if (plan_dense(q0, q1, L)) {
      memset(acc, 0, Ls * sizeof *acc);
      if (p->val)
        for (int64_t o = o0; o < o1; o++)
          row_add_scaled(acc, P + (size_t)p->row[o] * Ls, p->val[o], Ls);
      else
        for (int64_t o = o0; o < o1; o++) row_add(acc, P + (size_t)p->row[o] * Ls, Ls);
      for (int64_t q = q0; q < q1; q++) c[q] = acc[f->st_label[q]];
      continue;
    }
    for (int64_t q = q0; q < q1; q++) {
      const size_t y = (size_t)f->st_label[q];
      double sum = 0;
      if (p->val)
        for (int64_t o = o0; o < o1; o++) sum += p->val[o] * P[(size_t)p->row[o] * Ls + y];
      else
        for (int64_t o = o0; o < o1; o++) sum += P[(size_t)p->row[o] * Ls + y];
      c[q] = sum;
    }
  }
}

/* ---- CRFsuite's Viterbi, for its online trainers (crf_online.c) --------------------------------
 */

#include <float.h>

static double viterbi_first(const double *S, const double *A, int32_t T, int32_t L, double *V,
                            int32_t *back, int32_t *path) {
  const size_t Ls = (size_t)L;
  memcpy(V, S, Ls * sizeof *V);
  for (int32_t t = 1; t < T; t++) {
    const double *prev = V + (size_t)(t - 1) * Ls, *state = S + (size_t)t * Ls;
    double *cur = V + (size_t)t * Ls;
    int32_t *bt = back + (size_t)t * Ls;
    /* For each cell the running best over predecessors i in order, a later one only when
     * strictly better: CRFsuite's first best, taken a row of A at a time (the loop over j is
     * the one the compiler widens). */
    for (int32_t j = 0; j < L; j++) {
      cur[j] = -DBL_MAX;
      bt[j] = 0;
    }
    for (int32_t i = 0; i < L; i++) {
      const double p = prev[i];
      const double *Ai = A + (size_t)i * Ls;
      for (int32_t j = 0; j < L; j++) {
        const double sc = p + Ai[j];
        const int up = cur[j] < sc;
        cur[j] = up ? sc : cur[j];
        bt[j] = up ? i : bt[j];
      }
    }
    for (int32_t j = 0; j < L; j++) cur[j] += state[j];
  }
  double best = -DBL_MAX;
  const double *last = V + (size_t)(T - 1) * Ls;
  path[T - 1] = 0;
  for (int32_t i = 0; i < L; i++)
    if (best < last[i]) {
      best = last[i];
      path[T - 1] = i;
    }
  for (int32_t t = T - 1; t > 0; t--) path[t - 1] = back[(size_t)t * Ls + (size_t)path[t]];
  return best;
}

#endif
