/* engine/cli/run_id.h: what identifies a run's inputs, so that a run continued after a kill
 * (tag --resume, train --checkpoint) can tell its own saved state from another run's: a file's
 * size, modification time and a hash of its head and tail (run_id.c). */
#ifndef VT_CLI_RUN_ID_H
#define VT_CLI_RUN_ID_H

#include <stddef.h>

#include "cli/same_file.h"

/* A file's identity. */
typedef struct vt_cli_file_id {
  long long size, mtime_ns;
  unsigned long long hash; /* FNV-1a of its first and last 64 KiB */
} vt_cli_file_id;

/* The identity of `path` into *id; -1 when it cannot be read or is not a regular file. */
int vt_cli_file_id_of(const char *path, vt_cli_file_id *id);

/* Appends printf(fmt, ...) to the growing string *s (NULL at first, *len 0); -1 when out of
 * memory. */
int vt_cli_strput(char **s, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The identity line of a run's input files, "inputs OPT=SIZE:MTIME_NS:HASH ..." (files[i].what
 * is the option, unset paths skipped), malloc'd, for a run continued from a checkpoint
 * (vt_train_opts.checkpoint_id). NULL after printing one line "CMD: ...": standard input (it
 * cannot be read again), a file that is not a regular file, no memory. */
char *vt_cli_inputs_id(const char *cmd, const vt_cli_file *files, int n);

#endif
