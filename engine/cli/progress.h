/* engine/cli/progress.h: the progress line of a batch command on a terminal (progress.c). */
#ifndef VT_CLI_PROGRESS_H
#define VT_CLI_PROGRESS_H

#include <stdint.h>

#include "vitesse.h"

typedef struct vt_cli_progress {
  int enabled;         /* stderr is a terminal and not --quiet */
  int64_t total_items; /* for the ETA; 0 = unknown */
  const char *unit;    /* "sentences" */
  int shown;           /* a line is on the terminal */
} vt_cli_progress;

/* Prepares the progress line: enabled only when stderr is a terminal and `quiet` is 0. */
void vt_cli_progress_init(vt_cli_progress *pg, int quiet, int64_t total_items);

/* Redraws the line from `p` (items done, tokens/s, elapsed, ETA); the final call erases it. A
 * vt_engine_opts progress callback (ctx: the vt_cli_progress). */
void vt_cli_progress_show(void *ctx, const vt_progress *p);

#endif
