/* engine/chunk/chunk_corpus_file.c: a whole column corpus into a joint-model corpus (see
 * chunk_corpus_file.h). */
#include "chunk/chunk_corpus_file.h"

#include <string.h>

vt_status vt_chunk_corpus_read(vt_chunk_corpus *cp, vt_chunk_model *m, const char *path,
                               const vt_conll_opts *conll, const vt_chunk_read_opts *o, char *err,
                               size_t errlen) {
  vt_conll_opts co;
  vt_conll_opts_init(&co);
  if (conll) co = *conll;
  vt_conll *rd = NULL;
  vt_sentbatch b;
  memset(&b, 0, sizeof b);
  vt_status st = vt_conll_open(&rd, path, &co, err, errlen);
  int full = 0;
  while (st == VT_OK && !full) {
    int32_t got = 0;
    vt_sentbatch_clear(&b);
    st = vt_conll_read(rd, &b, 4096, (size_t)1 << 24, &got, err, errlen);
    if (st != VT_OK || got == 0) break;
    st = vt_chunk_corpus_add(cp, m, &b, o, &full, err, errlen);
  }
  vt_sentbatch_free(&b);
  vt_conll_close(rd);
  return st;
}
