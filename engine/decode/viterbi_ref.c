/* engine/decode/viterbi_ref.c: the plain textbook Viterbi, the reference every other decoder is
 * checked against. For each current label it scans the previous labels down a column of A (the loop
 * CRFsuite and Wapiti use): simple to trust, slow by design. */
#include <math.h>

#include "alloc/arena.h"
#include "decode/decoders.h"

vt_status vt_viterbi_ref_decode(const vt_trans *tr, const vt_decode_opts *opts, vt_arena *arena,
                                const double *E, int32_t T, vt_paths *out, vt_decode_stats *stats,
                                vt_budget *bud) {
  (void)bud; /* not a search: no budget */
  const int32_t L = tr->L;
  double *alpha = VT_ARENA_NEW(arena, double, (size_t)T *L);
  int32_t *bp = VT_ARENA_NEW(arena, int32_t, (size_t)T * L);
  if (!alpha || !bp) return VT_ENOMEM;

  for (int32_t y = 0; y < L; y++) alpha[y] = tr->S[y] + E[y];
  for (int32_t t = 1; t < T; t++) {
    const double *prev = alpha + (size_t)(t - 1) * L;
    for (int32_t j = 0; j < L; j++) {
      double best = prev[0] + tr->A[j];
      int32_t arg = 0;
      for (int32_t i = 1; i < L; i++) {
        double v = prev[i] + tr->A[(size_t)i * tr->ld + j];
        if (v > best) {
          best = v;
          arg = i;
        }
      }
      alpha[(size_t)t * L + j] = best + E[(size_t)t * L + j];
      bp[(size_t)t * L + j] = arg;
    }
  }
  const double *last = alpha + (size_t)(T - 1) * L;
  int32_t best = 0;
  double best_score = last[0] + tr->F[0];
  for (int32_t y = 1; y < L; y++) {
    double v = last[y] + tr->F[y];
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
