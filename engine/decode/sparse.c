/* engine/decode/sparse.c: decoding over each column's finite labels only.
 *
 * A constrained lattice (a tag dictionary, partial labels: disallowed labels are -inf emissions)
 * often has a handful of finite labels per column. Every path through a -inf emission scores
 * -inf, so the exact best paths live on the finite labels alone, and a Viterbi pass over them
 * costs sum_t n[t-1] n[t] transition evaluations (n[t]: finite labels of column t) instead of
 * T L^2: a column with 5 allowed labels costs 5, not L. Every exact decoder takes this route when
 * it is cheaper than its own search could be (vt_sparse_limit), so a dictionary speeds up the
 * staggered and A* decoders as much as Viterbi.
 *
 * The passes visit labels in ascending order with the kernels' tie rules, so the result is the one
 * viterbi (k = 1) or kbest-viterbi (k > 1) returns on the whole lattice: same arithmetic
 * ((alpha + A) + E, then + F), same candidates (a -inf one never wins, and those are the only
 * ones left out), same order. Whether a sentence takes this route depends on the lattice only. */
#include <math.h>

#include "alloc/arena.h"
#include "core/kernel.h"
#include "decode/decoders.h"
#include "decode/degen_ops.h"
#include "decode/topk.h"

/* Counts the finite labels of every column into n (T entries) with the kernels' scan (`idx`: L
 * entries of scratch) while the cost stays within `limit`; returns the cost, or a value > limit
 * as soon as it is exceeded (n is then partial). */
static double column_counts(const vt_degen_ops *ops, const double *E, int32_t T, int32_t L,
                            double limit, int64_t *n, int32_t *idx) {
  double cost = 0;
  for (int32_t t = 0; t < T; t++) {
    const int64_t c = ops->scan_above(E + (size_t)t * L, L, -INFINITY, idx);
    n[t] = c;
    cost += t ? (double)n[t - 1] * c : c;
    if (cost > limit) return cost;
  }
  return cost;
}

/* 1-best. The forward pass keeps only each node's best incoming sum m (before its emission): a
 * max over the same rounded sums as the kernels', vectorizable; the back pointer of a node on the
 * best path is found again on the way back as the lowest previous node whose sum equals m exactly
 * (the first maximum, the kernels' rule), so no pointer is stored for the others. */
static vt_status best_path(const vt_trans *tr, const double *E, int32_t T, const int64_t *off,
                           const int32_t *lab, vt_arena *arena, vt_paths *out) {
  const int32_t L = tr->L;
  double *alpha = VT_ARENA_NEW(arena, double, off[T]);
  double *m = VT_ARENA_NEW(arena, double, off[T]);
  double *pr = VT_ARENA_NEW(arena, double, L); /* a free column's alpha in rank order */
  if (!alpha || !m || !pr) return VT_ENOMEM;
  for (int64_t a = off[0]; a < off[1]; a++) alpha[a] = tr->S[lab[a]] + E[lab[a]];
  for (int32_t t = 1; t < T; t++) {
    const int64_t p0 = off[t - 1], p1 = off[t], c1 = off[t + 1];
    const double *Et = E + (size_t)t * L;
    double *mt = m + p1;
    const int32_t *lt = lab + p1;
    const int64_t n = c1 - p1;
    for (int64_t b = 0; b < n; b++) mt[b] = -INFINITY;
    if (n == L) { /* a free column: rows of A as they are, one per previous node */
      for (int64_t a = p0; a < p1; a++) {
        const double pa = alpha[a];
        const double *Arow = tr->A + (size_t)lab[a] * tr->ld;
        if (pa == -INFINITY) continue;
        for (int64_t b = 0; b < n; b++) {
          const double v = pa + Arow[b];
          mt[b] = v > mt[b] ? v : mt[b];
        }
      }
    } else if (p1 - p0 == L) {
      /* after a free column: the previous column in rank order against rows of the transpose
       * (rank space), so that both are read in order */
      for (int32_t r = 0; r < L; r++) pr[r] = alpha[p0 + tr->rank[r]];
      for (int64_t b = 0; b < n; b++) {
        const double *Acol = tr->bd.Art + (size_t)tr->rank_of[lt[b]] * tr->ld;
        double best = -INFINITY;
        for (int32_t r = 0; r < L; r++) {
          const double v = pr[r] + Acol[r];
          best = v > best ? v : best;
        }
        mt[b] = best;
      }
    } else {
      for (int64_t a = p0; a < p1; a++) {
        const double pa = alpha[a];
        const double *Arow = tr->A + (size_t)lab[a] * tr->ld;
        if (pa == -INFINITY) continue;
        for (int64_t b = 0; b < n; b++) {
          const double v = pa + Arow[lt[b]];
          mt[b] = v > mt[b] ? v : mt[b];
        }
      }
    }
    for (int64_t b = 0; b < n; b++) alpha[p1 + b] = mt[b] + Et[lt[b]];
  }
  int64_t best = -1;
  double best_score = -INFINITY;
  for (int64_t b = off[T - 1]; b < off[T]; b++) {
    const double v = alpha[b] + tr->F[lab[b]];
    if (v > best_score) {
      best_score = v;
      best = b;
    }
  }
  out->n = 0;
  if (best < 0) return VT_OK;
  for (int32_t t = T - 1; t >= 0; t--) {
    out->labels[t] = lab[best];
    if (t == 0) break;
    int64_t arg = off[t - 1]; /* (a NaN score matches nothing: any previous node will do) */
    for (int64_t a = off[t - 1]; a < off[t]; a++)
      if (alpha[a] + tr->A[(size_t)lab[a] * tr->ld + lab[best]] == m[best]) {
        arg = a;
        break;
      }
    best = arg;
  }
  out->scores[0] = best_score;
  out->n = 1;
  return VT_OK;
}

