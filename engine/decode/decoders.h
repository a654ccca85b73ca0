/* engine/decode/decoders.h: the internal decoder interface that vt_decode dispatches to. */
#ifndef VT_ENGINE_DECODERS_H
#define VT_ENGINE_DECODERS_H

#include "budget.h"
#include "trans.h"

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
