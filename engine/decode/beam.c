/* engine/decode/beam.c: beam search over label states, the one APPROXIMATE decoder.
 *
 * At each position it keeps the B best labels (states), each with its best partial path; the next
 * position's scores recombine over the kept states only, in ascending label order with strict `>`
 * (the Viterbi tie rule). B = 1 is greedy decoding; B >= L keeps every finite state and returns
 * exactly the Viterbi path. With k > 1 it returns the k best states of the final beam. */
#include <math.h>
#include <stdlib.h>

#include "alloc/arena.h"
#include "decode/decoders.h"

typedef struct beam_cand {
  double score;
  int32_t label;
  int32_t from; /* slot in the previous beam, -1 at t = 0 */
} beam_cand;

/* Better = higher score, then lower label: a total order, so selection is deterministic. */
static int cand_better(const beam_cand *a, const beam_cand *b) {
  return a->score > b->score || (a->score == b->score && a->label < b->label);
}

static int cand_cmp_best(const void *pa, const void *pb) {
  const beam_cand *a = pa, *b = pb;
  return cand_better(a, b) ? -1 : cand_better(b, a) ? 1 : 0;
}

static int cand_cmp_label(const void *pa, const void *pb) {
  const beam_cand *a = pa, *b = pb;
  return (a->label > b->label) - (a->label < b->label);
}

/* Keeps the best `width` of the n finite candidates in c[0..n), best first. Returns the count. */
static int32_t select_best(beam_cand *c, int32_t n, int32_t width) {
  if (width >= n) {
    qsort(c, (size_t)n, sizeof *c, cand_cmp_best);
    return n;
  }
  if (width <= 32) {
    /* Insertion into a small sorted prefix: O(n * width) but cheap for small beams. */
    int32_t m = 0;
    for (int32_t i = 0; i < n; i++) {
      beam_cand x = c[i];
      if (m == width && !cand_better(&x, &c[m - 1])) continue;
      int32_t pos = m < width ? m++ : m - 1;
      while (pos > 0 && cand_better(&x, &c[pos - 1])) {
        c[pos] = c[pos - 1];
        pos--;
      }
      c[pos] = x;
    }
    return m;
  }
  qsort(c, (size_t)n, sizeof *c, cand_cmp_best);
  return width;
}

vt_status vt_beam_decode(const vt_trans *tr, const vt_decode_opts *opts, vt_arena *arena,
                         const double *E, int32_t T, vt_paths *out, vt_decode_stats *stats,
                         vt_budget *bud) {
  (void)bud; /* not a search: no budget */
  const int32_t L = tr->L;
  const int32_t B = opts->beam < L ? opts->beam : L;
  beam_cand *cand = VT_ARENA_NEW(arena, beam_cand, L);
  double *best = VT_ARENA_NEW(arena, double, L);
  int32_t *from = VT_ARENA_NEW(arena, int32_t, L);
  beam_cand *kept = VT_ARENA_NEW(arena, beam_cand, (size_t)T * B); /* slot order = label order */
  int32_t *width = VT_ARENA_NEW(arena, int32_t, T);
  if (!cand || !best || !from || !kept || !width) return VT_ENOMEM;

  int32_t n = 0;
  for (int32_t y = 0; y < L; y++) {
    double v = tr->S[y] + E[y];
    if (v != -INFINITY) cand[n++] = (beam_cand){v, y, -1};
  }
  for (int32_t t = 0;; t++) {
    int32_t w = select_best(cand, n, B);
    qsort(cand, (size_t)w, sizeof *cand, cand_cmp_label);
    beam_cand *bt = kept + (size_t)t * B;
    for (int32_t s = 0; s < w; s++) bt[s] = cand[s];
    width[t] = w;
    stats->cells += w;
    if (w == 0) { /* every state is forbidden: no finite path survives in the beam */
      out->n = 0;
      return VT_OK;
    }
    if (t + 1 == T) break;
    /* Recombine: best[j] = max over kept states (ascending label) of score + A[label][j]. */
    for (int32_t j = 0; j < L; j++) {
      best[j] = -INFINITY;
      from[j] = -1;
    }
    for (int32_t s = 0; s < w; s++) {
      const double p = bt[s].score;
      const double *row = tr->A + (size_t)bt[s].label * tr->ld;
      for (int32_t j = 0; j < L; j++) {
        double v = p + row[j];
        if (v > best[j]) {
          best[j] = v;
          from[j] = s;
        }
      }
    }
    const double *Et = E + (size_t)(t + 1) * L;
    n = 0;
    for (int32_t j = 0; j < L; j++) {
      double v = best[j] + Et[j];
      if (from[j] >= 0 && v != -INFINITY) cand[n++] = (beam_cand){v, j, from[j]};
    }
  }
  /* Rank the final states by score + F; the k best give k distinct paths. */
  const int32_t w = width[T - 1];
  const beam_cand *last = kept + (size_t)(T - 1) * B;
  n = 0;
  for (int32_t s = 0; s < w; s++) {
    double v = last[s].score + tr->F[last[s].label];
    if (v != -INFINITY) cand[n++] = (beam_cand){v, last[s].label, s};
  }
  int32_t m = select_best(cand, n, opts->k);
  for (int32_t p = 0; p < m; p++) {
    int32_t *lab = out->labels + (size_t)p * T;
    int32_t s = cand[p].from;
    for (int32_t t = T - 1; t >= 0; t--) {
      const beam_cand *c = kept + (size_t)t * B + s;
      lab[t] = c->label;
      s = c->from;
    }
    out->scores[p] = cand[p].score;
  }
  out->n = m;
  return VT_OK;
}
