/* engine/train/dist_trainset.c: the dictionaries of template training merged across the
 * processes of a job and frozen once (dist.h). */
#include <stdlib.h>
#include <string.h>

#include "core/errmsg.h"
#include "train/dist.h"

/* ids[i] = map[ids[i]] for the n ids >= 0. */
static void remap_ids(int32_t *ids, int64_t n, const int32_t *map) {
  for (int64_t i = 0; i < n; i++)
    if (ids[i] >= 0) ids[i] = map[ids[i]];
}

vt_status vt_dist_trainset_freeze(const vt_train_comm *c, vt_trainset *d, vt_tcorpus *train,
                                  uint32_t min_count, char *err, size_t errlen) {
  vt_status st;
  int32_t *lmap = NULL, *fmap = NULL;
  void *remap = NULL, *bigram = NULL;
  int64_t n_remap = 0, n_weights = 0;
  const int64_t n_uf = train->n_tok * train->n_u, n_bf = train->n_tok * train->n_b;
  if ((st = vt_dist_dict_merge(c, &d->labels, &lmap, err, errlen)) != VT_OK) goto done;
  remap_ids(train->gold, train->n_tok, lmap);
  if ((st = vt_dist_dict_bcast(c, &d->labels, err, errlen)) != VT_OK) goto done;
  if ((st = vt_dist_dict_merge(c, &d->feats, &fmap, err, errlen)) != VT_OK) goto done;
  remap_ids(train->ufeat, n_uf, fmap);
  remap_ids(train->bfeat, n_bf, fmap);
  if (c->rank == 0) {
    st = vt_trainset_freeze(d, train, min_count); /* rank 0's ids are already the merged ones */
    remap = d->remap;
    n_remap = st == VT_OK ? 4 * (int64_t)d->feats.n : 0;
    bigram = d->bigram;
    n_weights = st == VT_OK ? d->n_weights : 0;
  }
  if ((st = vt_dist_agree(c, st, err, errlen)) != VT_OK) goto done;
  /* The weight id of every merged feature, and which weights are bigram features. */
  if ((st = vt_dist_bcast_blob(c, &remap, &n_remap, err, errlen)) != VT_OK ||
      (st = vt_dist_bcast_blob(c, &bigram, &n_weights, err, errlen)) != VT_OK)
    goto done;
  if (c->rank != 0) {
    remap_ids(train->ufeat, n_uf, remap);
    remap_ids(train->bfeat, n_bf, remap);
    vt_featdict_free(&d->feats);
    st = vt_featdict_init(&d->feats);
    free(d->bigram);
    d->bigram = bigram;
    bigram = NULL;
    d->n_weights = (int32_t)n_weights;
    d->frozen = 1;
  }
  /* The columns of the corpus's first sentence: the first process that has one. */
  int64_t *cols = calloc((size_t)c->size, sizeof *cols);
  if (!cols) st = VT_ENOMEM;
  if ((st = vt_dist_agree(c, st, err, errlen)) != VT_OK) {
    free(cols);
    goto done;
  }
  cols[c->rank] = d->ncols;
  if (c->sum_i64(c->ctx, cols, c->size)) st = VT_EIO;
  for (int r = 0; st == VT_OK && r < c->size; r++)
    if (cols[r]) {
      d->ncols = (int32_t)cols[r];
      break;
    }
  free(cols);
done:
  if (c->rank != 0) {
    free(remap);
    free(bigram);
  }
  free(lmap);
  free(fmap);
  if (st == VT_ENOMEM)
    vt_fail_into(err, errlen, st, "training: out of memory merging the dictionaries");
  return st;
}
