/* engine/decode/decoders.h: the internal decoder interface that vt_decode dispatches to. */
#ifndef VT_DECODE_DECODERS_H
#define VT_DECODE_DECODERS_H

#include "core/trans_layout.h"
#include "decode/budget.h"

/* Where a decoder writes its paths: room for `k` paths of T labels. */
typedef struct vt_paths {
  int32_t k;       /* capacity in paths */
  int32_t *labels; /* k*T labels, path p at labels[p*T] */
  double *scores;  /* k scores (the caller recomputes them along each path) */
  int32_t n;       /* paths written */
} vt_paths;

/* Every decoder: T >= 1, E is T*L row-major, scratch from `arena`, writes out->n paths best
 * first (0 when no finite path exists) and adds its counters to `stats` (never NULL here). The
 * exact search decoders charge their work to `bud` (budget.h) and return VT_OK at once when it
 * stops them (vt_budget_stopped: `out` is then meaningless); the others ignore it. */
typedef vt_status (*vt_decoder_fn)(const vt_trans *tr, const vt_decode_opts *opts, vt_arena *arena,
                                   const double *E, int32_t T, vt_paths *out,
                                   vt_decode_stats *stats, vt_budget *bud);

vt_status vt_viterbi_decode(const vt_trans *tr, const vt_decode_opts *opts, vt_arena *arena,
                            const double *E, int32_t T, vt_paths *out, vt_decode_stats *stats,
                            vt_budget *bud);
vt_status vt_viterbi_ref_decode(const vt_trans *tr, const vt_decode_opts *opts, vt_arena *arena,
                                const double *E, int32_t T, vt_paths *out, vt_decode_stats *stats,
                                vt_budget *bud);
vt_status vt_kbest_viterbi_decode(const vt_trans *tr, const vt_decode_opts *opts, vt_arena *arena,
                                  const double *E, int32_t T, vt_paths *out, vt_decode_stats *stats,
                                  vt_budget *bud);
vt_status vt_beam_decode(const vt_trans *tr, const vt_decode_opts *opts, vt_arena *arena,
                         const double *E, int32_t T, vt_paths *out, vt_decode_stats *stats,
                         vt_budget *bud);

vt_status vt_staggered_decode(const vt_trans *tr, const vt_decode_opts *opts, vt_arena *arena,
                              const double *E, int32_t T, vt_paths *out, vt_decode_stats *stats,
                              vt_budget *bud);
vt_status vt_astar_decode(const vt_trans *tr, const vt_decode_opts *opts, vt_arena *arena,
                          const double *E, int32_t T, vt_paths *out, vt_decode_stats *stats,
                          vt_budget *bud);
vt_status vt_iter_astar_decode(const vt_trans *tr, const vt_decode_opts *opts, vt_arena *arena,
                               const double *E, int32_t T, vt_paths *out, vt_decode_stats *stats,
                               vt_budget *bud);
vt_status vt_viterbi_astar_decode(const vt_trans *tr, const vt_decode_opts *opts, vt_arena *arena,
                                  const double *E, int32_t T, vt_paths *out, vt_decode_stats *stats,
                                  vt_budget *bud);
vt_status vt_iter_viterbi_astar_decode(const vt_trans *tr, const vt_decode_opts *opts,
                                       vt_arena *arena, const double *E, int32_t T, vt_paths *out,
                                       vt_decode_stats *stats, vt_budget *bud);
vt_status vt_carpediem_decode(const vt_trans *tr, const vt_decode_opts *opts, vt_arena *arena,
                              const double *E, int32_t T, vt_paths *out, vt_decode_stats *stats,
                              vt_budget *bud);

/* Decoding over each column's finite labels only (sparse.c), as every exact decoder but the
 * scalar reference does when it is cheaper: the sentence goes this way when sum_t n[t-1] n[t]
 * (n[t]: the finite emissions of column t) is at most VT_SPARSE_FULL T L^2 for viterbi and
 * kbest-viterbi (their own cost is T L^2), and VT_SPARSE_SEARCH T L for the search decoders
 * (about what a search costs on real lattices). Measured on AGLDT Greek with a tag dictionary
 * (perf/README.md, "AGLDT Greek with a tag dictionary"): 2 to 32 route nearly the same
 * sentences, and 4 was the fastest. */
#define VT_SPARSE_FULL 0.25
#define VT_SPARSE_SEARCH 4.0

/* The cost limit of the sparse route for `algo` on a sentence of T tokens and L labels; < 0 for
 * the decoders that never take it (viterbi-scalar, the reference; beam, approximate). */
double vt_sparse_limit(vt_algo algo, int32_t L, int32_t T);

/* When E has a -inf emission and its finite labels cost at most `limit` (sum_t n[t-1] n[t]),
 * decodes over them alone: the k best paths viterbi (k = 1) or kbest-viterbi (k > 1) returns on the
 * whole lattice, ties included, into `out` (out->n = 0 when there is no finite path), counts the
 * sentence in stats->sparse, and sets *taken = 1. Otherwise sets *taken = 0 and writes nothing.
 * T >= 1. Returns VT_OK or VT_ENOMEM. */
vt_status vt_sparse_decode(const vt_trans *tr, int32_t k, double limit, vt_arena *arena,
                           const double *E, int32_t T, vt_paths *out, vt_decode_stats *stats,
                           int *taken);

/* vt_decode (vitesse.h) for an engine run: the search decoders poll `cancel` (may be NULL) at
 * every budget charge and return VT_ECANCELED once it is set. */
vt_status vt_decode_cancelable(const vt_trans *trans, const vt_decode_opts *opts,
                               const atomic_int *cancel, vt_arena *arena, const double *E,
                               int32_t T, int32_t *labels, double *scores, int32_t *n_paths,
                               vt_decode_stats *stats);

/* vt_decode_f32 (vitesse.h) for an engine run, as vt_decode_cancelable. */
vt_status vt_decode_f32_cancelable(const vt_trans *trans, const vt_decode_opts *opts,
                                   const atomic_int *cancel, vt_arena *arena, const float *E,
                                   int32_t T, int32_t *labels, double *scores, int32_t *n_paths,
                                   vt_decode_stats *stats);

#endif
