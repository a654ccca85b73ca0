/* engine/cli/chunk_cli.h: the joint label-chunk subcommands (Shimizu & Haas 2006). */
#ifndef VT_CLI_CHUNK_CLI_H
#define VT_CLI_CHUNK_CLI_H

#include "vitesse.h"

/* `vitesse chunk-train` (also `vitesse train --joint-chunk`): trains a joint model. */
int vt_cmd_chunk_train(int argc, char **argv);

/* `vitesse chunk-tag` (also `vitesse tag -m JOINT_MODEL`): tags with a joint model. */
int vt_cmd_chunk_tag(int argc, char **argv);

/* vt_cmd_chunk_tag with the model of -m already open (`pre`, owned from here on; NULL: open
 * it from -m). */
int vt_cli_chunk_tag_with(int argc, char **argv, vt_model *pre);

/* Returns 1 when argv holds the flag --joint-chunk, else 0. */
int vt_chunk_cli_wants_joint(int argc, char **argv);

/* Returns 1 when argv names a model (-m M, -mM, --model M, --model=M) that is a joint model
 * file, else 0: `vitesse tag` then hands over to vt_cli_chunk_tag_with. A model that can be
 * read only once (a pipe, /dev/stdin) is opened here, into *pre, to learn its kind; -1 when that
 * fails (message printed). */
int vt_chunk_cli_joint_model(int argc, char **argv, vt_model **pre);

#endif
