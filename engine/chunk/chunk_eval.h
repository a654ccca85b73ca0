/* engine/chunk/chunk_eval.h: the paper's three measures for joint POS and chunk output: POS
 * accuracy, chunk-tag token accuracy (B-X / I-X / O) and chunk F1 (conlleval: a chunk is right when
 * its span and type both are). */
#ifndef VT_CHUNK_CHUNK_EVAL_H
#define VT_CHUNK_CHUNK_EVAL_H

#include <stdint.h>

typedef struct vt_chunk_eval {
  int64_t tokens, pos_ok, tag_ok;
  int64_t gold, pred, match; /* chunks other than O */
} vt_chunk_eval;

/* Adds one sentence of n tokens. Gold: POS gpos (-1 counts as wrong), chunk tags gtag (0 =
 * outside) and gbeg (1 where a chunk starts: B); prediction likewise. A chunk also starts where
 * the tag changes (so I-X after O counts as B-X), and gbeg / pbeg of outside tokens are
 * ignored: a label-chunk structure's `begin` can be passed as it is. */
void vt_chunk_eval_add(vt_chunk_eval *ev, int32_t n, const int32_t *gpos, const int32_t *gtag,
                       const uint8_t *gbeg, const int32_t *ppos, const int32_t *ptag,
                       const uint8_t *pbeg);

/* Percentages: POS accuracy, chunk-tag accuracy, precision, recall, F1 (0 when undefined). */
double vt_chunk_eval_pos_acc(const vt_chunk_eval *ev);
double vt_chunk_eval_tag_acc(const vt_chunk_eval *ev);
double vt_chunk_eval_f1(const vt_chunk_eval *ev, double *precision, double *recall);

#endif
