/* engine/train/crf_fb.h: a batch of sequences for forward-backward in exp space: its layout,
 * its state scores, the exp'd dense transitions and their expected counts. The recursion itself
 * is the kernel family of crf_kern.h.
 *
 * The sequences of a batch are sorted by decreasing length and laid out position by position:
 * the rows of position t are its n_t live sequences, so each step of the forward and of the
 * backward recursion over the whole batch is one matrix product (n_t x L by L x L): through BLAS
 * for dense transitions, or their sparse form (crf_sparse.h). Each row is rescaled to sum 1 as it
 * is made (CRFsuite's method), and the state scores of an item are shifted by their maximum
 * before exp, the transitions by theirs, so no exp overflows. With alpha-hat and beta-hat so
 * scaled, an item's marginals are their product and a transition's expected count over the batch
 * is M (.) sum_t alphahat_{t-1}^T Y_t, where Y_t is E'_t (.) betahat_t / S_t: one more product
 * a position, which the backward steps add up (vt_crf_fb_trans_grad takes it over the whole
 * batch at once). */
#ifndef VT_TRAIN_CRF_FB_H
#define VT_TRAIN_CRF_FB_H

#include <stdint.h>

#include "train/crf_data.h"
#include "train/crf_sparse.h"

/* Doubles after the last row of P that the state-feature gathers may read (crf_kern_body.h). */
#define VT_CRF_ROW_PAD 32

/* A batch: which sequences, in which order, and its scratch (rows x L doubles, 4 tables). */
typedef struct vt_crf_batch {
  int64_t *sent; /* nb sequence ids, by decreasing length (ties: corpus order) */
  int32_t nb, Tmax;
  int64_t rows;    /* items of the batch */
  int32_t *n_at;   /* Tmax: live sequences at position t */
  int64_t *off_at; /* Tmax + 1: first row of position t */
  double *P;       /* rows x L (+ VT_CRF_ROW_PAD): exp of the shifted state scores, then the
                      marginals */
  double *Al;      /* rows x L: alpha-hat */
  double *Be;      /* rows x L: beta-hat */
  double *Y;       /* rows x L: row (t-1, b) holds Y_t of sequence b, zero where b ended */
  double *S;       /* rows: the sum each alpha-hat row was divided by */
  double *gs;      /* rows: the state score of the row's gold label */
  int32_t *yr;     /* rows: the row's gold label */
  double *AlT;     /* sparse transitions: Al of position t's first n_{t+1} rows, transposed
                      (L x n_{t+1}), at row offset off_at[t] */
  double *tA, *tO; /* sparse transitions: L x nb scratch */
  double *ysum;    /* nb scratch */
  double *loss;    /* nb: -log p(gold) of each sequence (in batch order) */
  int64_t cap_rows;
  int32_t cap_nb, cap_T;
} vt_crf_batch;

/* Sets `b` to the sequences s0..s1-1 of `d` (reusing its memory). Returns VT_OK or VT_ENOMEM. */
vt_status vt_crf_batch_set(vt_crf_batch *b, const vt_crf_data *d, int64_t s0, int64_t s1);

/* Frees a batch's memory; *b becomes zeroed. */
void vt_crf_batch_free(vt_crf_batch *b);

/* The transitions of weights ws * w for the batch kernel: M[i*L+j] = exp(A[i][j] - *mA) where
 * *mA is the largest transition weight (0 counts for pairs without a feature). */
void vt_crf_trans_exp(const vt_crf_feats *f, const double *w, double ws, double *M, double *mA);

/* Writes the state scores of weights ws * w into the rows of P (item by item) and each row's
 * gold state score into gs: what vt_crf_fb_batch starts from. */
void vt_crf_fb_scores(vt_crf_batch *b, const vt_crf_data *d, const vt_crf_feats *f, const double *w,
                      double ws);

/* Adds rows i0..i1-1 of sum_t alphahat_{t-1}^T Y_t of batch `b` to GA (L x L). */
void vt_crf_fb_trans_grad(const vt_crf_batch *b, int32_t L, int32_t i0, int32_t i1, double *GA);

#endif
