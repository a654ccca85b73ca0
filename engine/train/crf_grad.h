/* engine/train/crf_grad.h: the CRF objective's data term and its gradient over a whole corpus,
 * on several threads, with the same bits for any thread count.
 *
 * The corpus is cut once into batches of consecutive sequences (by a token budget that depends
 * on the label count only). Threads run the forward-backward of several batches at once
 * (crf_fb.h); the expected counts are then added batch after batch in corpus order, each batch's
 * work split into fixed parts (attributes by residue, transition rows by blocks), so every weight's
 * sum runs in one order whatever the number of threads. Memory: per thread one batch's tables
 * (about 32 MB at most), plus L x L and the observed counts. */
#ifndef VT_TRAIN_CRF_GRAD_H
#define VT_TRAIN_CRF_GRAD_H

#include <stdint.h>

#include "train/crf_data.h"

typedef struct vt_crf_grad vt_crf_grad;

/* Prepares the evaluation of `d` over features `f` (both kept by pointer) on `threads` threads
 * (0: OpenMP's default). Returns VT_OK or VT_ENOMEM. */
vt_status vt_crf_grad_create(vt_crf_grad **out, const vt_crf_data *d, const vt_crf_feats *f,
                             int32_t threads);

/* Frees it. NULL is a no-op. */
void vt_crf_grad_destroy(vt_crf_grad *G);

/* -sum over sequences of log p(gold | x; w), and (g not NULL) its gradient in g (f->n doubles):
 * expected minus observed feature counts. +inf when a sequence has no path of non-zero
 * probability in double; NaN when out of memory. */
double vt_crf_grad_eval(vt_crf_grad *G, const double *w, double *g);

/* The threads it runs on. */
int32_t vt_crf_grad_threads(const vt_crf_grad *G);

#endif
