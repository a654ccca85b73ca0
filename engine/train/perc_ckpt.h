/* engine/train/perc_ckpt.h: the averaged perceptron's checkpoint (ckpt.h): its weights with their
 * averaging accumulators and clock, and the epochs done; the shuffles of the epochs done are
 * replayed from the seed, so no order is stored. */
#ifndef VT_TRAIN_PERC_CKPT_H
#define VT_TRAIN_PERC_CKPT_H

#include <stdint.h>

#include "train/ckpt.h"
#include "train/train_weights.h"

/* Writes W after `epoch` epochs to ck (when ck is set, this process writes it and a checkpoint
 * is due after `epoch` of `epochs`; else does nothing). VT_OK or VT_EIO (message in err). */
vt_status vt_perc_ckpt_save(const vt_ckpt *ck, const vt_weights *W, int32_t epoch, int32_t epochs,
                            char *err, size_t errlen);

/* Reads ck's state into W (as vt_weights_init made it: zero, with the run's L and features) and
 * the epochs it has done into *epoch; *epoch = 0 when there is no checkpoint (or ck is NULL or
 * unset). VT_OK, VT_EINVAL (another run's), VT_EIO (damaged) or VT_ENOMEM. */
vt_status vt_perc_ckpt_load(const vt_ckpt *ck, vt_weights *W, int32_t *epoch, char *err,
                            size_t errlen);

#endif
