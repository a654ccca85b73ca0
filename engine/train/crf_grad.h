/* engine/train/crf_grad.h: the CRF objective's data term and its gradient over a whole corpus,
 * on several threads and, through a vt_train_comm, several processes, with the same bits for any
 * thread count and any split of the corpus over processes.
 *
 * The corpus is cut into batches of consecutive sequences by a rule each sentence can apply on
 * its own: with `want` the batch count a token budget that depends on the label count needs
 * (vt_crf_batch_count), the batch of a sentence is floor(tok_before * want / n_tok), tok_before
 * the tokens of the whole corpus before it, and a batch is a maximal run of sentences with the
 * same id. The cut depends on neither the thread count nor the processes. Threads take the
 * batches in rounds: each runs its batch's forward-backward (crf_fb.h) and writes the batch's
 * gradient (expected minus observed counts) to its own buffer; then all add the round's buffers
 * into one 128-bit fixed-point accumulator (core/fix128.h), split into fixed parts (attribute
 * ranges, transition blocks) so that no two threads add to the same entry. Fixed-point addition
 * is exact, so neither the order of the batches nor their grouping (threads, processes) changes a
 * bit: each process sums its own batches, one vt_train_comm sum_fix call sums the processes, and
 * the sum is then rounded to doubles once. Memory: per thread one batch's tables (about 32 MB at
 * most) and its counts, 16 bytes a feature for the accumulator, L x L doubles. */
#ifndef VT_TRAIN_CRF_GRAD_H
#define VT_TRAIN_CRF_GRAD_H

#include <stdint.h>

#include "train/crf_data.h"
#include "train/train_comm.h"

typedef struct vt_crf_grad vt_crf_grad;

/* Where a process's sentences lie in the whole corpus. d (vt_crf_grad_create) holds the
 * sentences that start tok_before tokens into a corpus of n_tok tokens, in whole batches (the
 * caller cuts by vt_crf_batch_of); comm (may be NULL) sums over the processes that hold the rest,
 * each calling vt_crf_grad_eval as often, with the same weights. */
typedef struct vt_crf_span {
  int64_t tok_before;
  int64_t n_tok;
  const vt_train_comm *comm;
} vt_crf_span;

/* The batch count the rule aims at for a corpus of n_tok tokens over L labels: as many equal
 * shares as a token budget of about 32 MB of tables per batch needs (64 to 65,536 tokens), rounded
 * up to a multiple of 16 while a share keeps 1,024 tokens (so rounds of 1, 2, 4, 8 or 16 threads
 * are even). At least 1, at most n_tok (1 for n_tok <= 0). */
int64_t vt_crf_batch_count(int64_t n_tok, int32_t L);

/* The batch id of a sentence that starts tok_before tokens into a corpus of n_tok tokens cut for
 * `want` batches: floor(tok_before * want / n_tok), exact (no overflow) for 0 <= tok_before <
 * n_tok < 2^62 and 1 <= want < 2^62. A sentence at or past the end (tok_before >= n_tok: empty
 * sentences last) gets want - 1; n_tok <= 0 or want <= 1 gives 0. Ids never decrease along the
 * corpus and some may be skipped (a long sentence spans several shares). */
int64_t vt_crf_batch_of(int64_t tok_before, int64_t n_tok, int64_t want);

/* Prepares the evaluation of `d` over features `f` (both kept by pointer) on `threads` threads
 * (0: OpenMP's default). span (may be NULL: {0, d's tokens, NULL}, d alone) places d in the whole
 * corpus; it is copied. Returns VT_OK, VT_EINVAL (d does not fit in the span) or VT_ENOMEM. */
vt_status vt_crf_grad_create(vt_crf_grad **out, const vt_crf_data *d, const vt_crf_feats *f,
                             int32_t threads, const vt_crf_span *span);

/* Frees it. NULL is a no-op. */
void vt_crf_grad_destroy(vt_crf_grad *G);

/* -sum over the sequences of every process of log p(gold | x; w), and (g not NULL) its gradient
 * in g (f->n doubles): expected minus observed feature counts, each the exact sum of its batches'
 * parts rounded once. Every process of the span's comm must call it with the same w and with g
 * NULL or not alike; each gets the same bits (one sum_fix and one sum_i64 call). +inf when a
 * sequence of some process has no path of non-zero probability in double; NaN when a process ran
 * out of memory or a collective failed (vt_crf_grad_status says which), or when a sequence's loss
 * is NaN (NaN weights). g is filled unless the result is NaN for want of memory or a collective. */
double vt_crf_grad_eval(vt_crf_grad *G, const double *w, double *g);

/* Why the last vt_crf_grad_eval returned NaN: VT_ENOMEM (this process ran out of memory),
 * VT_ECANCELED (a collective failed, or another process ran out of memory); VT_OK otherwise. */
vt_status vt_crf_grad_status(const vt_crf_grad *G);

/* The threads it runs on. */
int32_t vt_crf_grad_threads(const vt_crf_grad *G);

#endif
