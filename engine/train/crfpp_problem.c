/* engine/train/crfpp_problem.c: crf_learn's weight ids for a compiled corpus
 * (crfpp_problem.h). */
#include "train/crfpp_problem.h"

#include <stdlib.h>
#include <string.h>

#include "models/crfpp_write.h"

/* Gives weight id a (bigram or not) the next CRF++ id, unless it has one. */
static void id_give(const vt_trainset *d, int32_t a, int64_t wU, int64_t wB, int32_t *ids,
                    int64_t *next) {
  if (a < 0 || ids[a] >= 0) return;
  ids[a] = *next > INT32_MAX ? INT32_MAX : (int32_t)*next;
  *next += d->bigram[a] ? wB : wU;
}

vt_status vt_crfpp_ids(const vt_trainset *d, const vt_tcorpus *c, int32_t L, int32_t freq,
                       int32_t *ids, int64_t *maxid) {
  const int32_t n = d->n_weights;
  const int64_t wU = L, wB = (int64_t)L * L;
  int64_t next = 0;
  for (int32_t a = 0; a < n; a++) ids[a] = -1;
  if (freq <= 1) { /* crf_learn's order of first appearance */
    for (int64_t s = 0; s < c->n_sent; s++) {
      const int64_t t0 = c->sent_off[s], t1 = c->sent_off[s + 1];
      for (int64_t t = t0; t < t1; t++)
        for (int32_t k = 0; k < c->n_u; k++)
          id_give(d, c->ufeat[t * c->n_u + k], wU, wB, ids, &next);
      for (int64_t t = t0 + 1; t < t1; t++)
        for (int32_t k = 0; k < c->n_b; k++)
          id_give(d, c->bfeat[t * c->n_b + k], wU, wB, ids, &next);
    }
  } else { /* after crf_learn's shrink: the order of the sorted strings */
    char **keys = malloc((size_t)(n ? n : 1) * sizeof *keys);
    size_t *lens = malloc((size_t)(n ? n : 1) * sizeof *lens);
    int32_t *who = malloc((size_t)(n ? n : 1) * sizeof *who);
    int bad = !keys || !lens || !who;
    for (int32_t a = 0; !bad && a < n; a++) {
      keys[a] = (char *)vt_featdict_str(&d->feats, d->dict_of[a], &lens[a]);
      who[a] = a;
    }
    bad = bad || vt_crfpp_keys_sort(keys, lens, who, n);
    for (int32_t k = 0; !bad && k < n; k++) id_give(d, who[k], wU, wB, ids, &next);
    free(keys);
    free(lens);
    free(who);
    if (bad) return VT_ENOMEM;
  }
  *maxid = next;
  return next > INT32_MAX ? VT_EINVAL : VT_OK;
}

void vt_crfpp_problem_from(vt_crfpp_problem *p, vt_tcorpus *c, const int32_t *ids, int32_t L,
                           int64_t maxid) {
  for (int64_t i = 0; i < c->n_tok * c->n_u; i++)
    if (c->ufeat[i] >= 0) c->ufeat[i] = ids[c->ufeat[i]];
  for (int64_t s = 0; s < c->n_sent; s++) /* a sentence's first row of bigrams is unused */
    for (int32_t k = 0; k < c->n_b; k++) c->bfeat[c->sent_off[s] * c->n_b + k] = -1;
  for (int64_t i = 0; i < c->n_tok * c->n_b; i++)
    if (c->bfeat[i] >= 0) c->bfeat[i] = ids[c->bfeat[i]];
  memset(p, 0, sizeof *p);
  p->L = L;
  p->n_sent = c->n_sent;
  p->n_tok = c->n_tok;
  p->sent_off = c->sent_off;
  p->gold = c->gold;
  p->n_u = c->n_u;
  p->n_b = c->n_b;
  p->ufeat = c->ufeat;
  p->bfeat = c->bfeat;
  p->n = maxid;
  p->max_T = c->max_T;
}
