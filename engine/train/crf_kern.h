/* engine/train/crf_kern.h: the batched forward-backward of CRF training, the state-feature
 * loops of its plans (crf_plan.h) and the Viterbi of CRFsuite's online trainers as a kernel family
 * (cmake/VtIsa.cmake): one table per instruction set in crf_kern_<level>.c, all compiled from
 * crf_kern_body.h, their dispatcher in crf_kern.c. vt_crf_fb_batch runs the widest level
 * vt_simd_active() allows; every level gives the same bits. */
#ifndef VT_TRAIN_CRF_KERN_H
#define VT_TRAIN_CRF_KERN_H

#include "train/crf_data.h"
#include "train/crf_fb.h"
#include "train/crf_plan.h"
#include "train/crf_sparse.h"
#include "vitesse.h"

/* vt_crf_fb_batch's contract (crf_fb.h). */
typedef int (*vt_crf_fb_batch_fn)(vt_crf_batch *b, const vt_crf_data *d, const vt_crf_feats *f,
                                  const double *w, double ws, const double *M,
                                  const vt_crf_sparse *sp, double mA, double *G);

/* vt_crf_plan_scores's and vt_crf_plan_counts's contracts (below). */
typedef void (*vt_crf_plan_scores_fn)(const vt_crf_plan *p, const vt_crf_feats *f, const double *w,
                                      int32_t L, double *E, double *scratch);
typedef void (*vt_crf_plan_counts_fn)(const vt_crf_plan *p, const vt_crf_feats *f, const double *P,
                                      int32_t L, double *out, double *scratch);

/* vt_crf_viterbi_first's contract (below). */
typedef double (*vt_crf_viterbi_first_fn)(const double *S, const double *A, int32_t T, int32_t L,
                                          double *V, int32_t *back, int32_t *path);

typedef struct vt_crf_kern_ops {
  vt_simd level;
  vt_crf_fb_batch_fn fb_batch;
  vt_crf_plan_scores_fn plan_scores;
  vt_crf_plan_counts_fn plan_counts;
  vt_crf_viterbi_first_fn viterbi_first;
} vt_crf_kern_ops;

/* Forward-backward over batch `b`, whose P holds the state scores and gs the gold ones
 * (vt_crf_fb_scores or crf_plan.h), with transition weights ws * w: exp'd in M (dense products
 * through BLAS) or, when sp is not NULL, in sp (crf_sparse.h; M unused), shift mA. Fills P with
 * the marginals, Al, Y and b->loss; with sp, adds the batch's transition counts sum_t
 * alphahat_{t-1}(from_e) Y_t(to_e) to G[e] (sp->nnz doubles); without, when G is not NULL, adds
 * sum_t alphahat_{t-1}^T Y_t to G (L x L), a position at a time as its rows are made (one small
 * product each, in cache, where a product over the whole batch had BLAS copy it all).
 * Single-threaded (BLAS called as is). Runs the widest level vt_simd_active() allows. Returns 0,
 * or -1 when a sequence has no path of non-zero probability in double (its loss is then +inf). */
int vt_crf_fb_batch(vt_crf_batch *b, const vt_crf_data *d, const vt_crf_feats *f, const double *w,
                    double ws, const double *M, const vt_crf_sparse *sp, double mA, double *G);

/* Adds the state scores of weights w to the batch's rows E (rows x L, zeroed by the caller),
 * at the widest level vt_simd_active() allows.
 * `scratch`: L doubles. Every row entry gets its attributes' weights in ascending attribute
 * order, an attribute's occurrences in row order: the same bits at every SIMD level. */
void vt_crf_plan_scores(const vt_crf_plan *p, const vt_crf_feats *f, const double *w, int32_t L,
                        double *E, double *scratch);

/* Writes the expected state counts of the batch (marginals P, rows x L) to out (p->cnt[p->n]
 * doubles): the count of feature q of the plan's attribute j, summed over the attribute's
 * occurrences in row order, goes to out[p->cnt[j] + q - f->st_off[attr]]. `scratch`:
 * max(L, 32) doubles; P has VT_CRF_ROW_PAD doubles after its last row (crf_fb.h). */
void vt_crf_plan_counts(const vt_crf_plan *p, const vt_crf_feats *f, const double *P, int32_t L,
                        double *out, double *scratch);

/* CRFsuite's Viterbi (its online trainers, crf_online.h): the best path of state scores S (T x L,
 * T >= 1) and transition scores A (L x L, from * L + to) into path (T labels); returns its score,
 * summed as the path's own score is ((S[0] + A) + S[1]) + ... Ties: the first best predecessor
 * of each cell, then the first best last label. V (T x L) and back (T x L) are scratch. Every
 * level gives the same path and bits. */
double vt_crf_viterbi_first(const double *S, const double *A, int32_t T, int32_t L, double *V,
                            int32_t *back, int32_t *path);

/* Returns the table of `level`, or NULL when this build or CPU cannot run it. */
const vt_crf_kern_ops *vt_crf_kern_get(vt_simd level);

/* Per-level tables, defined in crf_kern_<level>.c. */
extern const vt_crf_kern_ops vt_crf_kern_scalar;
#if defined(VT_HAVE_AVX2)
extern const vt_crf_kern_ops vt_crf_kern_avx2;
#endif
#if defined(VT_HAVE_AVX512)
extern const vt_crf_kern_ops vt_crf_kern_avx512;
#endif

#endif
