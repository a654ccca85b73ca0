/* engine/decode/topk.h: the sorted top-k buffer of the k-best Viterbi passes (kbest.c over the
 * whole lattice, sparse.c over the finite labels): per node, the k best partial paths that end
 * in it, best first. */
#ifndef VT_DECODE_TOPK_H
#define VT_DECODE_TOPK_H

#include <stdint.h>

typedef struct vt_topk_entry {
  double score;
  int32_t prev;  /* previous node (a label, or an index in its column), -1 at t = 0 */
  int32_t prank; /* entry index at the previous node */
} vt_topk_entry;

/* Inserts (score, prev, prank) into `top`, sorted best first, holding *n of at most k entries,
 * after every entry of equal score (candidates arrive in tie-break order: the first of equal
 * scores stays first). Returns 0 when it did not enter. */
static inline int vt_topk_insert(vt_topk_entry *top, int32_t *n, int32_t k, double score,
                                 int32_t prev, int32_t prank) {
  int32_t pos = *n;
  if (pos == k) {
    if (!(score > top[k - 1].score)) return 0;
    pos = k - 1;
  } else {
    (*n)++;
  }
  while (pos > 0 && top[pos - 1].score < score) {
    top[pos] = top[pos - 1];
    pos--;
  }
  top[pos] = (vt_topk_entry){score, prev, prank};
  return 1;
}

#endif
