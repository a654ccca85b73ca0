/* engine/cli/tag_engine.h: `vitesse tag` on the engine: the corpus reader cuts batches of whole
 * sentences, workers tag them (vt_text_tag_batch: features, emissions, decoding, text), the
 * writer writes them in input order. */
#ifndef VT_CLI_TAG_ENGINE_H
#define VT_CLI_TAG_ENGINE_H

#include "conll.h"
#include "engine_cli.h"
#include "tagger.h"

typedef struct vt_cli_tag_totals {
  vt_tag_stats tag;  /* summed over the workers */
  int64_t sentences; /* sentences with tokens, written */
  int64_t tokens;    /* tokens written */
} vt_cli_tag_totals;

/* Tags `files` (n_files of them, in order; none = standard input) with model `m` and decoder
 * `opts` on the engine configured by `eng` and planned in `topo`/`plan`, writing to `out` in
 * input order. A batch holds about eng->batch_tokens tokens (the reader counts 16 bytes a token
 * line: it cuts by sentences and bytes). Each plan node gets its own replica of the model, in
 * memory bound to that node (vt_textmodel_clone_to), and its workers tag from it. Stops when `cancel` (may be NULL) becomes nonzero.
 * Returns VT_OK; VT_ECANCELED; VT_EIO with *write_errno set when writing failed; or the reader's
 * or tagger's failure (VT_EFORMAT for bad input, ...) with its one-line message in `err`. Fills
 * `tot` and `ss` (its `workers` array is a copy the caller frees; `ss` may be NULL). */
vt_status vt_cli_tag_run(const vt_cli_engine *eng, const vt_topo *topo, const vt_plan *plan,
                         const vt_textmodel *m, const vt_decode_opts *opts, const vt_conll_opts *ro,
                         char **files, int n_files, FILE *out, const atomic_int *cancel,
                         vt_cli_tag_totals *tot, vt_sched_stats *ss, int *write_errno, char *err,
                         size_t errlen);

#endif
