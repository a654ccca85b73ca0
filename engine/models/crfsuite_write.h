/* engine/models/crfsuite_write.h: a CRFsuite model (engine/text/crfs.h) written as the crf1d
 * file CRFsuite 0.12 writes and `crfsuite tag` reads (the layout of its crf1dmodel.c; the
 * dictionaries in cqdb_write.h).
 *
 * What is written, in CRFsuite's order of chunks: the 48-byte header (num_features 0, as
 * CRFsuite leaves it); FEAT: the state features in the model's order (grouped by attribute,
 * feature id = index in st_label / st_w), then one transition feature per label pair whose
 * weight is not +0 (row by row: previous label, then next; a missing pair scores 0 in CRFsuite,
 * so the scores stay the same, and -0 is kept so that even its sign is); the label and attribute
 * CQDB chunks (ids = the model's); LFRF: L + 2 entries (the last two 0, as CRFsuite writes
 * them), each label's transitions out of it; AFRF: each attribute's state features, in order.
 * CRFsuite sums a label's state score over an item's attributes in order and, for each, over
 * its reference list in order; transitions are read as single weights: so `crfsuite tag` gives
 * the model's scores bit for bit, and vt_crfs_load reads back the same labels, attributes,
 * state features and transitions. */
#ifndef VT_MODELS_CRFSUITE_WRITE_H
#define VT_MODELS_CRFSUITE_WRITE_H

#include <stddef.h>

#include "text/crfs.h"

/* The crf1d bytes of `m` in *data (*len bytes; the caller frees *data). `name` names the target
 * in messages (NULL: none). Returns VT_OK, VT_EINVAL (m cannot be a crf1d file: a name holding
 * a NUL byte, an attribute named twice, a file of 4 GiB or more) or VT_ENOMEM, with one line
 * "NAME: problem" in err; on failure *data is NULL. */
int vt_crfs_crf1d_bytes(const vt_crfs *m, const char *name, unsigned char **data, size_t *len,
                        char *err, size_t errlen);

/* Writes `m` as a crf1d file to `path` atomically (io/outfile.h: a temp file renamed over it).
 * Returns VT_OK, VT_EINVAL (as vt_crfs_crf1d_bytes), VT_EIO or VT_ENOMEM, with one line "PATH:
 * problem" in err; on failure nothing is left behind and an existing `path` is unchanged. */
int vt_crfs_write_crf1d(const char *path, const vt_crfs *m, char *err, size_t errlen);

#endif
