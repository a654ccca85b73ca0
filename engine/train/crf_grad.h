/* engine/train/crf_grad.h: the CRF objective's data term and its gradient over a whole corpus,
 * on several threads, with the same bits for any thread count.
 *
 * The corpus is cut once into batches of consecutive sequences: equal shares of the tokens, as
 * many as a token budget that depends on the label count needs, their number rounded up to a
 * multiple of 16 while a share keeps 1,024 tokens (so rounds of 1, 2, 4, 8 or 16 threads are
 * even); the cut never depends on the thread count. Threads take the batches in rounds: each
 * runs its batch's forward-backward (crf_fb.h) and writes the batch's state counts to its own
 * buffer; then all add the round's counts to the gradient batch after batch in corpus order, split
 * into fixed parts (attribute ranges, transition blocks), so every weight's sum runs in one
 * order whatever the number of threads. Memory: per thread one batch's tables (about 32 MB at
 * most) and its counts, plus L x L and the observed counts. */
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
