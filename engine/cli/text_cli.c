/* engine/cli/text_cli.c: corpus options and defaults shared by train, tag, lattice and eval. */
#define _POSIX_C_SOURCE 200809L
#include "cli/text_cli.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/cli.h"

int vt_cli_corpus_opt(int c, const char *arg, vt_reader_opts *o) {
  long long v;
  switch (c) {
  case VT_OPT_SEP:
    if (!strcmp(arg, "tab"))
      o->sep = VT_SEP_TAB;
    else if (!strcmp(arg, "space"))
      o->sep = VT_SEP_SPACE;
    else if (!strcmp(arg, "auto"))
      o->sep = VT_SEP_AUTO;
    else {
      vt_cli_error("--sep: expected tab, space or auto, got '%s'", arg);
      return -1;
    }
    return 1;
  case VT_OPT_COMMENTS: o->comments = 1; return 1;
  case VT_OPT_CONLLU: o->conllu = 1; return 1;
  case VT_OPT_MAX_TOKENS:
    if (vt_cli_parse_int(arg, 1, 100000000, &v)) {
      vt_cli_error("--max-tokens: expected a positive integer, got '%s'", arg);
      return -1;
    }
    o->max_tokens = (int32_t)v;
    return 1;
  case VT_OPT_MAX_LINE_BYTES:
    if (vt_cli_parse_int(arg, 1, INT32_MAX, &v)) {
      vt_cli_error("--max-line-bytes: expected a positive integer, got '%s'", arg);
      return -1;
    }
    o->max_line_bytes = (int32_t)v;
    return 1;
  default: return 0;
  }
}

int vt_cli_parse_col(const char *s, int32_t *col) {
  static const char *const names[] = {"ID",    "FORM", "LEMMA",  "UPOS", "XPOS",
                                      "FEATS", "HEAD", "DEPREL", "DEPS", "MISC"};
  long long v;
  if (!strcasecmp(s, "last")) {
    *col = -1;
    return 0;
  }
  for (int i = 0; i < 10; i++)
    if (!strcasecmp(s, names[i])) {
      *col = i;
      return 0;
    }
  if (vt_cli_parse_int(s, 0, 1000000, &v)) return -1;
  *col = (int32_t)v;
  return 0;
}

void vt_cli_reader_init(vt_cli_reader *r) {
  vt_reader_opts_init(&r->given);
  r->set = 0;
}

int vt_cli_reader_opt(vt_cli_reader *r, int c, const char *arg) {
  int h = vt_cli_corpus_opt(c, arg, &r->given);
  if (h > 0) r->set |= c == VT_OPT_SEP ? 1 : c == VT_OPT_COMMENTS ? 2 : c == VT_OPT_CONLLU ? 4 : 0;
  return h;
}
