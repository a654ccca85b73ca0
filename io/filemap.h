/* io/filemap.h: a whole file in memory, read only: a regular file mapped (MAP_PRIVATE, so that
 * the page cache is used where it lies, with no copy), anything else (a pipe, a character
 * device) read into 64-byte aligned heap memory. Model loaders read their files through here. */
#ifndef VT_IO_FILEMAP_H
#define VT_IO_FILEMAP_H

#include <stddef.h>

#include "vitesse.h"

typedef struct vt_filemap {
  void *p; /* len bytes; not NULL once opened (an empty file is an empty heap block) */
  size_t len;
  int heap; /* 1: p is heap memory (free), 0: a mapping (munmap) */
} vt_filemap;

/* Opens `path` into *m. Returns VT_OK, or VT_EIO / VT_ENOMEM with one line "PATH: problem" in
 * err (cannot open, cannot stat, is a directory, cannot read); *m is then zeroed. */
vt_status vt_filemap_open(vt_filemap *m, const char *path, char *err, size_t errlen);

/* Drops from memory the whole pages inside [p, p + n) of mapping m, a part its owner no longer
 * reads: they come back from the file, unchanged, if it is read again. A no-op for heap memory
 * (whose pages would come back zeroed). */
void vt_filemap_drop(const vt_filemap *m, const void *p, size_t n);

/* Unmaps or frees the file and zeroes *m. A no-op on a zeroed struct. */
void vt_filemap_close(vt_filemap *m);

/* Whether `path` names a regular file that does not start with gzip's magic (1f 8b): an input
 * read from the page cache with no decompression (an empty file is one). 0 otherwise, or when
 * it cannot be opened (its reader then says why). */
int vt_file_is_plain(const char *path);

/* A streamed input (an item file) mapped: the plain file open at fd, of `size` bytes,
 * mapped read only (MAP_PRIVATE; munmap it), or NULL when it is not a regular file (size < 0),
 * is empty, is gzip (its first bytes 1f 8b) or cannot be mapped: the caller then reads it. fd
 * stays open. */
char *vt_filemap_plain(int fd, int64_t size);

/* A mapped input read front to back, pages dropped behind the reader: given the mapping at p,
 * the offset below which its pages are dropped and the reader's offset `at`, drops the pages
 * more than 1 MB behind `at` once they make 1 MB more, and returns the new offset. The process
 * then holds at most about 2 MB of the file (a 45 MB input: 1.9 MB less peak memory than with
 * 2 MB steps), in a drop a megabyte (each one stops the other threads for a moment: one per
 * 256 KB batch cost more than the mapping saved). A reader still behind gets a dropped page back
 * from the file as it was. */
size_t vt_filemap_drop_behind(char *p, size_t dropped, size_t at);

#endif
