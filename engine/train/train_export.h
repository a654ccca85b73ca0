/* engine/train/train_export.h: turns trained weights into the model image the model file stores. */
#ifndef VT_TRAIN_TRAIN_EXPORT_H
#define VT_TRAIN_TRAIN_EXPORT_H

#include "text/textmodel.h"
#include "train/train_corpus.h"
#include "train/train_weights.h"

/* Buffers an exported image owns. */
typedef struct vt_export {
  vt_textmodel_image img;
  char *label_bytes;
  uint32_t *label_off;
  uint64_t *label_freq;
  int32_t *rank;
  uint8_t *recs;
  float *A, *S, *F;
} vt_export;

/* Fills `rank` (L entries) with the labels of `d` by decreasing training frequency, ties by
 * first appearance. */
void vt_export_rank(const vt_trainset *d, int32_t *rank);

/* Builds the image of the averaged weights `W`: labels and frequencies from `d`, template text
 * `tmpl_text`, only the non-zero averaged weights (as floats), features without any dropped.
 * Returns VT_OK, VT_EINVAL (too large for the format) or VT_ENOMEM. */
vt_status vt_export_build(vt_export *x, const vt_trainset *d, const vt_weights *W,
                          const char *tmpl_text, size_t tmpl_len, const vt_textmodel_meta *meta);

/* Frees an export; *x becomes zeroed. */
void vt_export_free(vt_export *x);

#endif
