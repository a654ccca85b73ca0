/* engine/text/obsbigram.c: Viterbi, k-best Viterbi and beam search over position-dependent
 * transitions (see obsbigram.h). Each position builds its L x L edge matrix in scratch memory
 * (A plus that position's deltas): O(T L^2) time like Viterbi. Viterbi's steps run on the
 * max-plus kernels of the engine's decoders (core/kernel.h: the same bits at every SIMD level,
 * the lowest label on ties); k-best and beam are plain loops. */
#include "text/obsbigram.h"

#include <math.h>
#include <string.h>

#include "alloc/arena.h"
#include "core/kernel.h"
#include "core/trans_layout.h"

int vt_obs_algo_supported(vt_algo algo) {
  return algo == VT_ALGO_VITERBI || algo == VT_ALGO_VITERBI_SCALAR ||
         algo == VT_ALGO_KBEST_VITERBI || algo == VT_ALGO_BEAM;
}

/* Fills M (L*L) with the edge scores of position t >= 1. */
static void edges_at(const vt_obs_lattice *lat, int32_t t, double *M) {
  const size_t LL = (size_t)lat->L * (size_t)lat->L;
  if (lat->Mt) {
    memcpy(M, lat->Mt[t], LL * sizeof *M);
    return;
  }
  memcpy(M, lat->A, LL * sizeof *M);
  for (int64_t d = lat->doff[t]; d < lat->doff[t + 1]; d++) M[lat->dkey[d]] += lat->dval[d];
}

static double edge_score(const vt_obs_lattice *lat, int32_t t, int32_t i, int32_t j) {
  int32_t key = i * lat->L + j;
  if (lat->Mt) return lat->Mt[t][key];
  double s = lat->A[key];
  for (int64_t d = lat->doff[t]; d < lat->doff[t + 1]; d++)
    if (lat->dkey[d] == key) s += lat->dval[d];
  return s;
}

double vt_obs_path_score(const vt_obs_lattice *lat, const int32_t *y) {
  const int32_t L = lat->L, T = lat->T;
  if (T <= 0) return 0.0;
  double s = lat->S[y[0]] + lat->E[y[0]];
  for (int32_t t = 1; t < T; t++) {
    s = s + edge_score(lat, t, y[t - 1], y[t]);
    s = s + lat->E[(size_t)t * L + y[t]];
  }
  return s + lat->F[y[T - 1]];
}

/* Viterbi with the max-plus kernel `mp`: out[j] = max_i (prev[i] + M[i][j]) + E[t][j], the
 * lowest i on ties, as the plain loop over i ascending with a strict > gives. M holds A once;
 * each position adds its deltas in their order (as edges_at), and puts A's entries back after its
 * step (or reads the position's own matrix, lat->Mt). Its rows are read to vt_pad_up(L) entries:
 * the last one's run into zeroed padding. */
static vt_status viterbi(const vt_obs_lattice *lat, vt_maxplus_fn mp, vt_arena *arena,
                         int32_t *labels, double *score) {
  const int32_t L = lat->L, T = lat->T;
  const size_t LL = (size_t)L * (size_t)L, pad = (size_t)vt_pad_up(L);
  double *M = lat->Mt ? NULL : VT_ARENA_NEW(arena, double, LL + pad); /* A and the deltas */
  double *prev = VT_ARENA_NEW(arena, double, L), *cur = VT_ARENA_NEW(arena, double, L);
  int32_t *bp = VT_ARENA_NEW(arena, int32_t, (size_t)T * L);
  if ((!M && !lat->Mt) || !prev || !cur || !bp) return VT_ENOMEM;
  if (M) {
    memcpy(M, lat->A, LL * sizeof *M);
    memset(M + LL, 0, pad * sizeof *M);
  }
  for (int32_t j = 0; j < L; j++) prev[j] = lat->S[j] + lat->E[j];
  for (int32_t t = 1; t < T; t++) {
    if (lat->Mt) { /* the position's matrix as it is */
      mp(prev, L, lat->Mt[t], L, lat->E + (size_t)t * L, L, cur, bp + (size_t)t * L);
    } else {
      const int64_t d0 = lat->doff[t], d1 = lat->doff[t + 1];
      for (int64_t d = d0; d < d1; d++) M[lat->dkey[d]] += lat->dval[d];
      mp(prev, L, M, L, lat->E + (size_t)t * L, L, cur, bp + (size_t)t * L);
      for (int64_t d = d0; d < d1; d++) M[lat->dkey[d]] = lat->A[lat->dkey[d]];
    }
    double *tmp = prev;
    prev = cur;
    cur = tmp;
  }
  double best = -INFINITY;
  int32_t arg = 0;
  for (int32_t j = 0; j < L; j++) {
    double v = prev[j] + lat->F[j];
    if (v > best) {
      best = v;
      arg = j;
    }
  }
  labels[T - 1] = arg;
  for (int32_t t = T - 1; t > 0; t--) labels[t - 1] = bp[(size_t)t * L + labels[t]];
  /* the path's score, as vt_obs_path_score sums it: each column's entry on the path is its
   * predecessor's plus the same edge (A, then the position's deltas in order) plus E */
  *score = best;
  return VT_OK;
}

