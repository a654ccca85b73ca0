/* io/outfile.h: an output file that appears atomically, or not at all.
 *
 * vt_outfile_open creates a temp file `.NAME.tmp.XXXXXX` in the directory of the target path;
 * the caller writes to `fp`; vt_outfile_commit closes it and renames it over the target;
 * vt_outfile_abort (any failure path) closes and unlinks it. A reader of the target path thus
 * sees either its old content or the complete new file, never a partial one. */
#ifndef VT_IO_OUTFILE_H
#define VT_IO_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

#include "vitesse.h"

typedef struct vt_outfile {
  FILE *fp;   /* where to write; stdout when the target is stdout; NULL once closed */
  char *path; /* target path (owned; a symbolic link resolved), NULL for stdout */
  char *tmp;  /* temp file path (owned), NULL for stdout and direct targets */
  int direct; /* the target is no regular file (a device, a FIFO): written in place */
} vt_outfile;

/* Opens an atomic output file for `path`. NULL or "-" means stdout (no temp file; commit only
 * flushes it, abort does nothing). A target that exists and is not a regular file (/dev/null,
 * a terminal, a FIFO) is written in place, never replaced; a symbolic link is followed, and the
 * file it points to is replaced atomically (the link stays). Otherwise creates the temp file with
 * mkstemp in the same directory and sets its mode to 0666 & ~umask, as fopen would (reading the
 * umask briefly sets it: not to be called while another thread creates files). Returns VT_OK,
 * VT_EIO (temp file cannot be created; `err` says why), VT_EINVAL (`path` names no file, e.g. ends
 * in '/') or VT_ENOMEM. On failure *of is zeroed and nothing is left behind. `err` (errlen bytes,
 * may be 0) receives one line "PATH: problem", always NUL-terminated. */
int vt_outfile_open(vt_outfile *of, const char *path, char *err, size_t errlen);

/* Checks early that vt_outfile_open(path) would succeed, before a long computation whose
 * result goes there: creates and removes the temp file. A target that exists and is neither a
 * regular file nor a directory (a device, a FIFO) is not opened (VT_OK); an existing directory
 * is VT_EIO ("PATH: is a directory"). Returns as vt_outfile_open, leaving nothing behind. */
int vt_outfile_probe(const char *path, char *err, size_t errlen);

/* Flushes and closes the temp file (checking every write error, ENOSPC included) and renames it
 * over the target path. Returns VT_OK, or VT_EIO with a message in `err`; on failure the temp
 * file is unlinked. Either way *of is released (a later abort is a no-op). */
int vt_outfile_commit(vt_outfile *of, char *err, size_t errlen);

/* Closes and unlinks the temp file and releases *of. A no-op after commit, after a previous
 * abort, on a zeroed struct and for stdout. */
void vt_outfile_abort(vt_outfile *of);

/* Syncs the folder that holds `path` (fsync of the folder), so that a name just made or renamed
 * in it survives a crash. Failures are ignored (a folder that cannot be opened or synced). */
void vt_dir_sync(const char *path);

#endif
