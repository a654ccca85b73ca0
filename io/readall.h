/* io/readall.h: a whole file, or the rest of an open stream, read into memory (readall.c), for
 * inputs that can be read only once (pipes) or must be held whole (models converted in memory). */
#ifndef VT_IO_READALL_H
#define VT_IO_READALL_H

#include <stddef.h>
#include <stdio.h>

#include "vitesse.h"

/* Reads the rest of stream `f` (named `name` in messages) into *buf (*len bytes, one spare byte
 * after them; the caller frees it). Returns VT_OK, or VT_EIO / VT_ENOMEM with one line
 * "NAME: problem" in err (*buf then NULL). */
vt_status vt_read_stream(FILE *f, const char *name, char **buf, size_t *len, char *err,
                         size_t errlen);

/* As vt_read_stream, for the file `path` (opened and closed here). */
vt_status vt_read_file(const char *path, char **buf, size_t *len, char *err, size_t errlen);

#endif
