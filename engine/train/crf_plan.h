/* engine/train/crf_plan.h: a batch's attribute occurrences, attribute by attribute.
 *
 * The state scores and the expected state counts of a batch touch, for every occurrence of an
 * attribute, the attribute's feature range and its weights or gradient entries. Taken item by
 * item those are random accesses into tables of the whole feature set; taken attribute by
 * attribute (ids ascending), each range is read once per batch and the tables are walked in
 * order, while the random side moves to the batch's own rows (crf_fb.h), which stay in cache.
 * A plan is made once per batch when training starts (the batches never change). Occurrences
 * of value 0 are left out: they add w * 0 (a zero) to a score that starts at +0.0 and 0 * P to a
 * count, which changes no bit (python-crfsuite writes False features as value 0). */
#ifndef VT_TRAIN_CRF_PLAN_H
#define VT_TRAIN_CRF_PLAN_H

#include <stdint.h>

#include "train/crf_data.h"
#include "train/crf_fb.h"

typedef struct vt_crf_plan {
  int32_t n;     /* distinct attributes of the batch */
  int32_t *attr; /* n ids, ascending */
  int64_t *off;  /* n + 1 offsets into row and val */
  int32_t *row;  /* the occurrence's row in the batch layout (position-major) */
  double *val;   /* its value; NULL when every value of the corpus is 1 */
  int64_t *cnt;  /* n + 1 offsets: where each attribute's feature range lies in the batch's
                  * counts (vt_crf_plan_counts); cnt[n] doubles in all */
} vt_crf_plan;

/* Makes the plan of batch `b` (set by vt_crf_batch_set) over `d` and features `f`. `count` is
 * scratch of
 * d->n_attr zeroed int64s, left zeroed; `unit`: every value is 1 or 0 (the plan then holds no
 * values). Returns VT_OK or VT_ENOMEM. */
vt_status vt_crf_plan_make(vt_crf_plan *p, const vt_crf_batch *b, const vt_crf_data *d,
                           const vt_crf_feats *f, int64_t *count, int unit);

/* Frees a plan; *p becomes zeroed. */
void vt_crf_plan_free(vt_crf_plan *p);

/* The loops over a plan (the state scores and the expected counts of its batch) are the
 * kernel family crf_kern's: vt_crf_plan_scores and vt_crf_plan_counts (crf_kern.h). */

#endif
