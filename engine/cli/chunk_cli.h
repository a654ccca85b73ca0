/* engine/cli/chunk_cli.h: the joint label-chunk subcommands (Shimizu & Haas 2006). */
#ifndef VT_CLI_CHUNK_CLI_H
#define VT_CLI_CHUNK_CLI_H

/* `vitesse chunk-train` (also `vitesse train --joint-chunk`): trains a joint model. */
int vt_cmd_chunk_train(int argc, char **argv);

/* `vitesse chunk-tag` (also `vitesse tag -m JOINT_MODEL`): tags with a joint model. */
int vt_cmd_chunk_tag(int argc, char **argv);

/* Returns 1 when argv holds the flag --joint-chunk, else 0. */
int vt_chunk_cli_wants_joint(int argc, char **argv);

/* Returns 1 when argv names a model (-m M, -mM, --model M, --model=M) that is a joint model
 * file, else 0: `vitesse tag` then hands over to vt_cmd_chunk_tag. */
int vt_chunk_cli_joint_model(int argc, char **argv);

#endif
