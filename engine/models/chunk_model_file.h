/* engine/models/chunk_model_file.h: the joint label-chunk model's file
 * (engine/chunk/chunk_model.h).
 *
 * The container of io/binfile.h (64-byte header, 32-byte section entries, 64-byte aligned
 * sections, CRC-32 of the header and of every section, little-endian), with its own magic
 * "\x89VTCHNK\n" naming the model type, so that a reader tells the two kinds apart from the
 * first 8 bytes. Sections: META (64 bytes: c, p, collapse, max_chunk, template count, word
 * count, rows, entries), POS, CHUNKS and WORDS (u32 offsets[count + 1], then the name bytes),
 * ROWS (i64 rowptr[rows + 1]), OUTS (i32 per entry), WEIGHTS (f64 per entry). */
#ifndef VT_MODELS_CHUNK_MODEL_FILE_H
#define VT_MODELS_CHUNK_MODEL_FILE_H

#include <stddef.h>

#include "chunk/chunk_model.h"
#include "vitesse.h"

#define VT_CHUNK_MODEL_VERSION 1

/* Writes `m` to `path` atomically (io/outfile.h). Returns VT_OK, VT_EIO, VT_EINVAL (too large)
 * or VT_ENOMEM; `err` (errlen bytes) gets one line "PATH: problem" on failure. */
int vt_chunk_model_write(const char *path, const vt_chunk_model *m, char *err, size_t errlen);

/* Loads and validates `path` into *m (which the caller frees with vt_chunk_model_free, also on
 * failure). Checks the magic, version, size, every checksum, then every count, offset, index
 * and weight, so a damaged file is refused with a message, never read out of bounds.
 * Returns VT_OK, VT_EIO, VT_EFORMAT (not a joint model, another version, truncated,
 * corrupted: the message says which) or VT_ENOMEM; `err` gets "PATH: problem". */
int vt_chunk_model_load(vt_chunk_model *m, const char *path, char *err, size_t errlen);

/* Returns 1 when the first `n` bytes of a file, `head`, start a joint model file, else 0. */
int vt_chunk_model_sniff_bytes(const unsigned char *head, size_t n);

/* As vt_chunk_model_load, for the `size` bytes of a model file at `data` (copied); `name` names it
 * in messages. */
int vt_chunk_model_load_mem(vt_chunk_model *m, const void *data, size_t size, const char *name,
                            char *err, size_t errlen);

#endif
