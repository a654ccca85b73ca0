/* io/readall.h: a whole file, or the rest of an open stream, read into memory (readall.c), for
 * inputs that can be read only once (pipes) or must be held whole (models converted in memory). */
#ifndef VT_IO_READALL_H
#define VT_IO_READALL_H

#include <stddef.h>
#include <stdio.h>

#include "vitesse.h"

/* Reads the rest of stream `f` (named `name` in messages) into *buf (*len bytes and a NUL after
 * them; the caller frees it), refusing more than max_bytes (0: no bound but memory). Returns
 * VT_OK, or VT_EIO / VT_ENOMEM / VT_EFORMAT (larger than max_bytes) with one line
 * "NAME: problem" in err (*buf then NULL). */
vt_status vt_read_stream(FILE *f, const char *name, size_t max_bytes, char **buf, size_t *len,
                         char *err, size_t errlen);

/* As vt_read_stream, for the file `path` (opened and closed here; a pipe is read to its end).
 * The one way the library and its front ends (vt_file_read) read a whole file. */
vt_status vt_read_file(const char *path, size_t max_bytes, char **buf, size_t *len, char *err,
                       size_t errlen);

#endif
