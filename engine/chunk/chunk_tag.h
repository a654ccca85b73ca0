/* engine/chunk/chunk_tag.h: tagging with a joint label-chunk model: part scores, then the exact
 * decoder, sentence by sentence, with scratch from the caller's arena. */
#ifndef VT_CHUNK_CHUNK_TAG_H
#define VT_CHUNK_CHUNK_TAG_H

#include "chunk/chunk_corpus.h"
#include "chunk/chunk_decode.h"
#include "chunk/chunk_eval.h"
#include "chunk/chunk_model.h"

/* Decodes `x` under m's weights with chunks of at most W tokens (0: no bound) into `out` (x->n
 * entries per array). Scratch comes from `arena` (not reset). `stats` may be NULL.
 * Returns VT_OK or VT_ENOMEM. */
vt_status vt_chunk_tag_sentence(const vt_chunk_model *m, const vt_chunk_x *x, int32_t W,
                                vt_arena *arena, vt_chunk_out *out, vt_chunk_stats *stats);

/* Tags every sentence of `cp` (bound W, 0: none) and adds the comparison with its gold POS tags
 * and uncut gold chunks to `ev`; *seconds (may be NULL) gets the wall time spent (scores and
 * decoding). Returns VT_OK or VT_ENOMEM. */
vt_status vt_chunk_corpus_eval(const vt_chunk_model *m, const vt_chunk_corpus *cp, int32_t W,
                               vt_chunk_eval *ev, double *seconds);

#endif