/* One k-best entry: a partial path's score and where it came from. */
typedef struct kent {
  double score;
  int32_t prev, prank; /* label and rank at t-1 (-1 at t = 0) */
} kent;

/* Inserts (s, i, r) into the sorted top-k list `top` of *n entries; ties keep earlier entries
 * first, so candidates offered in (i, r) order give lower labels precedence. */
static void top_insert(kent *top, int32_t *n, int32_t k, double s, int32_t i, int32_t r) {
  if (*n == k && !(s > top[k - 1].score)) return;
  int32_t p = *n < k ? (*n)++ : k - 1;
  while (p > 0 && s > top[p - 1].score) {
    top[p] = top[p - 1];
    p--;
  }
  top[p] = (kent){s, i, r};
}

static vt_status kbest(const vt_obs_lattice *lat, int32_t k, vt_arena *arena, int32_t *labels,
                       int32_t *n_paths) {
  const int32_t L = lat->L, T = lat->T;
  double *M = VT_ARENA_NEW(arena, double, (size_t)L *L);
  kent *tab = VT_ARENA_NEW(arena, kent, (size_t)T * L * k);
  int32_t *cnt = VT_ARENA_NEW(arena, int32_t, (size_t)T * L);
  kent *fin = VT_ARENA_NEW(arena, kent, k);
  if (!M || !tab || !cnt || !fin) return VT_ENOMEM;
  for (int32_t j = 0; j < L; j++) {
    double s = lat->S[j] + lat->E[j];
    cnt[j] = s > -INFINITY ? 1 : 0;
    tab[(size_t)j * k] = (kent){s, -1, -1};
  }
  for (int32_t t = 1; t < T; t++) {
    edges_at(lat, t, M);
    const double *e = lat->E + (size_t)t * L;
    for (int32_t j = 0; j < L; j++) {
      kent *top = tab + ((size_t)t * L + j) * k;
      int32_t n = 0;
      if (e[j] > -INFINITY)
        for (int32_t i = 0; i < L; i++) {
          const kent *pi = tab + ((size_t)(t - 1) * L + i) * k;
          double a = M[(size_t)i * L + j];
          if (a == -INFINITY) continue;
          for (int32_t r = 0; r < cnt[(size_t)(t - 1) * L + i]; r++) {
            double s = pi[r].score + a;
            if (n == k && !(s > top[k - 1].score)) break; /* pi is sorted */
            top_insert(top, &n, k, s, i, r);
          }
        }
      for (int32_t r = 0; r < n; r++) top[r].score += e[j];
      cnt[(size_t)t * L + j] = n;
    }
  }
  int32_t nf = 0;
  for (int32_t j = 0; j < L; j++) {
    const kent *pj = tab + ((size_t)(T - 1) * L + j) * k;
    for (int32_t r = 0; r < cnt[(size_t)(T - 1) * L + j]; r++) {
      double s = pj[r].score + lat->F[j];
      if (s == -INFINITY) continue;
      top_insert(fin, &nf, k, s, j, r);
    }
  }
  for (int32_t p = 0; p < nf; p++) {
    int32_t *y = labels + (size_t)p * T;
    int32_t j = fin[p].prev, r = fin[p].prank;
    for (int32_t t = T - 1; t >= 0; t--) {
      y[t] = j;
      const kent *en = tab + ((size_t)t * L + j) * k + r;
      j = en->prev;
      r = en->prank;
    }
  }
  *n_paths = nf;
  return VT_OK;
}

