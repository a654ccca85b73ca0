/* engine/cli/tag_resume.h: `vitesse tag ... -o OUT --resume`: a tagging run that keeps its
 * progress durably beside OUT (OUT.partial, the output so far, and OUT.progress, the run's
 * identity and the place in the input after the last whole sentence made durable), so that the
 * same command run again after a kill continues there and OUT ends as the same bytes an
 * uninterrupted run writes (tag_resume.c). */
#ifndef VT_CLI_TAG_RESUME_H
#define VT_CLI_TAG_RESUME_H

#include "cli/tag_drive.h"

/* Runs `r` (the commands call it instead of vt_cli_tag_drive when --resume is given) resumably:
 * refuses standard input, an output on stdout, a filter (-t, -q) or joint --eval, and a progress
 * file of another input, model or options (one line each, exit 2); else starts or continues the
 * run, makes its place durable about every VITESSE_RESUME_INTERVAL seconds (default 2), and at the
 * end renames OUT.partial to OUT and removes OUT.progress. A cancel (SIGINT, SIGTERM) keeps both,
 * made durable up to the last sentence written. Returns the exit status, as vt_cli_tag_drive. */
int vt_cli_tag_resume_drive(const vt_cli_tag_run *r);

#endif
