/* engine/chunk/chunk_decode.c: the label-chunk decoder (Shimizu & Haas 2006, Algorithm 3.1),
 * restructured so that every open chunk advances at once.
 *
 * Algorithm 3.1 keeps a label table [q][r][C][P] (the best POS path of a chunk [q, r) tagged C
 * ending in P) and a chunk table [r][C] (the best structure over [0, r) whose last chunk is
 * tagged C), and loops over C' inside the label-table update. The label table does not depend
 * on C', so here the transition into a chunk starting at q is folded once into
 * enter[q][C] = max_C' (chunk[q][C'] + ctrans(C', C, q-1, q)), and the label table is swept
 * position by position (r outer), one row per open chunk: O(n W c p^2 + n c^2) instead of
 * O(n W c^2 p^2), and O(n c p) memory instead of O(n W c p). POS back pointers are not stored:
 * the traceback re-runs the few-token Viterbi inside each chosen chunk, which repeats the same
 * roundings and so finds a POS path of exactly the stored score. */
#include <math.h>

#include "alloc/arena.h"
#include "chunk/chunk_decode.h"
#include "chunk/chunk_simd.h"

static int lattice_ok(const vt_chunk_lattice *lat) {
  if (!lat || lat->n < 0 || lat->c < 1 || lat->p < 1) return 0;
  if (lat->n == 0) return 1;
  if (lat->W < 1 || lat->W > lat->n) return 0;
  if (!lat->pos_node || !lat->pos_trans || !lat->chunk_trans) return 0;
  return lat->chunk_span || (lat->chunk_left && lat->chunk_right);
}

/* Span score of chunk [q, r] tagged C, in the canonical order. */
static inline double span_score(const vt_chunk_lattice *lat, int32_t q, int32_t r, int32_t C) {
  const int32_t c = lat->c, W = lat->W;
  if (lat->chunk_span) return lat->chunk_span[((int64_t)r * c + C) * W + (q - r + W - 1)];
  return lat->chunk_left[(int64_t)q * c + C] + lat->chunk_right[(int64_t)r * c + C];
}

static inline const double *node_at(const vt_chunk_lattice *lat, int32_t r, int32_t C) {
  return lat->pos_node + ((int64_t)r * lat->c + C) * lat->p;
}

static inline const double *trans_at(const vt_chunk_lattice *lat, int32_t r, int32_t C) {
  return lat->pos_trans + ((int64_t)r * lat->c + C) * lat->p * lat->p;
}

/* Best POS path of chunk [q, r] tagged C (the lowest tags on ties) into pos[q..r]. `a`, `b` hold
 * p doubles, `bp` (r-q)*p ints. */
static void chunk_pos_path(const vt_chunk_lattice *lat, int32_t q, int32_t r, int32_t C, double *a,
                           double *b, int32_t *bp, int32_t *pos) {
  const int32_t p = lat->p;
  const double *N = node_at(lat, q, C);
  for (int32_t P = 0; P < p; P++) a[P] = N[P];
  for (int32_t t = q + 1; t <= r; t++) {
    const double *T = trans_at(lat, t, C);
    N = node_at(lat, t, C);
    int32_t *arg = bp + (int64_t)(t - q - 1) * p;
    for (int32_t P = 0; P < p; P++) {
      double best = a[0] + T[P];
      int32_t bq = 0;
      for (int32_t Q = 1; Q < p; Q++) {
        double v = a[Q] + T[Q * p + P];
        if (v > best) {
          best = v;
          bq = Q;
        }
      }
      b[P] = best + N[P];
      arg[P] = bq;
    }
    for (int32_t P = 0; P < p; P++) a[P] = b[P];
  }
  int32_t P = 0;
  for (int32_t Q = 1; Q < p; Q++)
    if (a[Q] > a[P]) P = Q;
  for (int32_t t = r; t >= q; t--) {
    pos[t] = P;
    if (t > q) P = bp[(int64_t)(t - q - 1) * p + P];
  }
}

vt_status vt_chunk_pos_fill(const vt_chunk_lattice *lat, vt_arena *arena, vt_chunk_out *out) {
  const int32_t n = lat->n, p = lat->p;
  if (n == 0) return VT_OK;
  double *a = VT_ARENA_NEW(arena, double, (size_t)2 * p);
  int32_t *bp = VT_ARENA_NEW(arena, int32_t, (size_t)lat->W * p);
  if (!a || !bp) return VT_ENOMEM;
  for (int32_t q = 0; q < n;) {
    int32_t r = q;
    while (r + 1 < n && !out->begin[r + 1]) r++;
    chunk_pos_path(lat, q, r, out->ctag[q], a, a + p, bp, out->pos);
    q = r + 1;
  }
  return VT_OK;
}

void vt_chunk_enter(const vt_chunk_lattice *lat, const double *table, int32_t r, double *enter,
                    int32_t *bc) {
  const int32_t n = lat->n, c = lat->c;
  const double *ct = lat->chunk_trans + (int64_t)r * c * c, *tr = table + (int64_t)r * c;
  for (int32_t C = 0; C < c; C++) {
    int32_t arg = 0;
    double best = tr[0] + ct[C];
    for (int32_t D = 1; D < c; D++) {
      double v = tr[D] + ct[D * c + C];
      if (v > best) {
        best = v;
        arg = D;
      }
    }
    enter[(int64_t)C * n + r] = best;
    bc[(int64_t)r * c + C] = arg;
  }
}

