/* engine/chunk/chunk_corpus_file.h: reads a whole column corpus (io/conll.h) into a joint-model
 * corpus (engine/chunk/chunk_corpus.h). */
#ifndef VT_CHUNK_CHUNK_CORPUS_FILE_H
#define VT_CHUNK_CHUNK_CORPUS_FILE_H

#include <stddef.h>

#include "chunk/chunk_corpus.h"
#include "io/conll.h"

/* Appends the token sentences of `path` ("-": stdin; plain or .gz) read with `conll` (NULL:
 * the reader's defaults) to `cp`, in the dictionaries of `m`, as vt_chunk_corpus_add.
 * Returns VT_OK, VT_EIO, VT_EFORMAT ("FILE:LINE: problem" in err) or VT_ENOMEM. */
vt_status vt_chunk_corpus_read(vt_chunk_corpus *cp, vt_chunk_model *m, const char *path,
                               const vt_conll_opts *conll, const vt_chunk_read_opts *o, char *err,
                               size_t errlen);

#endif