/* k-best: the k best partial paths per node, candidates in (previous label, entry rank) order
 * (vt_kbest_viterbi); an entry's prev is the previous node's index in its column, a final entry's
 * the node's in the last column. */
static vt_status kbest_paths(const vt_trans *tr, const double *E, int32_t T, int32_t k,
                             const int64_t *off, const int32_t *lab, vt_arena *arena,
                             vt_paths *out) {
  const int32_t L = tr->L;
  vt_topk_entry *ent = VT_ARENA_NEW(arena, vt_topk_entry, (size_t)off[T] * k);
  int32_t *cnt = VT_ARENA_NEW(arena, int32_t, off[T]);
  vt_topk_entry *fin = VT_ARENA_NEW(arena, vt_topk_entry, k);
  if (!ent || !cnt || !fin) return VT_ENOMEM;
  for (int64_t a = off[0]; a < off[1]; a++) {
    const double v = tr->S[lab[a]] + E[lab[a]];
    cnt[a] = v != -INFINITY;
    if (cnt[a]) ent[(size_t)a * k] = (vt_topk_entry){v, -1, -1};
  }
  for (int32_t t = 1; t < T; t++) {
    const double *Et = E + (size_t)t * L;
    for (int64_t b = off[t]; b < off[t + 1]; b++) {
      vt_topk_entry *top = ent + (size_t)b * k;
      int32_t n = 0;
      for (int64_t a = off[t - 1]; a < off[t]; a++) {
        const double x = tr->A[(size_t)lab[a] * tr->ld + lab[b]];
        if (x == -INFINITY) continue;
        const vt_topk_entry *src = ent + (size_t)a * k;
        for (int32_t r = 0; r < cnt[a]; r++)
          if (!vt_topk_insert(top, &n, k, src[r].score + x, (int32_t)(a - off[t - 1]), r)) break;
      }
      for (int32_t r = 0; r < n; r++) top[r].score += Et[lab[b]];
      cnt[b] = n;
    }
  }
  int32_t nf = 0;
  for (int64_t b = off[T - 1]; b < off[T]; b++)
    for (int32_t r = 0; r < cnt[b]; r++) {
      const double v = ent[(size_t)b * k + r].score + tr->F[lab[b]];
      if (v == -INFINITY || !vt_topk_insert(fin, &nf, k, v, (int32_t)(b - off[T - 1]), r)) break;
    }
  for (int32_t p = 0; p < nf; p++) {
    int32_t *path = out->labels + (size_t)p * T;
    int64_t b = off[T - 1] + fin[p].prev;
    int32_t r = fin[p].prank;
    for (int32_t t = T - 1; t >= 0; t--) {
      const vt_topk_entry *e = ent + (size_t)b * k + r;
      path[t] = lab[b];
      if (t > 0) b = off[t - 1] + e->prev;
      r = e->prank;
    }
    out->scores[p] = fin[p].score;
  }
  out->n = nf;
  return VT_OK;
}

double vt_sparse_limit(vt_algo algo, int32_t L, int32_t T) {
  const double tl = (double)T * (double)L;
  switch (algo) {
  case VT_ALGO_VITERBI:
  case VT_ALGO_KBEST_VITERBI: return tl * (double)L * VT_SPARSE_FULL;
  case VT_ALGO_VITERBI_SCALAR:
  case VT_ALGO_BEAM: return -1.0;
  default: return tl * VT_SPARSE_SEARCH;
  }
}

vt_status vt_sparse_decode(const vt_trans *tr, int32_t k, double limit, vt_arena *arena,
                           const double *E, int32_t T, vt_paths *out, vt_decode_stats *stats,
                           int *taken) {
  const int32_t L = tr->L;
  *taken = 0;
  if (limit < 0) return VT_OK;
  const vt_degen_ops *ops = vt_degen_ops_for(vt_kernels_active()->level);
  int64_t *off = VT_ARENA_NEW(arena, int64_t, (size_t)T + 1);
  int32_t *idx = VT_ARENA_NEW(arena, int32_t, L);
  if (!off || !idx) return VT_ENOMEM;
  if (column_counts(ops, E, T, L, limit, off + 1, idx) > limit) return VT_OK;
  off[0] = 0;
  for (int32_t t = 0; t < T; t++) off[t + 1] += off[t];
  if (off[T] == (int64_t)T * L) return VT_OK; /* not constrained: the decoder's own way */
  /* the scan may write up to L entries from a column's start */
  int32_t *lab = VT_ARENA_NEW(arena, int32_t, (size_t)off[T] + L);
  if (!lab) return VT_ENOMEM;
  for (int32_t t = 0; t < T; t++) ops->scan_above(E + (size_t)t * L, L, -INFINITY, lab + off[t]);
  *taken = 1;
  stats->cells += off[T];
  stats->sparse++;
  for (int32_t t = 0; t < T; t++)
    if (off[t + 1] == off[t]) {
      out->n = 0; /* a column with no finite label: no path */
      return VT_OK;
    }
  return k > 1 ? kbest_paths(tr, E, T, k, off, lab, arena, out)
               : best_path(tr, E, T, off, lab, arena, out);
}
