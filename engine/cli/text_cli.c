/* engine/cli/text_cli.c: corpus options and defaults shared by train, tag, lattice and eval. */
#define _POSIX_C_SOURCE 200809L
#include "text_cli.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

int vt_cli_corpus_opt(int c, const char *arg, vt_conll_opts *o) {
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

vt_algo vt_cli_default_algo(void) {
  return vt_algo_available(VT_ALGO_STAGGERED_COL) ? VT_ALGO_STAGGERED_COL : VT_ALGO_VITERBI;
}

void vt_cli_reader_unpack(uint32_t packed, vt_conll_opts *o) {
  o->comments = (int)(packed & 1);
  o->conllu = (int)(packed >> 1 & 1);
  o->sep = (vt_conll_sep)(packed >> 2 & 3);
}

void vt_cli_reader_init(vt_cli_reader *r) {
  vt_conll_opts_init(&r->given);
  r->set = 0;
}

int vt_cli_reader_opt(vt_cli_reader *r, int c, const char *arg) {
  int h = vt_cli_corpus_opt(c, arg, &r->given);
  if (h > 0) r->set |= c == VT_OPT_SEP ? 1 : c == VT_OPT_COMMENTS ? 2 : c == VT_OPT_CONLLU ? 4 : 0;
  return h;
}

void vt_cli_reader_for_model(const vt_cli_reader *r, uint32_t packed, vt_conll_opts *o) {
  vt_conll_opts_init(o);
  vt_cli_reader_unpack(packed, o);
  if (r->set & 1) o->sep = r->given.sep;
  if (r->set & 2) o->comments = 1;
  if (r->set & 4) o->conllu = 1;
  o->max_tokens = r->given.max_tokens;
}

vt_status vt_cli_corpus_each(const char *path, const vt_conll_opts *ro, vt_cli_corpus_fn fn,
                             void *ctx, char *err, size_t errlen) {
  vt_conll *r = NULL;
  vt_sentbatch b;
  memset(&b, 0, sizeof b);
  vt_status st = vt_conll_open(&r, path, ro, err, errlen);
  while (st == VT_OK) {
    int32_t n;
    vt_sentbatch_clear(&b);
    st = vt_conll_read(r, &b, 1024, 8u << 20, &n, err, errlen);
    if (st != VT_OK || n == 0) break;
    st = fn(ctx, &b, err, errlen);
  }
  vt_conll_close(r);
  vt_sentbatch_free(&b);
  return st;
}