static vt_status beam(const vt_obs_lattice *lat, int32_t B, int32_t k, vt_arena *arena,
                      int32_t *labels, int32_t *n_paths) {
  const int32_t L = lat->L, T = lat->T;
  if (B > L) B = L;
  double *M = VT_ARENA_NEW(arena, double, (size_t)L *L);
  int32_t *lab = VT_ARENA_NEW(arena, int32_t, (size_t)T * B);  /* beam labels per position */
  int32_t *from = VT_ARENA_NEW(arena, int32_t, (size_t)T * B); /* index in previous beam */
  int32_t *nb = VT_ARENA_NEW(arena, int32_t, T);
  double *sc = VT_ARENA_NEW(arena, double, (size_t)T *B);
  kent *cand = VT_ARENA_NEW(arena, kent, B + 1);
  if (!M || !lab || !from || !nb || !sc || !cand) return VT_ENOMEM;
  for (int32_t t = 0; t < T; t++) {
    const double *e = lat->E + (size_t)t * L;
    if (t > 0) edges_at(lat, t, M);
    int32_t n = 0;
    for (int32_t j = 0; j < L; j++) {
      double best = -INFINITY;
      int32_t arg = -1;
      if (t == 0) {
        best = lat->S[j];
      } else {
        for (int32_t q = 0; q < nb[t - 1]; q++) {
          double v = sc[(size_t)(t - 1) * B + q] + M[(size_t)lab[(size_t)(t - 1) * B + q] * L + j];
          if (v > best) {
            best = v;
            arg = q;
          }
        }
      }
      double s = best + e[j];
      if (s == -INFINITY) continue;
      top_insert(cand, &n, B, s, j, arg);
    }
    for (int32_t q = 0; q < n; q++) {
      lab[(size_t)t * B + q] = cand[q].prev;
      from[(size_t)t * B + q] = cand[q].prank;
      sc[(size_t)t * B + q] = cand[q].score;
    }
    nb[t] = n;
    if (n == 0) {
      *n_paths = 0;
      return VT_OK;
    }
  }
  kent *fin = VT_ARENA_NEW(arena, kent, k);
  if (!fin) return VT_ENOMEM;
  int32_t nf = 0;
  for (int32_t q = 0; q < nb[T - 1]; q++) {
    double s = sc[(size_t)(T - 1) * B + q] + lat->F[lab[(size_t)(T - 1) * B + q]];
    if (s > -INFINITY) top_insert(fin, &nf, k, s, q, 0);
  }
  for (int32_t p = 0; p < nf; p++) {
    int32_t q = fin[p].prev;
    for (int32_t t = T - 1; t >= 0; t--) {
      labels[(size_t)p * T + t] = lab[(size_t)t * B + q];
      q = from[(size_t)t * B + q];
    }
  }
  *n_paths = nf;
  return VT_OK;
}

vt_status vt_obs_decode(const vt_obs_lattice *lat, const vt_decode_opts *opts, vt_arena *arena,
                        int32_t *labels, double *scores, int32_t *n_paths, vt_decode_stats *stats) {
  *n_paths = 0;
  if (!vt_obs_algo_supported(opts->algo)) return VT_EUNSUPPORTED;
  if (opts->k < 1 || opts->beam < 1 || lat->T < 0) return VT_EINVAL;
  if (opts->k > 1 && !vt_algo_kbest(opts->algo)) return VT_EINVAL;
  if (stats) {
    stats->sentences++;
    stats->tokens += lat->T;
    stats->cells += (int64_t)lat->T * lat->L;
  }
  if (lat->T == 0) {
    scores[0] = 0.0;
    *n_paths = 1;
    return VT_OK;
  }
  vt_status st;
  int32_t n = 1;
  const int listed = opts->algo == VT_ALGO_KBEST_VITERBI || opts->algo == VT_ALGO_BEAM;
  switch (opts->algo) {
  case VT_ALGO_KBEST_VITERBI: st = kbest(lat, opts->k, arena, labels, &n); break;
  case VT_ALGO_BEAM: st = beam(lat, opts->beam, opts->k, arena, labels, &n); break;
  case VT_ALGO_VITERBI_SCALAR:
    st = viterbi(lat, vt_kernels_scalar.maxplus, arena, labels, scores);
    break;
  default: st = viterbi(lat, vt_kernels_active()->maxplus, arena, labels, scores); break;
  }
  if (st != VT_OK) return st;
  if (listed) /* their paths' scores; Viterbi's is its own */
    for (int32_t p = 0; p < n; p++) scores[p] = vt_obs_path_score(lat, labels + (size_t)p * lat->T);
  if (n == 1 && !listed && scores[0] == -INFINITY) n = 0;
  *n_paths = n;
  return VT_OK;
}
