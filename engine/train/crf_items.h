/* engine/train/crf_items.h: CRFsuite item files compiled into a CRF training problem
 * (crf_data.h): label and attribute names to ids, every item's attributes and values.
 *
 * The format is `crfsuite learn`'s: one item a line, the label then the attributes, separated by
 * tabs; NAME:VALUE scales an attribute (escapes \: and \\); an empty line ends a sequence. */
#ifndef VT_TRAIN_CRF_ITEMS_H
#define VT_TRAIN_CRF_ITEMS_H

#include <stdint.h>

#include "io/crfs_items.h"
#include "text/featdict.h"
#include "train/crf_data.h"

/* The names behind the ids: shared by the training and the development data. */
typedef struct vt_crf_names {
  vt_featdict labels, attrs;
} vt_crf_names;

/* Empty dictionaries. Returns VT_OK or VT_ENOMEM. */
vt_status vt_crf_names_init(vt_crf_names *n);
void vt_crf_names_free(vt_crf_names *n);

/* Appends every sequence of reader `r` to `d` (zeroed or filled by an earlier call; d->L and
 * d->n_attr follow the dictionaries). With `frozen`, names are only looked up: an unknown
 * attribute is dropped and an unknown label gets id -1 (development data); with frozen 2, the
 * attributes so and the labels added (crfsuite learn's holdout); else both are added.
 * Refuses a NUL byte, a line ending in CR (a CRLF file), an empty label, a label holding a
 * control byte (vt_label_control), a value that is not a finite number (an empty one after
 * ':' included), and more than INT32_MAX names or items. Returns VT_OK, VT_EFORMAT or VT_EIO
 * ("FILE:LINE: problem" in err), or VT_ENOMEM. */
vt_status vt_crf_items_compile(vt_crf_names *n, int frozen, vt_crf_data *d, vt_items *r, char *err,
                               size_t errlen);

#endif
