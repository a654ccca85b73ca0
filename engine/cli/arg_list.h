/* engine/cli/arg_list.h: a command line parsed once by getopt_long into a list of options, which
 * a command then applies as it likes: `vitesse tag` parses every option a tagger's or a joint
 * model's run takes, opens the model, and applies them as that model takes them. */
#ifndef VT_CLI_ARG_LIST_H
#define VT_CLI_ARG_LIST_H

#include <getopt.h>

/* One option as getopt_long returned it. */
typedef struct vt_cli_arg {
  int code;          /* getopt_long's return: a short option, a long option's val, or '?' */
  const char *value; /* its value (optarg), or NULL */
  const char *word;  /* argv[optind - 1] then (messages name it) */
  const char *name;  /* the word that named it ("--max-chunk", "--eval=1", "-v") */
  int optopt;        /* getopt's optopt then */
  int is_long;       /* 1: given by a long name */
} vt_cli_arg;

typedef struct vt_cli_arg_list {
  vt_cli_arg *v; /* the options in the order given (n) */
  int n;
  const char *const *files; /* the operands, after the options (n_files) */
  int n_files;
} vt_cli_arg_list;

/* Parses argv (argv[0] is the command's name) with `shortopts` and `longopts` into `a`, keeping
 * every option, refused ones ('?') too, for the command to apply in order. Returns 0, or -1
 * when out of memory (message printed). Free with vt_cli_arg_list_free. */
int vt_cli_arg_list_parse(vt_cli_arg_list *a, int argc, char **argv, const char *shortopts,
                          const struct option *longopts);

/* Reports option `a`, which command `cmd` (its options `shortopts` and `longopts`) does not take
 * or takes no value of, as vt_cli_bad_option would have reported it had the command parsed argv
 * with its own options: "CMD: unknown option '-x' (...)" or "CMD: option '--x' needs a value". */
void vt_cli_arg_refuse(const char *cmd, const char *shortopts, const struct option *longopts,
                       const vt_cli_arg *a);

void vt_cli_arg_list_free(vt_cli_arg_list *a);

#endif
