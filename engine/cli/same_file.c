/* engine/cli/same_file.c: an output that is one of the inputs is refused (same_file.h). */
#define _POSIX_C_SOURCE 200809L
#include "cli/same_file.h"

#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"

/* A path that names a file to compare (not "-", the standard stream). */
static int named(const char *path) { return path && *path && strcmp(path, "-") != 0; }

/* 1 when b is the existing file whose stat is *sa. */
static int same_inode(const struct stat *sa, const char *b) {
  struct stat sb;
  return named(b) && stat(b, &sb) == 0 && sa->st_dev == sb.st_dev && sa->st_ino == sb.st_ino;
}

int vt_cli_outputs_apart(const char *cmd, const vt_cli_file *outs, int n_out,
                         const vt_cli_file *ins, int n_in) {
  for (int i = 0; i < n_out; i++) {
    const vt_cli_file *o = &outs[i];
    if (!o->path) continue;
    struct stat so;
    const int exists = named(o->path) && stat(o->path, &so) == 0;
    /* Writing to a device or a pipe destroys nothing that could be read again. */
    if (exists && !S_ISREG(so.st_mode)) continue;
    for (int j = 0; j < n_in + n_out; j++) {
      const vt_cli_file *x = j < n_in ? &ins[j] : &outs[j - n_in];
      if (x == o || !x->path) continue;
      /* Two outputs of one name ("-": both standard output), or any file that is one. */
      const int by_name = j >= n_in && !strcmp(o->path, x->path);
      if (by_name || (exists && same_inode(&so, x->path))) {
        vt_cli_error("%s: %s %s is the same file as %s %s: refused (it would be overwritten)", cmd,
                     o->what, o->path, x->what, x->path);
        return -1;
      }
    }
  }
  return 0;
}
