/* engine/cli/same_file.h: refusing a run whose output file is one of its inputs (the same file
 * by st_dev and st_ino, whatever its name), before anything is opened for writing. */
#ifndef VT_CLI_SAME_FILE_H
#define VT_CLI_SAME_FILE_H

/* A file a command names: its path (NULL or "-": none, or a standard stream) and the option
 * that named it ("--log", "-o", "--items", "the corpus"...). */
typedef struct vt_cli_file {
  const char *path;
  const char *what;
} vt_cli_file;

/* Checks that no output of outs[0..n_out) is one of ins[0..n_in) or another output: an output
 * that exists as the same file (device and inode) as an input, or two outputs of one name or
 * one file. Returns 0, or -1 after printing one line "CMD: OPT PATH is the file of OPT PATH
 * ...". Nothing is opened for writing. */
int vt_cli_outputs_apart(const char *cmd, const vt_cli_file *outs, int n_out,
                         const vt_cli_file *ins, int n_in);

#endif
