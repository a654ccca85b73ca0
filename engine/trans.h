/* engine/trans.h: the bound transition model, in the layouts the kernels read. */
#ifndef VT_ENGINE_TRANS_H
#define VT_ENGINE_TRANS_H

#include "vitesse.h"

/* Kernel rows are padded to a multiple of VT_PAD doubles (one 64-byte cache line). */
#define VT_PAD 8

static inline int32_t vt_pad_up(int32_t n) { return (n + VT_PAD - 1) / VT_PAD * VT_PAD; }

struct vt_trans {
  int32_t L;
  int32_t ld;       /* row stride of A and At: vt_pad_up(L) */
  double *A;        /* L rows x ld, A[i*ld + j] = A(i -> j); padding is -inf */
  double *At;       /* transpose: At[j*ld + i] = A(i -> j); padding is -inf */
  double *S;        /* L start scores (0 when none were given) */
  double *F;        /* L end scores (0 when none were given) */
  int32_t *rank;    /* rank[r] = label of rank r (most likely first) */
  int32_t *rank_of; /* rank_of[label] = its rank */
};

#endif
