/* engine/chunk/chunk_decode_ref.c: Algorithm 3.1 of Shimizu & Haas (2006) as printed: loops q,
 * length, C, C', P, P' over a label table [q][length][C][P] and a chunk table [r][C], with `>=`
 * updates (the last candidate wins a tie) and full back pointers. Sums follow the canonical order
 * of chunk_decode.h, so its best score equals vt_chunk_decode's exactly. For tests and perf only.
 */
#include <math.h>

#include "alloc/arena.h"
#include "chunk/chunk_decode.h"

vt_status vt_chunk_decode_ref(const vt_chunk_lattice *lat, vt_arena *arena, vt_chunk_out *out) {
  if (!lat || !out || lat->n < 0 || lat->c < 1 || lat->p < 1) return VT_EINVAL;
  const int32_t n = lat->n, c = lat->c, p = lat->p, W = lat->W;
  out->score = 0;
  if (n == 0) return VT_OK;
  if (W < 1 || W > n) return VT_EINVAL;
  /* label[((q*W + len-1)*c + C)*p + P], its back pointer P' in lbp; chunk[r*c + C] with the
   * chunk start, previous chunk tag and last POS tag that gave it. */
  const size_t cells = (size_t)n * W * c * p;
  double *label = VT_ARENA_NEW(arena, double, cells);
  int32_t *lbp = VT_ARENA_NEW(arena, int32_t, cells);
  double *chunk = VT_ARENA_NEW(arena, double, (size_t)(n + 1) * c);
  int32_t *cq = VT_ARENA_NEW(arena, int32_t, (size_t)(n + 1) * c);
  int32_t *cprev = VT_ARENA_NEW(arena, int32_t, (size_t)(n + 1) * c);
  int32_t *cpos = VT_ARENA_NEW(arena, int32_t, (size_t)(n + 1) * c);
  if (!label || !lbp || !chunk || !cq || !cprev || !cpos) return VT_ENOMEM;
  for (size_t i = 0; i < cells; i++) label[i] = -INFINITY;
  for (int32_t i = 0; i < (n + 1) * c; i++) chunk[i] = -INFINITY;
#define LABEL(q, len, C, P) label[(((size_t)(q)*W + (len)-1) * c + (C)) * p + (P)]
#define LBP(q, len, C, P) lbp[(((size_t)(q)*W + (len)-1) * c + (C)) * p + (P)]
  for (int32_t q = 0; q < n; q++) {
    for (int32_t len = 1; len <= W && q + len <= n; len++) {
      const int32_t r = q + len; /* the chunk is [q, r-1] */
      for (int32_t C = 0; C < c; C++) {
        double span;
        if (lat->chunk_span)
          span = lat->chunk_span[((size_t)(r - 1) * c + C) * W + (q - (r - 1) + W - 1)];
        else
          span = lat->chunk_left[(size_t)q * c + C] + lat->chunk_right[(size_t)(r - 1) * c + C];
        const double *N = lat->pos_node + ((size_t)(r - 1) * c + C) * p;
        const double *T = lat->pos_trans + ((size_t)(r - 1) * c + C) * p * p;
        for (int32_t D = 0; D < c; D++) {
          for (int32_t P = 0; P < p; P++) {
            for (int32_t Q = 0; Q < p; Q++) {
              double inner = len > 1 ? (LABEL(q, len - 1, C, Q) + T[Q * p + P]) + N[P] : N[P];
              if (inner >= LABEL(q, len, C, P)) {
                LABEL(q, len, C, P) = inner;
                LBP(q, len, C, P) = Q;
              }
              double enter = 0.0;
              if (q > 0)
                enter = chunk[(size_t)q * c + D] + lat->chunk_trans[((size_t)q * c + D) * c + C];
              double score = (enter + inner) + span;
              if (score >= chunk[(size_t)r * c + C]) {
                chunk[(size_t)r * c + C] = score;
                cq[(size_t)r * c + C] = q;
                cprev[(size_t)r * c + C] = D;
                cpos[(size_t)r * c + C] = P;
              }
            }
          }
        }
      }
    }
  }
  int32_t C = 0;
  double best = -INFINITY;
  for (int32_t D = 0; D < c; D++)
    if (chunk[(size_t)n * c + D] >= best) {
      best = chunk[(size_t)n * c + D];
      C = D;
    }
  out->score = best;
  for (int32_t r = n; r > 0;) {
    const int32_t q = cq[(size_t)r * c + C], D = cprev[(size_t)r * c + C];
    int32_t P = cpos[(size_t)r * c + C];
    for (int32_t t = r - 1; t >= q; t--) {
      out->pos[t] = P;
      out->ctag[t] = C;
      out->begin[t] = (uint8_t)(t == q);
      if (t > q) P = LBP(q, t - q + 1, C, P);
    }
    C = D;
    r = q;
  }
#undef LABEL
#undef LBP
  return VT_OK;
}
