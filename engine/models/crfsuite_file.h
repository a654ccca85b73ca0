/* engine/models/crfsuite_file.h: CRFsuite models from files: the crf1d binary model `crfsuite
 * learn` writes (version 100; the layout of CRFsuite 0.12's crf1dmodel.c), and the
 * native file `vitesse convert --from crfsuite` writes: the same model laid out as the tagger reads
 * it (engine/text/crfs.h), in the checksummed container of io/binfile.h, mapped at load with
 * nothing to build, so it loads faster. Every offset and count is checked before use. */
#ifndef VT_MODELS_CRFSUITE_FILE_H
#define VT_MODELS_CRFSUITE_FILE_H

#include <stddef.h>

#include "text/crfs.h"

/* 1 when the first `n` bytes of a file start a crf1d model, 2 a native one, else 0. */
int vt_crfs_sniff(const unsigned char *head, size_t n);

/* Loads the crf1d or native CRFsuite model at `path` (a file or a pipe) into *out. Returns
 * VT_OK, VT_EIO (unreadable), VT_EFORMAT (not such a model, another version, truncated, corrupt)
 * or VT_ENOMEM, with one line "PATH: problem" in err. */
int vt_crfs_load(vt_crfs **out, const char *path, char *err, size_t errlen);

/* As vt_crfs_load, for the `size` bytes at `data` (copied as needed); `name` names it. */
int vt_crfs_load_mem(vt_crfs **out, const void *data, size_t size, const char *name, char *err,
                     size_t errlen);

/* Writes `m` as a native file to `path` atomically. Returns VT_OK, VT_EIO or VT_ENOMEM ("PATH:
 * problem" in err; nothing is left behind). */
int vt_crfs_write_native(const char *path, const vt_crfs *m, char *err, size_t errlen);

#endif
