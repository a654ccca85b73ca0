/* engine/text/crfpp_search.h: crf_test's own search over one sentence of a CRF++ model.
 *
 * crf_test (CRF++ 0.58/0.59) scores in its own arithmetic: a token's cost for a label is its
 * features' float weights summed in float, template by template; an edge's cost the bigram
 * templates' weights, likewise; Viterbi keeps the first best left label (strict >, labels in
 * order); forward-backward folds the labels in order with a two-term log-sum-exp that drops a
 * term more than 50 below the other; and -n's n-best is an A* search from the last token back
 * whose agenda is a std::priority_queue (GCC's libstdc++ binary heap). Doing the same operations
 * in the same order gives crf_test's paths, its order among exact ties and its probabilities to
 * the last printed digit. O(T L^2) per sentence, as crf_test; memory from the caller's arena.
 *
 * Exact for the models crf_learn writes (cost factor 1, one macro-free `B` template); with
 * --cost-factor C != 1 the weights were scaled before summing, so the last digits may differ. */
#ifndef VT_TEXT_CRFPP_SEARCH_H
#define VT_TEXT_CRFPP_SEARCH_H

#include <stdint.h>

#include "io/sentbatch.h"
#include "text/textmodel.h"
#include "vitesse.h"

/* Tags the T >= 1 tokens `tk` (tk->ncols > m->tmpl.max_col) of CRF++ model `m` as crf_test
 * does: k == 1 its Viterbi path (crf_test without -n), k > 1 up to k paths of its n-best search
 * (crf_test -n k), best first, into labels (k * T) and their count into *n_paths (fewer when the
 * sentence has fewer paths). With `prob` not NULL, each path's probability exp(score - log Z)
 * as crf_test computes it (k entries); with `marg` not NULL, every label's marginal (T * L).
 * Scratch from `arena` (not reset). Returns VT_OK or VT_ENOMEM. */
vt_status vt_crfpp_search(const vt_textmodel *m, const vt_tokens *tk, int32_t k, vt_arena *arena,
                          int32_t *labels, int32_t *n_paths, double *prob, double *marg);

#endif
