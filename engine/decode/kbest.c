/* engine/decode/kbest.c: exact k-best Viterbi (Huang et al. 2012, section 3.4).
 *
 * Every node keeps the k best partial paths that end in it, as (score, previous label, rank of
 * the entry at the previous node), sorted best first. Entries are distinct partial paths by
 * induction, so the k best complete paths read off the last column are distinct. A tie between
 * equal scores goes to the earlier candidate in (previous label, entry rank) order, the same rule
 * as the 1-best kernels. Only finite entries are kept, so fewer than k paths come back exactly
 * when fewer finite paths exist. Cost O(k T L^2) in the worst case. */
#include <math.h>
#include <string.h>

#include "alloc/arena.h"
#include "decode/decoders.h"
#include "decode/topk.h"

typedef vt_topk_entry kb_entry;

vt_status vt_kbest_viterbi_decode(const vt_trans *tr, const vt_decode_opts *opts, vt_arena *arena,
                                  const double *E, int32_t T, vt_paths *out, vt_decode_stats *stats,
                                  vt_budget *bud) {
  (void)bud; /* not a search: no budget */
  const int32_t L = tr->L;
  const int32_t k = opts->k;
  const size_t per_col = (size_t)L * (size_t)k;
  kb_entry *ent = VT_ARENA_NEW(arena, kb_entry, (size_t)T * per_col);
  int32_t *cnt = VT_ARENA_NEW(arena, int32_t, (size_t)T * L);
  kb_entry *fin = VT_ARENA_NEW(arena, kb_entry, (size_t)k);
  if (!ent || !cnt || !fin) return VT_ENOMEM;

  for (int32_t y = 0; y < L; y++) {
    double v = tr->S[y] + E[y];
    cnt[y] = 0;
    if (v != -INFINITY) {
      ent[(size_t)y * k] = (kb_entry){v, -1, -1};
      cnt[y] = 1;
    }
  }
  for (int32_t t = 1; t < T; t++) {
    const kb_entry *pe = ent + (size_t)(t - 1) * per_col;
    const int32_t *pc = cnt + (size_t)(t - 1) * L;
    kb_entry *ce = ent + (size_t)t * per_col;
    int32_t *cc = cnt + (size_t)t * L;
    const double *Et = E + (size_t)t * L;
    for (int32_t j = 0; j < L; j++) {
      kb_entry *top = ce + (size_t)j * k;
      int32_t n = 0;
      if (Et[j] != -INFINITY) {
        for (int32_t i = 0; i < L; i++) {
          const double a = tr->A[(size_t)i * tr->ld + j];
          if (a == -INFINITY) continue;
          const kb_entry *src = pe + (size_t)i * k;
          /* src is sorted best first: once one entry fails to enter, the rest fail too. */
          for (int32_t r = 0; r < pc[i]; r++)
            if (!vt_topk_insert(top, &n, k, src[r].score + a, i, r)) break;
        }
        for (int32_t r = 0; r < n; r++) top[r].score += Et[j];
      }
      cc[j] = n;
    }
  }
  const kb_entry *le = ent + (size_t)(T - 1) * per_col;
  const int32_t *lc = cnt + (size_t)(T - 1) * L;
  int32_t nf = 0;
  for (int32_t y = 0; y < L; y++)
    for (int32_t r = 0; r < lc[y]; r++) {
      double v = le[(size_t)y * k + r].score + tr->F[y];
      if (v == -INFINITY || !vt_topk_insert(fin, &nf, k, v, y, r)) break;
    }
  for (int32_t p = 0; p < nf; p++) {
    int32_t *lab = out->labels + (size_t)p * T;
    int32_t y = fin[p].prev, r = fin[p].prank;
    for (int32_t t = T - 1; t >= 0; t--) {
      lab[t] = y;
      const kb_entry *e = ent + (size_t)t * per_col + (size_t)y * k + r;
      y = e->prev;
      r = e->prank;
    }
    out->scores[p] = fin[p].score;
  }
  out->n = nf;
  stats->cells += (int64_t)T * L;
  return VT_OK;
}
