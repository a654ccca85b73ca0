/* engine/train/dist.h: the steps of training across processes (vt_train_comm) between compiling
 * each process's part of the corpus and training: agreeing on failures, merging the dictionaries
 * in process order (so ids are those of one process reading the whole file), moving whole
 * sentences between processes (so each holds whole shards or gradient batches), and building
 * the CRF feature set from every process's data with exact frequencies.
 *
 * Every function here is collective: every process calls it, in the same order. */
#ifndef VT_TRAIN_DIST_H
#define VT_TRAIN_DIST_H

#include <stdint.h>

#include "text/featdict.h"
#include "train/crf_data.h"
#include "train/train_comm.h"
#include "train/train_corpus.h"

/* Returns VT_OK when every process's `st` is VT_OK; else a failed process keeps its `st` (and
 * its message), the others get VT_ECANCELED ("another process failed"). VT_EIO when the
 * transport fails. */
vt_status vt_dist_agree(const vt_train_comm *c, vt_status st, char *err, size_t errlen);

/* *before: the sum of `v` over the processes before this one; *total: over all. */
vt_status vt_dist_prefix(const vt_train_comm *c, int64_t v, int64_t *before, int64_t *total,
                         char *err, size_t errlen);

/* Merges every process's dictionary `d` into process 0's, in process order: an entry keeps the
 * id of its first appearance in process 0's entries, then process 1's, and so on (one process
 * reading the parts one after the other gives the same ids); counts are summed (saturating).
 * *map (malloc'd, d->n entries) receives the merged id of every local entry (process 0: the
 * identity); process 0's d becomes the merged dictionary, the others' stays. */
vt_status vt_dist_dict_merge(const vt_train_comm *c, vt_featdict *d, int32_t **map, char *err,
                             size_t errlen);

/* Process 0's *n bytes at *p to every process: the others get *n and a malloc'd copy in *p
 * (their old *p is not freed). */
vt_status vt_dist_bcast_blob(const vt_train_comm *c, void **p, int64_t *n, char *err,
                             size_t errlen);

/* Moves sentences between processes: local sentence i goes to process dest[i] (non-decreasing
 * in i), the sentences of every process keep the order of the whole corpus. */
vt_status vt_dist_move_tcorpus(const vt_train_comm *c, vt_tcorpus *tc, const int32_t *dest,
                               char *err, size_t errlen);
vt_status vt_dist_move_crf(const vt_train_comm *c, vt_crf_data *d, const int32_t *dest, char *err,
                           size_t errlen);

/* vt_crf_feats_build over the data of every process (d: this process's, in merged ids; the
 * same L and n_attr on every process), the frequencies summed exactly: every process gets the
 * feature set one process gets from the whole corpus. g->prior must be NULL. */
vt_status vt_dist_feats_build(const vt_train_comm *c, vt_crf_feats *f, const vt_crf_data *d,
                              const vt_crf_featgen *g, char *err, size_t errlen);

/* Replaces the dictionary of every process but 0 by process 0's (entries, order and counts). */
vt_status vt_dist_dict_bcast(const vt_train_comm *c, vt_featdict *d, char *err, size_t errlen);

/* vt_trainset_freeze across the processes: labels and features merged (vt_dist_dict_merge),
 * process 0 freezes the merged features (min_count over the summed counts), and every process's
 * `train` is rewritten in the merged label ids and the weight ids. Afterwards every process has
 * the merged labels (d->labels), n_weights and bigram; process 0 also the merged feature
 * dictionary and d->ncols of the corpus's first sentence (the others' feature dictionary is
 * emptied). `train` must have n_u and n_b set even when it holds no sentence. */
vt_status vt_dist_trainset_freeze(const vt_train_comm *c, vt_trainset *d, vt_tcorpus *train,
                                  uint32_t min_count, char *err, size_t errlen);

/* Where each local sentence goes: to the process holding its perceptron shard (shard s of S =
 * global sentences [N s / S, N (s + 1) / S), process r the shards s with s P / S = r), for n
 * local sentences whose first is global sentence sent0 of n_sent. Malloc'd; NULL: no memory. */
int32_t *vt_dist_dest_shards(const vt_train_comm *c, int64_t n, int64_t sent0, int64_t n_sent,
                             int32_t shards);

/* Where each local sentence goes: to the process holding its gradient batch (crf_grad.h: batch
 * b of `want` to process b P / want), for n local sentences of token offsets sent_off whose first
 * starts tok_before tokens into a corpus of n_tok. Malloc'd; NULL: no memory. */
int32_t *vt_dist_dest_batches(const vt_train_comm *c, const int64_t *sent_off, int64_t n,
                              int64_t tok_before, int64_t n_tok, int64_t want);

#endif
