/* engine/cli/label_names.h: `vitesse decode --labels FILE`: the label names of a labels.txt (one
 * per line, label 0 first: what `vitesse lattice` writes), and a sink that prints the paths of
 * vt_engine_decode with those names instead of label numbers. */
#ifndef VT_CLI_LABEL_NAMES_H
#define VT_CLI_LABEL_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "vitesse.h"

typedef struct vt_cli_names {
  char *text;        /* the file's bytes, each name NUL-terminated in place */
  const char **name; /* name[y], y < n */
  int32_t n;
  vt_sink_fn sink; /* where the renamed lines go */
  void *sink_ctx;
  char *buf; /* one batch of renamed lines, reused */
  size_t cap;
} vt_cli_names;

/* Reads `path`: one non-empty name per line, exactly `labels` lines. Returns 0, or -1 after
 * printing "PATH:LINE: what is wrong" (or the count found against `labels`). */
int vt_cli_names_load(vt_cli_names *nm, const char *path, int32_t labels);

/* A vt_sink_fn: `ctx` is a loaded vt_cli_names whose `sink`/`sink_ctx` are set; rewrites each
 * line's fourth field (label numbers separated by spaces) with the names, keeps the fields after
 * it (--logz) as they are, then hands the batch on. A number out of range is VT_EFORMAT (it
 * cannot happen with the same lattices). */
vt_status vt_cli_names_sink(void *ctx, const char *data, size_t len);

/* Frees what vt_cli_names_load allocated (a zeroed struct is fine). */
void vt_cli_names_free(vt_cli_names *nm);

#endif
