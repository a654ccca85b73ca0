/* engine/text/batch_tag.h: tagging with a loaded model: features -> emissions -> decoding -> text.
 *
 * vt_text_tag_batch is the unit of work a scheduler hands to a worker: a range of sentences
 * of one batch in, their output text out, no shared state written (the model is read-only),
 * scratch memory from the worker's arena (reset per sentence), so the output of a batch is the
 * same bytes whichever thread runs it. */
#ifndef VT_TEXT_BATCH_TAG_H
#define VT_TEXT_BATCH_TAG_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "io/sentbatch.h"
#include "text/allowed_labels.h"
#include "text/obsbigram.h"
#include "text/rowcache.h"
#include "text/textmodel.h"
#include "vitesse.h"

/* A growable output buffer (grows geometrically; reused across batches). */
typedef struct vt_textbuf {
  char *p;
  size_t len, cap;
} vt_textbuf;

/* Makes room for `more` bytes; returns 0 or -1 (out of memory). */
int vt_textbuf_reserve(vt_textbuf *b, size_t more);

/* Frees the buffer; *b becomes zeroed. */
void vt_textbuf_free(vt_textbuf *b);

/* Counters of a tagging run (added to, never reset). */
typedef struct vt_tag_stats {
  vt_decode_stats decode;
  double feature_seconds;   /* template expansion, lookups, emissions */
  double decode_seconds;    /* the decoder */
  int64_t unknown_features; /* feature strings the model does not have */
  int64_t lookups;
  int64_t cache_hits; /* tokens whose local row came from the row cache */
} vt_tag_stats;

/* What tagging adds to decoding: confidence output and allowed labels. */
typedef struct vt_text_conf {
  int verbose;                       /* 0; 1: each label with its marginal and a "# PROB" line
                                        per path; 2: also every label's marginal (CRF++ -v1/-v2) */
  const struct vt_constraints *cons; /* allowed labels (NULL: none) */
  int label_sep;                     /* the byte before a label; 0: the line's separator */
  const atomic_int *cancel;          /* an engine run's cancel flag, polled inside a sentence by the
                                        search decoders (NULL: none); a canceled sentence gives
                                        VT_ECANCELED */
  int crfpp_search;                  /* a CRF++ model's paths for k > 1 and its probabilities
                                        for verbose by crf_test's own search (crfpp_search.h),
                                        headers "# RANK PROB"; no constraints */
  int join_tabs;                     /* token lines printed as crf_test prints them: the columns
                                        joined by tabs (empty ones dropped) */
} vt_text_conf;

/* Computes the T x L emissions of sentence `tk` under `m` into E (every entry written): per
 * token, the local unigram templates' weights summed in template order from 0.0, then the other
 * unigram templates' (engine/text/rowcache.h). `cache` (may be NULL; one per thread, made for `m`)
 * supplies and remembers local sums; the result is the same bits with or without it. For a
 * model with bigram templates, and `lat` not NULL, also fills lat's deltas (arena memory) and
 * its L, T, A, S, F, E. Requires tk->ncols > m->tmpl.max_col. Returns VT_OK or VT_ENOMEM. */
vt_status vt_text_emissions(const vt_textmodel *m, const vt_tokens *tk, vt_arena *arena, double *E,
                            vt_obs_lattice *lat, vt_rowcache *cache, vt_tag_stats *stats);

/* Tags the T >= 1 tokens `tk`: emissions (through `cache`, may be NULL), restricted to the
 * allowed labels of cf->cons (cf may be NULL), then decoder `opts`, writing up to opts->k paths
 * to labels (k*T) and scores (k) as vt_decode does; with `logz` not NULL also forward-backward:
 * *logz and, when `marg` is not NULL, the T*L marginals (vt_posteriors; not for models with
 * observation-dependent bigram templates: VT_EUNSUPPORTED); with `path` (T label ids) its score
 * on the same emissions into *path_score (vt_path_score; likewise not for those models).
 * Scratch from `arena` (not reset).
 * Returns VT_OK, VT_ENOMEM, VT_EFORMAT (a constraint failed: *bad is the token, *why as
 * vt_constraints_apply says) or a decoder failure. Requires tk->ncols > m->tmpl.max_col and a
 * decoder the model supports (vt_obs_algo_supported). */
vt_status vt_text_tag_tokens(const vt_textmodel *m, const vt_decode_opts *opts,
                             const vt_text_conf *cf, vt_arena *arena, vt_rowcache *cache,
                             const vt_tokens *tk, int32_t *labels, double *scores, int32_t *n_paths,
                             double *marg, double *logz, const int32_t *path, double *path_score,
                             int32_t *bad, int *why, vt_tag_stats *stats);

/* Tags sentences [s0, s1) of `b` with decoder `opts` and `cf` (may be NULL; emissions through
 * `cache`, which may be NULL: see vt_text_emissions) and appends their text to `out`: each
 * input line, token lines followed by the separator and the predicted label, then a blank
 * line per sentence; with opts->k > 1, each sentence once per path, after a line
 * "# RANK SCORE". With cf->verbose (CRF++'s -v1/-v2 layout): "# PROB" (k = 1) or
 * "# RANK PROB" before each path, PROB = exp(score - log Z); the label column is LABEL/MARGINAL,
 * and with verbose 2 followed by LABEL/MARGINAL of every label of the model (separated as the
 * input is); a sentence without a path prints "# 0" and "_/0" (and every label at 0).
 * Returns VT_OK, VT_EFORMAT (a sentence lacks a column the templates read, or a partial label
 * is not the model's: "FILE:LINE: problem" in err), VT_EUNSUPPORTED (decoder unusable for this
 * model), VT_ENOMEM or a decoder failure. */
vt_status vt_text_tag_batch(const vt_textmodel *m, const vt_decode_opts *opts,
                            const vt_text_conf *cf, vt_arena *arena, vt_rowcache *cache,
                            const vt_sentbatch *b, int32_t s0, int32_t s1, vt_textbuf *out,
                            vt_tag_stats *stats, char *err, size_t errlen);

/* Checks that sentence `s` of `b` has every column the model's templates read; VT_OK or
 * VT_EFORMAT with "FILE:LINE: problem" in err. */
vt_status vt_text_check(const vt_textmodel *m, const vt_sentbatch *b, int32_t s, char *err,
                        size_t errlen);

#endif
