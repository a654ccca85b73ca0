/* engine/decode/viterbi.c: exact 1-best Viterbi on the SIMD max-plus kernels (broadcast-previous).
 */
#include <math.h>

#include "alloc/arena.h"
#include "core/kernel.h"
#include "decode/decoders.h"

vt_status vt_viterbi_decode(const vt_trans *tr, const vt_decode_opts *opts, vt_arena *arena,
                            const double *E, int32_t T, vt_paths *out, vt_decode_stats *stats,
                            vt_budget *bud) {
  (void)bud; /* not a search: no budget */
  const int32_t L = tr->L;
  const vt_kernels *kern = vt_kernels_active();
  double *cur = VT_ARENA_NEW(arena, double, tr->ld);
  double *nxt = VT_ARENA_NEW(arena, double, tr->ld);
  int32_t *bp = VT_ARENA_NEW(arena, int32_t, (size_t)T * L);
  if (!cur || !nxt || !bp) return VT_ENOMEM;

  for (int32_t y = 0; y < L; y++) cur[y] = tr->S[y] + E[y];
  for (int32_t t = 1; t < T; t++) {
    kern->maxplus(cur, L, tr->A, tr->ld, E + (size_t)t * L, L, nxt, bp + (size_t)t * L);
    double *swap = cur;
    cur = nxt;
    nxt = swap;
  }
  /* Final column: the lowest label wins a tie, as in the kernels. */
  int32_t best = 0;
  double best_score = cur[0] + tr->F[0];
  for (int32_t y = 1; y < L; y++) {
    double v = cur[y] + tr->F[y];
    if (v > best_score) {
      best_score = v;
      best = y;
    }
  }
  stats->cells += (int64_t)T * L;
  out->n = 0;
  if (best_score == -INFINITY) return VT_OK;
  for (int32_t t = T - 1; t >= 0; t--) {
    out->labels[t] = best;
    if (t > 0) best = bp[(size_t)t * L + best];
  }
  out->scores[0] = best_score;
  out->n = 1;
  (void)opts;
  return VT_OK;
}
