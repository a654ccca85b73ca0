/* engine/core/synth.h: seeded synthetic score lattices shaped like a trained tagger's. */
#ifndef VT_CORE_SYNTH_H
#define VT_CORE_SYNTH_H

#include "vitesse.h"

typedef struct vt_synth_opts {
  int32_t labels;     /* L >= 1 */
  int64_t sentences;  /* >= 0 */
  double mean_length; /* mean tokens per sentence, > 0 */
  uint64_t seed;
} vt_synth_opts;

typedef struct vt_synth {
  int32_t L;
  int64_t n_sent, n_rows;
  int64_t *offset; /* n_sent + 1 row offsets into E */
  int32_t *lengths;
  float *E;     /* n_rows x L */
  float *A;     /* L x L */
  float *S, *F; /* L */
  int32_t *R;   /* label order by decreasing prior */
} vt_synth;

/* Generates a lattice set: Zipf label priors (label ids shuffled, R gives the order), hidden
 * label sequences from a sparse Markov chain, emissions peaked on the hidden label and a few
 * confusable ones over Gaussian noise, transitions small with a few strong successor pairs.
 * The statistics follow the real CoNLL-2000 lattices (emission top-1 ~16 above top-2, transition
 * std ~1, row maxima ~5). Deterministic for a seed. Returns VT_EINVAL or VT_ENOMEM on failure. */
vt_status vt_synth_make(vt_synth *out, const vt_synth_opts *opts);

/* Frees what vt_synth_make allocated; safe on a zeroed struct. */
void vt_synth_free(vt_synth *s);

#endif
