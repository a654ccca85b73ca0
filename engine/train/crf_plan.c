/* engine/train/crf_plan.c: a batch's occurrences attribute by attribute (crf_plan.h). */
#include "train/crf_plan.h"

#include <stdlib.h>
#include <string.h>

void vt_crf_plan_free(vt_crf_plan *p) {
  free(p->attr);
  free(p->off);
  free(p->row);
  free(p->val);
  free(p->cnt);
  memset(p, 0, sizeof *p);
}

static int cmp_i32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

vt_status vt_crf_plan_make(vt_crf_plan *p, const vt_crf_batch *b, const vt_crf_data *d,
                           const vt_crf_feats *f, int64_t *count, int unit) {
  memset(p, 0, sizeof *p);
  int64_t n_occ = 0;
  int32_t n = 0;
  for (int32_t t = 0; t < b->Tmax; t++)
    for (int32_t k = 0; k < b->n_at[t]; k++) {
      const int64_t tok = d->sent_off[b->sent[k]] + t;
      n_occ += d->tok_off[tok + 1] - d->tok_off[tok];
    }
  p->attr = malloc((size_t)(n_occ ? n_occ : 1) * sizeof *p->attr);
  p->row = malloc((size_t)(n_occ ? n_occ : 1) * sizeof *p->row);
  if (!unit) p->val = malloc((size_t)(n_occ ? n_occ : 1) * sizeof *p->val);
  if (!p->attr || !p->row || (!unit && !p->val)) goto nomem;
  /* The distinct attributes and their counts (count[] holds them, then their cursors). */
  for (int32_t t = 0; t < b->Tmax; t++)
    for (int32_t k = 0; k < b->n_at[t]; k++) {
      const int64_t tok = d->sent_off[b->sent[k]] + t;
      for (int64_t i = d->tok_off[tok]; i < d->tok_off[tok + 1]; i++)
        if (vt_crf_val(d, i) != 0.0 && count[d->attr[i]]++ == 0) p->attr[n++] = d->attr[i];
    }
  qsort(p->attr, (size_t)n, sizeof *p->attr, cmp_i32);
  p->n = n;
  p->off = malloc(((size_t)n + 1) * sizeof *p->off);
  p->cnt = malloc(((size_t)n + 1) * sizeof *p->cnt);
  if (!p->off || !p->cnt) goto nomem;
  p->off[0] = 0;
  p->cnt[0] = 0;
  for (int32_t j = 0; j < n; j++) {
    p->cnt[j + 1] = p->cnt[j] + f->st_off[p->attr[j] + 1] - f->st_off[p->attr[j]];
    p->off[j + 1] = p->off[j] + count[p->attr[j]];
    count[p->attr[j]] = p->off[j]; /* now the cursor */
  }
  for (int32_t t = 0; t < b->Tmax; t++)
    for (int32_t k = 0; k < b->n_at[t]; k++) {
      const int64_t tok = d->sent_off[b->sent[k]] + t;
      for (int64_t i = d->tok_off[tok]; i < d->tok_off[tok + 1]; i++) {
        if (vt_crf_val(d, i) == 0.0) continue;
        const int64_t c = count[d->attr[i]]++;
        p->row[c] = (int32_t)(b->off_at[t] + k);
        if (p->val) p->val[c] = vt_crf_val(d, i);
      }
    }
  for (int32_t j = 0; j < n; j++) count[p->attr[j]] = 0;
  int32_t *shrunk = realloc(p->attr, ((size_t)n ? (size_t)n : 1) * sizeof *p->attr);
  if (shrunk) p->attr = shrunk;
  return VT_OK;
nomem:
  vt_crf_plan_free(p);
  return VT_ENOMEM;
}
