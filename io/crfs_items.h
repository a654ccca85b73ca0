/* io/crfs_items.h: streaming reader of CRFsuite item files (plain, .gz, standard input) for
 * the CRFsuite tagging job: it cuts the input into whole sequences, as `crfsuite tag` does: one
 * item a line, a line that is exactly empty ends a sequence (a line of blanks or a lone '\r' is
 * an item, as in CRFsuite), runs of empty lines end one sequence, a missing final newline is
 * accepted. Items are parsed later, by the workers (engine/text/crfs.h). */
#ifndef VT_IO_CRFS_ITEMS_H
#define VT_IO_CRFS_ITEMS_H

#include <stddef.h>
#include <stdint.h>

#include "vitesse.h"

typedef struct vt_items vt_items;

/* A mapped item file, shared by its reader and by the batches whose items lie in it. */
typedef struct vt_items_map vt_items_map;

/* A batch of whole sequences: item i is the line of lens[i] bytes at src + at[i] (no '\n' in
 * it), in file order, with per sequence its item count and the line number of its first item.
 * The batch's bytes are src[from, len), blank lines included. Read from gzip or standard input,
 * src is text (cap bytes of the batch's own memory), which the reader wrote there directly, and
 * from is 0. From a mapped plain file (map) or from memory, src is the input itself, where the
 * items lie: nothing is copied. */
typedef struct vt_items_batch {
  const char *src;
  size_t from, len;
  char *text;
  size_t cap;
  vt_items_map *map; /* the mapping src lies in, held until the batch is read again or freed */
  int32_t *n_items;  /* per sequence */
  uint64_t *line0;   /* per sequence */
  int32_t n_seq, cap_seq;
  int64_t items;
  size_t *lens; /* per item, in text order (cap_items) */
  size_t *at;   /* per item: its line's offset in src (cap_items) */
  int64_t cap_items;
  const char *file; /* the file they come from ("-": standard input) */
} vt_items_batch;

/* Opens `path` ("-" or NULL: standard input; gzip inflated). A plain regular file is mapped, not
 * read into memory: its batches' items lie where the page cache holds them, and the pages far
 * behind the reader are dropped from the process as it goes (a batch that still reads them gets
 * them back from the file), so that it holds a megabyte or two of the file. Like any mapped file,
 * it must not shrink while it is read. Lines longer than max_line bytes (0: 1 MiB) and sequences of
 * more than max_items items (0: 10000) are errors. Returns VT_OK, VT_EIO (message "PATH: problem"
 * in err) or VT_ENOMEM. */
vt_status vt_items_open(vt_items **out, const char *path, int32_t max_line, int32_t max_items,
                        char *err, size_t errlen);

/* Opens `len` bytes at `data` (not copied: valid until vt_items_close and while a batch read from
 * it is in use; never written) as the item file `name` ("-" when NULL), whose first line follows
 * `first_line` lines of that file (messages count lines from there); limits as vt_items_open.
 * Returns VT_OK or VT_ENOMEM. */
vt_status vt_items_open_mem(vt_items **out, const char *name, const char *data, size_t len,
                            uint64_t first_line, int32_t max_line, int32_t max_items, char *err,
                            size_t errlen);

/* Empties `b` and fills it with the next sequences, until it holds about `max_bytes` bytes or
 * the file ends; b->n_seq 0 means the end. Returns VT_OK, VT_EFORMAT ("FILE:LINE: problem"),
 * VT_EIO or VT_ENOMEM. */
vt_status vt_items_read(vt_items *r, vt_items_batch *b, size_t max_bytes, char *err, size_t errlen);

/* Bytes consumed from the file and in *size its size (-1: not a regular file; memory: its
 * length). */
int64_t vt_items_offset(const vt_items *r, int64_t *size);

/* Where the reader is, to resume there later: the bytes of the input consumed so far (inflated
 * bytes for gzip), and in *lines the lines consumed. */
int64_t vt_items_where(const vt_items *r, uint64_t *lines);

/* Puts a reader just opened by vt_items_open, before any read, where vt_items_where said an
 * earlier reader of the same input was: `offset` bytes in (a plain file seeks, gzip input is
 * inflated and skipped), after `lines` lines. Returns VT_OK, or VT_EIO (message in `err`). */
vt_status vt_items_skip(vt_items *r, int64_t offset, uint64_t lines, char *err, size_t errlen);

/* Closes the reader; NULL is a no-op. A mapped file stays mapped while a batch holds it. Frees a
 * batch's memory and lets go of its mapping (zeroing it). */
void vt_items_close(vt_items *r);
void vt_items_batch_free(vt_items_batch *b);

#endif
