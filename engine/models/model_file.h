/* engine/models/model_file.h: the binary model file: written once by `vitesse train`, mapped
 * read-only by `vitesse tag` and shared by all threads.
 *
 * The container of io/binfile.h (64-byte header, 32-byte section entries, 64-byte aligned
 * sections, CRC-32 of the header and of every section, little-endian) with magic
 * "\x89VTMODL\n" and version 1. Sections: META (fixed 128 bytes), LABELS (u64 frequencies, i32
 * rank, u32 name offsets, name bytes), TEMPLATES (the template file's text), FEATURES (records,
 * engine/text/textmodel.h), HASH (u32 slots), TRANS (f32 A[L*L], S[L], F[L]).
 * Loading checks the magic, version, size, every checksum, then every offset, index and value
 * (so a damaged file is refused with a message, never read out of bounds). */
#ifndef VT_MODELS_MODEL_FILE_H
#define VT_MODELS_MODEL_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "text/textmodel.h"
#include "vitesse.h"

#define VT_MODEL_VERSION 1

/* Writes `img` to `path` atomically (io/outfile.h). Returns VT_OK, VT_EIO, VT_EINVAL (too
 * large) or VT_ENOMEM; `err` (errlen bytes) gets one line "PATH: problem" on failure. */
int vt_textmodel_write(const char *path, const vt_textmodel_image *img, char *err, size_t errlen);

/* Writes loaded model `m` to `path` as vt_textmodel_write does (the same records, templates,
 * labels; transitions as float32, as loaded). Returns as vt_textmodel_write. */
int vt_textmodel_save(const vt_textmodel *m, const char *path, char *err, size_t errlen);

/* Returns 1 when the first `n` bytes of a file, `head`, start a tagger model file, else 0. */
int vt_textmodel_sniff(const unsigned char *head, size_t n);

/* Loads and validates the model file `path` (mapped read-only; read into memory when it cannot
 * be mapped) and binds its transition model. Returns VT_OK, VT_EIO, VT_EFORMAT (not a model,
 * another version, truncated, corrupted: the message says which), or VT_ENOMEM. On failure
 * *out is NULL and `err` holds one line "PATH: problem". */
int vt_textmodel_load(vt_textmodel **out, const char *path, char *err, size_t errlen);

/* As vt_textmodel_load, for the `size` bytes of a model file at `data` (copied); `name` names it in
 * messages. */
int vt_textmodel_load_mem(vt_textmodel **out, const void *data, size_t size, const char *name,
                          char *err, size_t errlen);

/* The model `img` describes, as vt_textmodel_write then vt_textmodel_load would give it (the
 * same checks), laid out in memory once and without the file's checksums: for a model built in
 * this process (a converted peer model); `name` names it in messages. Returns as
 * vt_textmodel_load, or VT_EINVAL when the image is too large for a model file. */
int vt_textmodel_from_image(vt_textmodel **out, const vt_textmodel_image *img, const char *name,
                            char *err, size_t errlen);

#endif
