/* engine/cli/train_optcodes.h: the getopt_long codes of `vitesse train`'s own options, shared by
 * its parser (train_setup.c) and the check of options that would do nothing (train_unused.c). */
#ifndef VT_CLI_TRAIN_OPTCODES_H
#define VT_CLI_TRAIN_OPTCODES_H

/* The getopt_long codes of `vitesse train`'s own options (below the CRF and corpus options'). */
enum {
  VT_TRAIN_OPT_TEMPLATE = 256,
  VT_TRAIN_OPT_TRAIN,
  VT_TRAIN_OPT_DEV,
  VT_TRAIN_OPT_EPOCHS,
  VT_TRAIN_OPT_DECODER,
  VT_TRAIN_OPT_SEED,
  VT_TRAIN_OPT_LABEL,
  VT_TRAIN_OPT_MINCOUNT,
  VT_TRAIN_OPT_QUIET,
  VT_TRAIN_OPT_SHARDS,
  VT_TRAIN_OPT_THREADS,
  VT_TRAIN_OPT_MINIBATCH,
  VT_TRAIN_OPT_CHECKPOINT,
  VT_TRAIN_OPT_CHECKPOINT_EVERY,
  VT_TRAIN_OPT_PROGRESS
};

#endif
