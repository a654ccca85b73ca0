/* engine/core/trans_layout.h: the bound transition model (vt_trans of vitesse.h, made by
 * trans.c), in the layouts the kernels read, and the bounds that degenerate lattices use. */
#ifndef VT_CORE_TRANS_LAYOUT_H
#define VT_CORE_TRANS_LAYOUT_H

#include <string.h>

#include "vitesse.h"

/* Kernel rows are padded to a multiple of VT_PAD doubles (one 64-byte cache line). */
#define VT_PAD 8

static inline int32_t vt_pad_up(int32_t n) { return (n + VT_PAD - 1) / VT_PAD * VT_PAD; }

/* Bounds over label suffixes in rank space, for degenerate lattices (see bounds.c). A column
 * with n = 2^k active labels (the rank prefix [0, n)) has a degenerate label standing for the
 * suffix [n, L); level k indexes those suffixes, k = 0 .. K-1 where 2^(K-1) < L <= 2^K. */
typedef struct vt_bounds {
  int32_t K;        /* suffix levels */
  double *Ar;       /* rank-space A, L rows x ld (aliases A when the rank is the identity) */
  double *Art;      /* its transpose: Art[j*ld + i] = Ar[i][j] */
  double *Sr, *Fr;  /* rank-space start and end scores */
  double *to_max;   /* [k*L + i] = max_{j >= 2^k} Ar[i][j]: active i -> degenerate */
  double *from_max; /* [k*L + j] = max_{i >= 2^k} Ar[i][j]: degenerate -> active j */
  double *both_max; /* [k1*K + k2] = max_{i >= 2^k1, j >= 2^k2} Ar[i][j] */
  double *s_suf;    /* [k] = max_{r >= 2^k} Sr[r] */
  double *f_suf;    /* [k] = max_{r >= 2^k} Fr[r] */
  double a_max;     /* max of A (the naive heuristic's transition term), -inf if none finite */
  double mag_a;     /* max |A| over finite entries (for rounding slack) */
  double mag_sf;    /* max |S| + max |F| over finite entries */
  int32_t q_a;      /* every finite A is a multiple of 2^q_a (vt_quantum_log2; INT32_MAX: none
                     * is finite and nonzero) */
  int32_t q_sf;     /* the same over S and F */
  double *row_max;  /* per rank row i: max_j Ar[i][j], max |Ar[i][j]| over finite entries and */
  double *row_mag;  /* 0 without one, and the least quantum of the row (INT32_MAX: none finite */
  int32_t *row_q;   /* and nonzero); a_max, mag_a and q_a are their extremes */
  int32_t *row_n;   /* per rank row, 3 counts: cells at row_max, at row_mag, of quantum row_q; */
                    /* vt_trans_update keeps them cell by cell, rescans a row when a count of */
                    /* it falls to 0 (O(L)), and never rescans all of A */
  int32_t *touched; /* scratch of vt_trans_update: the rank rows (then columns) it changed, */
  uint8_t *seen;    /* 2 L each, and a state per rank row (then column) listed there */
} vt_bounds;

struct vt_trans {
  int32_t L;
  int32_t ld;       /* row stride of A: vt_pad_up(L) */
  double *A;        /* L rows x ld, A[i*ld + j] = A(i -> j); padding is -inf */
  double *S;        /* L start scores (0 when none were given) */
  double *F;        /* L end scores (0 when none were given) */
  int32_t *rank;    /* rank[r] = label of rank r (most likely first) */
  int32_t *rank_of; /* rank_of[label] = its rank */
  vt_bounds bd;     /* rank-space layouts and suffix bounds */
};

/* Returns the largest q such that v is a multiple of 2^q (the exponent of its lowest set bit):
 * 0 for odd integers, -1 for 0.5, -1074 at most; INT32_MAX for 0 and non-finite v. A sum of
 * multiples of 2^q below 2^(q + 53) in magnitude is exact in double. */
static inline int32_t vt_quantum_log2(double v) {
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  const int32_t e = (int32_t)((bits >> 52) & 0x7ff);
  uint64_t m = bits & (((uint64_t)1 << 52) - 1);
  if (e == 0x7ff || (e == 0 && m == 0)) return INT32_MAX;
  if (e) m |= (uint64_t)1 << 52;
  return (e ? e : 1) - 1075 + (int32_t)__builtin_ctzll(m);
}

/* Returns the suffix level k of an active count n = 2^k < L (n must be a power of two). */
static inline int32_t vt_level_of(int32_t n) { return (int32_t)__builtin_ctz((unsigned)n); }

#endif