vt_status vt_chunk_trace(const vt_chunk_lattice *lat, const double *table, const int32_t *bq,
                         const int32_t *bc, vt_arena *arena, vt_chunk_out *out) {
  const int32_t n = lat->n, c = lat->c;
  int32_t C = 0;
  for (int32_t D = 1; D < c; D++)
    if (table[(int64_t)n * c + D] > table[(int64_t)n * c + C]) C = D;
  out->score = table[(int64_t)n * c + C];
  for (int32_t r = n; r > 0;) {
    const int32_t q = bq[(int64_t)r * c + C];
    for (int32_t t = q; t < r; t++) {
      out->ctag[t] = C;
      out->begin[t] = (uint8_t)(t == q);
    }
    if (q > 0) C = bc[(int64_t)q * c + C];
    r = q;
  }
  return vt_chunk_pos_fill(lat, arena, out);
}

static vt_status decode_with(const vt_chunk_lattice *lat, const vt_chunk_kernels *kern,
                             vt_arena *arena, vt_chunk_out *out, vt_chunk_stats *stats) {
  if (!lattice_ok(lat) || !out) return VT_EINVAL;
  const int32_t n = lat->n, c = lat->c, p = lat->p, W = lat->W;
  out->score = 0;
  if (stats) stats->sentences++;
  if (n == 0) return VT_OK;
  const int64_t ld = n; /* lanes: one per chunk start */
  const size_t rows = (size_t)c * (size_t)p * (size_t)ld, starts = (size_t)c * (size_t)n;
  double *x = VT_ARENA_NEW(arena, double, rows);
  double *y = VT_ARENA_NEW(arena, double, rows);
  double *enter = VT_ARENA_NEW(arena, double, starts);
  double *table = VT_ARENA_NEW(arena, double, starts + (size_t)c);
  int32_t *bq = VT_ARENA_NEW(arena, int32_t, starts + (size_t)c);
  int32_t *bc = VT_ARENA_NEW(arena, int32_t, starts);
  double *cand = VT_ARENA_NEW(arena, double, (size_t)W);
  double *left = lat->chunk_span ? NULL : VT_ARENA_NEW(arena, double, starts);
  if (!x || !y || !enter || !table || !bq || !bc || !cand || (!lat->chunk_span && !left))
    return VT_ENOMEM;
  if (left)
    for (int32_t q = 0; q < n; q++)
      for (int32_t C = 0; C < c; C++) left[(int64_t)C * n + q] = lat->chunk_left[q * c + C];
  for (int32_t C = 0; C < c; C++) enter[(int64_t)C * n] = 0.0;

  for (int32_t r = 1; r <= n; r++) { /* chunks [q, r-1] for every open start q */
    const int32_t lo = r > W ? r - W : 0, m = r - lo;
    for (int32_t C = 0; C < c; C++) {
      const double *span;
      double add;
      if (lat->chunk_span) {
        span = lat->chunk_span + ((int64_t)(r - 1) * c + C) * W + (lo - r + W);
        add = 0.0;
      } else {
        span = left + (int64_t)C * n + lo;
        add = lat->chunk_right[(int64_t)(r - 1) * c + C];
      }
      const int64_t row = (int64_t)C * p * ld + lo;
      kern->step(x + row, y + row, ld, m, p, trans_at(lat, r - 1, C), node_at(lat, r - 1, C),
                 enter + (int64_t)C * n + lo, span, add, cand);
      int32_t arg = 0; /* the earliest chunk start wins a tie */
      for (int32_t j = 1; j < m; j++)
        if (cand[j] > cand[arg]) arg = j;
      table[(int64_t)r * c + C] = cand[arg];
      bq[(int64_t)r * c + C] = lo + arg;
    }
    double *swap = x;
    x = y;
    y = swap;
    if (r < n) vt_chunk_enter(lat, table, r, enter, bc);
  }
  vt_status st = vt_chunk_trace(lat, table, bq, bc, arena, out);
  if (st != VT_OK) return st;
  if (stats) {
    stats->tokens += n;
    int64_t open = (int64_t)W * (W + 1) / 2 + (int64_t)(n - W) * W; /* sum over r of m */
    stats->cells += open * c * p;
  }
  return VT_OK;
}

vt_status vt_chunk_decode_level(const vt_chunk_lattice *lat, vt_simd level, vt_arena *arena,
                                vt_chunk_out *out, vt_chunk_stats *stats) {
  const vt_chunk_kernels *kern = vt_chunk_kernels_get(level);
  if (!kern) return VT_EUNSUPPORTED;
  return decode_with(lat, kern, arena, out, stats);
}

vt_status vt_chunk_decode(const vt_chunk_lattice *lat, vt_arena *arena, vt_chunk_out *out,
                          vt_chunk_stats *stats) {
  return vt_chunk_decode_level(lat, vt_simd_active(), arena, out, stats);
}

double vt_chunk_score(const vt_chunk_lattice *lat, const int32_t *pos, const int32_t *ctag,
                      const uint8_t *begin) {
  if (!lattice_ok(lat)) return NAN;
  const int32_t n = lat->n, c = lat->c, p = lat->p;
  if (n == 0) return 0.0;
  if (!begin[0]) return NAN;
  double total = 0.0;
  for (int32_t q = 0; q < n;) {
    const int32_t C = ctag[q];
    int32_t r = q;
    while (r + 1 < n && !begin[r + 1]) r++;
    if (r - q + 1 > lat->W || C < 0 || C >= c) return NAN;
    double inner = 0.0;
    for (int32_t t = q; t <= r; t++) {
      if (ctag[t] != C || pos[t] < 0 || pos[t] >= p) return NAN;
      const double nd = node_at(lat, t, C)[pos[t]];
      inner = t == q ? nd : (inner + trans_at(lat, t, C)[pos[t - 1] * p + pos[t]]) + nd;
    }
    if (q > 0) total = total + lat->chunk_trans[((int64_t)q * c + ctag[q - 1]) * c + C];
    total = (total + inner) + span_score(lat, q, r, C);
    q = r + 1;
  }
  return total;
}
