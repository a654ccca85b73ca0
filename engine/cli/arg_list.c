/* engine/cli/arg_list.c: a command line parsed once into a list of options (arg_list.h). */
#include <stdlib.h>
#include <string.h>

#include "cli/arg_list.h"
#include "cli/cli.h"

int vt_cli_arg_list_parse(vt_cli_arg_list *a, int argc, char **argv, const char *shortopts,
                          const struct option *longopts) {
  memset(a, 0, sizeof *a);
  a->v = calloc((size_t)argc + 1, sizeof *a->v); /* at most one option a word */
  if (!a->v) {
    vt_cli_error("out of memory");
    return -1;
  }
  optind = 1;
  int c, li;
  while (li = -1, (c = getopt_long(argc, argv, shortopts, longopts, &li)) != -1) {
    vt_cli_arg *o = &a->v[a->n++];
    o->code = c;
    o->value = optarg;
    o->word = argv[optind - 1];
    o->optopt = optopt;
    o->is_long = li >= 0;
    o->name = o->word;
    if (o->is_long && optarg && optarg == argv[optind - 1] && optind >= 2)
      o->name = argv[optind - 2]; /* "--opt VALUE" */
  }
  a->files = (const char *const *)argv + optind;
  a->n_files = argc - optind;
  return 0;
}

/* 1 when the command's options hold `code`. */
static int known(int code, const char *shortopts, const struct option *longopts) {
  if (code > 0 && code < 256 && code != ':' && strchr(shortopts, code)) return 1;
  for (const struct option *o = longopts; o->name; o++)
    if (o->val == code && !o->flag) return 1;
  return 0;
}

void vt_cli_arg_refuse(const char *cmd, const char *shortopts, const struct option *longopts,
                       const vt_cli_arg *a) {
  int opt = a->optopt;
  const char *word = a->word;
  if (a->code == '?') { /* refused by the parse: a value missing of an option cmd lacks? */
    if (opt && !known(opt, shortopts, longopts) && word[0] == '-' && word[1] == '-') opt = 0;
  } else if (!known(a->code, shortopts, longopts)) { /* an option of another command */
    opt = a->is_long ? 0 : a->code;
    word = a->is_long ? a->name : "-";
  }
  vt_cli_option_refused(cmd, shortopts, opt, word);
}

void vt_cli_arg_list_free(vt_cli_arg_list *a) {
  free(a->v);
  memset(a, 0, sizeof *a);
}
