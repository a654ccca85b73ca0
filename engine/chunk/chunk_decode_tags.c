/* engine/chunk/chunk_decode_tags.c: the label-chunk decoder with its label table vectorised over
 * POS tags instead of chunk starts: each open chunk advances by one max-plus step of the
 * linear-chain Viterbi kernels (engine/core/kernel.h, lanes = POS tags). Same sums and tie rules as
 * vt_chunk_decode, so the same scores and structures; kept to measure which layout pays
 * (perf/chunk_bench.c): with the paper's 5 POS tags most lanes of a vector are padding. */
#include <math.h>
#include <string.h>

#include "alloc/arena.h"
#include "chunk/chunk_decode.h"
#include "core/kernel.h"
#include "core/trans_layout.h"

vt_status vt_chunk_decode_tags(const vt_chunk_lattice *lat, vt_simd level, vt_arena *arena,
                               vt_chunk_out *out) {
  const vt_kernels *kern = vt_kernels_get(level);
  if (!kern) return VT_EUNSUPPORTED;
  if (!lat || !out || lat->n < 0 || lat->c < 1 || lat->p < 1) return VT_EINVAL;
  const int32_t n = lat->n, c = lat->c, p = lat->p, W = lat->W, ld = vt_pad_up(p);
  out->score = 0;
  if (n == 0) return VT_OK;
  if (W < 1 || W > n) return VT_EINVAL;
  /* rows[(C*n + q)*ld + P]: best POS path of the open chunk starting at q, tagged C */
  const size_t starts = (size_t)c * (size_t)n, rows = starts * (size_t)ld;
  double *x = VT_ARENA_NEW(arena, double, rows);
  double *y = VT_ARENA_NEW(arena, double, rows);
  double *tpad = VT_ARENA_NEW(arena, double, (size_t)p *(size_t)ld);
  double *enter = VT_ARENA_NEW(arena, double, starts);
  double *table = VT_ARENA_NEW(arena, double, starts + (size_t)c);
  int32_t *bq = VT_ARENA_NEW(arena, int32_t, starts + (size_t)c);
  int32_t *bc = VT_ARENA_NEW(arena, int32_t, starts);
  int32_t *arg = VT_ARENA_NEW(arena, int32_t, (size_t)ld);
  if (!x || !y || !tpad || !enter || !table || !bq || !bc || !arg) return VT_ENOMEM;
  memset(tpad, 0, sizeof(double) * (size_t)p * ld);
  for (int32_t C = 0; C < c; C++) enter[(size_t)C * n] = 0.0;
  for (int32_t r = 1; r <= n; r++) {
    const int32_t lo = r > W ? r - W : 0;
    for (int32_t C = 0; C < c; C++) {
      const double *T = lat->pos_trans + ((size_t)(r - 1) * c + C) * p * p;
      const double *N = lat->pos_node + ((size_t)(r - 1) * c + C) * p;
      for (int32_t P = 0; P < p; P++)
        memcpy(tpad + (size_t)P * ld, T + (size_t)P * p, sizeof(double) * (size_t)p);
      double best = -INFINITY;
      int32_t bestq = lo;
      for (int32_t q = lo; q < r; q++) {
        double *yr = y + ((size_t)C * n + q) * ld;
        if (q < r - 1)
          kern->maxplus(x + ((size_t)C * n + q) * ld, p, tpad, ld, N, p, yr, arg);
        else
          memcpy(yr, N, sizeof(double) * (size_t)p);
        double m = yr[0];
        for (int32_t P = 1; P < p; P++)
          if (yr[P] > m) m = yr[P];
        double span =
            lat->chunk_span
                ? lat->chunk_span[((size_t)(r - 1) * c + C) * W + (q - r + W)] + 0.0
                : lat->chunk_left[(size_t)q * c + C] + lat->chunk_right[(size_t)(r - 1) * c + C];
        double cand = (enter[(size_t)C * n + q] + m) + span;
        if (q == lo || cand > best) best = cand, bestq = q;
      }
      table[(size_t)r * c + C] = best;
      bq[(size_t)r * c + C] = bestq;
    }
    double *swap = x;
    x = y;
    y = swap;
    if (r < n) vt_chunk_enter(lat, table, r, enter, bc);
  }
  return vt_chunk_trace(lat, table, bq, bc, arena, out);
}
