/* engine/text/obsbigram.h: decoders for position-dependent transitions, the lattices of models with
 * observation-dependent bigram templates (`B` lines with macros).
 *
 * The edge score from label i at t-1 to label j at t is A[i*L + j] plus the deltas listed for
 * position t (key i*L + j; a key may repeat: the values add up). A path scores
 *   S[y0] + E[0][y0] + sum_{t>=1} (edge_t(y(t-1), yt) + E[t][yt]) + F[y(T-1)],
 * summed left to right in double, edge terms first as vt_path_score does. */
#ifndef VT_TEXT_OBSBIGRAM_H
#define VT_TEXT_OBSBIGRAM_H

#include <stdint.h>

#include "vitesse.h"

typedef struct vt_obs_lattice {
  int32_t L, T;
  const double *A;     /* L*L row-major, finite */
  const double *S, *F; /* L each */
  const double *E;     /* T*L row-major */
  const int64_t *doff; /* T + 1: position t's deltas are [doff[t], doff[t+1]) (t = 0: none) */
  const int32_t *dkey; /* prev * L + cur */
  const double *dval;
  /* NULL, or T pointers: position t's edge scores (t >= 1) as one L*L matrix, A with that
   * position's deltas added in their order, followed by vt_pad_up(L) readable entries; A and the
   * deltas are then not read */
  const double *const *Mt;
} vt_obs_lattice;

/* Returns 1 when `algo` can decode position-dependent transitions (viterbi, viterbi-scalar,
 * kbest-viterbi, beam), else 0. */
int vt_obs_algo_supported(vt_algo algo);

/* Decodes `lat` like vt_decode: up to opts->k paths (kbest-viterbi and beam), best first, labels
 * into labels[p*T ..], scores recomputed along each path; ties go to lower labels. Scratch
 * memory from `arena`. Returns VT_EUNSUPPORTED for another algorithm, VT_EINVAL for a bad
 * option, VT_ENOMEM when the arena runs out. */
vt_status vt_obs_decode(const vt_obs_lattice *lat, const vt_decode_opts *opts, vt_arena *arena,
                        int32_t *labels, double *scores, int32_t *n_paths, vt_decode_stats *stats);

/* The score of path `labels` under `lat`. */
double vt_obs_path_score(const vt_obs_lattice *lat, const int32_t *labels);

#endif
