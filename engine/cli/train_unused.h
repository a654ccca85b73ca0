/* engine/cli/train_unused.h: refusing the options of `vitesse train` that would do nothing with
 * the trainer and input chosen (the perceptron's over item files, L-BFGS's with ap, ...), and file
 * options given twice, so that no option is silently ignored. */
#ifndef VT_CLI_TRAIN_UNUSED_H
#define VT_CLI_TRAIN_UNUSED_H

#include <getopt.h>

#include "vitesse.h"

/* How many times each getopt code was given (codes below VT_CLI_TRAIN_CODES; saturating). */
#define VT_CLI_TRAIN_CODES 1024
typedef struct vt_cli_seen {
  unsigned char n[VT_CLI_TRAIN_CODES];
} vt_cli_seen;

/* Counts option code c (getopt_long's return) in s. */
void vt_cli_seen_add(vt_cli_seen *s, int c);

/* Checks the options seen against the run: `items` (training from --items), `algo` (the
 * algorithm, VT_TRAIN_AP already folded into the perceptron over templates); `longopts` names
 * the codes. Returns 0, or -1 after printing one line naming the option. */
int vt_cli_train_unused(const vt_cli_seen *s, int items, vt_train_algo algo,
                        const struct option *longopts);

#endif
