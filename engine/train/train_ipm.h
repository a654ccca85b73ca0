/* engine/train/train_ipm.h: perceptron training by iterative parameter mixing (train_ipm.c), on
 * one process or across several (vt_ipm_span in perc.h). */
#ifndef VT_TRAIN_TRAIN_IPM_H
#define VT_TRAIN_TRAIN_IPM_H

#include <stdint.h>

#include "train/perc.h"
#include "train/train_corpus.h"
#include "train/train_weights.h"

/* The first sentence of shard s (0 <= s <= shards) of a corpus of n_sent sentences split into
 * `shards` contiguous shards: floor(n_sent * s / shards), without overflow; s = shards gives
 * n_sent. Shard s is [vt_ipm_shard_start(n, S, s), vt_ipm_shard_start(n, S, s + 1)). */
int64_t vt_ipm_shard_start(int64_t n_sent, int32_t shards, int32_t s);

/* About how many sentences all shards together train between two mixes. */
enum { VT_IPM_ROUND = 8 };

/* The sentences a shard trains between two mixes when there are `shards` (>= 1): VT_IPM_ROUND /
 * shards, at least 1 (8 shards and more: one sentence a shard a round). */
int64_t vt_ipm_round_length(int32_t shards);

/* vt_train_run for o->shards > 1 or o->span set (train_ipm.c): parameter mixing in rounds.
 * Shard s of o->shards holds the contiguous sentences of vt_ipm_shard_start; every epoch it
 * shuffles them (its own generator, seeded from o->seed and s, its state carried from epoch to
 * epoch) and trains on them in rounds of m = vt_ipm_round_length(o->shards): in round r, its
 * sentences r m .. min((r + 1) m, its count) - 1 of that order, from the mixed weights, into its
 * own deltas (sentence i of the round updates at example number c + i, c the mixed weights'
 * clock). After every round the mixed weights add, for every weight, the sum of all shards'
 * deltas, and the clock advances by the round's length in the largest shard (ceil(N / shards)
 * sentences for N in the job). The deltas are integers (each update adds +-1 to a weight and +-c
 * to its accumulator), so their sum is exact in any order and grouping; training refuses a job
 * where a weight's sum could pass 2^53 (n_tok x the last example number). So a shard's work
 * depends on neither the other shards nor where they run, and the weights, and the model, are
 * the same bits for any thread count and any split of the shards over processes, as on one
 * process; one shard gives the sequential perceptron's values.
 *
 * With o->span (and its comm), this process trains `train` = the span's shards, and after
 * every round the processes exchange their shards' summed deltas (comm->gather_all of one part
 * each, laid out below) and every one adds them all to its weights; the epoch's end (mistakes,
 * dev, callbacks, stopping) is agreed as vt_train_epoch_end says. A failure on one process (or
 * a part that is not well formed) fails every process. Returns as vt_train_run; VT_EINVAL for
 * a span that does not match `train` or o->shards, or a job too large for exact sums (message
 * in err); VT_EIO when a collective call fails; VT_ECANCELED on a process whose own work went
 * well when another failed.
 *
 * One process's part (native byte order, every process the same architecture): a header of 6
 * 8-byte words {part bytes, failed (nonzero: the part ends here), L, feature records, their
 * bytes, transitions (1: present)}, then the records, ascending by feature id, each {int32 f,
 * int32 n} and n entries {int32 key, double dw, double du} (20 bytes, keys ascending, no entry
 * whose dw and du are both 0), then when present the transitions: an int64 count of cells, that
 * many entries {int32 cell = prev * L + cur, double dA, double dAu} (20 bytes, cells ascending,
 * no entry whose dA and dAu are both 0), and the start and end deltas as doubles: dS, dSu, dF,
 * dFu (L each). Every dw, du, dA, dAu and start or end delta is an integer. */
vt_status vt_train_run_ipm(vt_weights *W, const vt_tcorpus *train, const vt_tcorpus *dev,
                           const int32_t *rank, int obs_bigram, const vt_perc_opts *o,
                           vt_perc_report *rep, char *err, size_t errlen);

#endif
