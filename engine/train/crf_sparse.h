/* engine/train/crf_sparse.h: the exp'd transition matrix as a constant plus a sparse part.
 *
 * A label pair without a transition feature scores 0, and training corpora see few of the L^2
 * pairs (CoNLL-2000 POS|chunk: 4.5% of 319^2; AGLDT Greek: 3.1% of 945^2). So with the largest
 * transition weight mA taken out, M = exp(A - mA) = c J + S, where c = exp(-mA) is every
 * featureless pair's value, J the all-ones matrix, and S non-zero only on the feature pairs
 * (exp(A_ij - mA) - c). A forward step over scaled rows (each summing to 1) is then c plus a
 * sparse product, a backward step c times the row's sum plus one: work in the pairs seen, not in
 * L^2, exactly. The products run over a block of rows at once, transposed (label-major), so each
 * pair is one contiguous multiply-add over the block. */
#ifndef VT_TRAIN_CRF_SPARSE_H
#define VT_TRAIN_CRF_SPARSE_H

#include <stdint.h>

#include "train/crf_data.h"

typedef struct vt_crf_sparse {
  int32_t L;
  int64_t nnz;   /* transition features */
  int32_t *from; /* nnz, sorted by (from, to) */
  int32_t *to;   /* nnz */
  int32_t *id;   /* nnz weight indices */
  double *s;     /* nnz: exp(A - mA) - c, set by vt_crf_sparse_set */
  double *m;     /* nnz: exp(A - mA) */
  double c;      /* exp(-mA) */
} vt_crf_sparse;

/* Whether f's transitions are sparse enough for this form (at most a quarter of the pairs). */
int vt_crf_sparse_fits(const vt_crf_feats *f);

/* The pattern of f's transition features. Returns VT_OK or VT_ENOMEM. */
vt_status vt_crf_sparse_init(vt_crf_sparse *sp, const vt_crf_feats *f);
void vt_crf_sparse_free(vt_crf_sparse *sp);

/* Sets the values for weights ws * w; *mA receives the shift (the largest transition score,
 * 0 included for the pairs without a feature). */
void vt_crf_sparse_set(vt_crf_sparse *sp, const double *w, double ws, double *mA);

#endif
