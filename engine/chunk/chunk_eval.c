/* engine/chunk/chunk_eval.c: POS accuracy, chunk-tag accuracy and chunk F1 (see chunk_eval.h). */
#include "chunk/chunk_eval.h"

static inline int starts(const int32_t *tag, const uint8_t *beg, int32_t t) {
  return tag[t] && (beg[t] || t == 0 || tag[t - 1] != tag[t]);
}

static inline int ends(const int32_t *tag, const uint8_t *beg, int32_t t, int32_t n) {
  return tag[t] && (t == n - 1 || !tag[t + 1] || starts(tag, beg, t + 1));
}

void vt_chunk_eval_add(vt_chunk_eval *ev, int32_t n, const int32_t *gpos, const int32_t *gtag,
                       const uint8_t *gbeg, const int32_t *ppos, const int32_t *ptag,
                       const uint8_t *pbeg) {
  int open = 0; /* a gold and a predicted chunk started together and agree so far */
  for (int32_t t = 0; t < n; t++) {
    const int gs = starts(gtag, gbeg, t), ps = starts(ptag, pbeg, t);
    ev->tokens++;
    ev->pos_ok += gpos[t] >= 0 && gpos[t] == ppos[t];
    ev->tag_ok += gtag[t] == ptag[t] && gs == ps;
    ev->gold += gs;
    ev->pred += ps;
    if (gs || ps) open = gs && ps && gtag[t] == ptag[t];
    const int ge = ends(gtag, gbeg, t, n), pe = ends(ptag, pbeg, t, n);
    if (open && (ge || pe)) {
      ev->match += ge && pe;
      open = 0;
    }
  }
}

double vt_chunk_eval_pos_acc(const vt_chunk_eval *ev) {
  return ev->tokens ? 100.0 * (double)ev->pos_ok / (double)ev->tokens : 0.0;
}

double vt_chunk_eval_tag_acc(const vt_chunk_eval *ev) {
  return ev->tokens ? 100.0 * (double)ev->tag_ok / (double)ev->tokens : 0.0;
}

double vt_chunk_eval_f1(const vt_chunk_eval *ev, double *precision, double *recall) {
  double p = ev->pred ? 100.0 * (double)ev->match / (double)ev->pred : 0.0;
  double r = ev->gold ? 100.0 * (double)ev->match / (double)ev->gold : 0.0;
  if (precision) *precision = p;
  if (recall) *recall = r;
  return p + r > 0 ? 2 * p * r / (p + r) : 0.0;
}
