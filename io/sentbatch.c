/* io/sentbatch.c: sentence batches (see sentbatch.h). */
#include "io/sentbatch.h"

#include <stdlib.h>
#include <string.h>

void vt_sentbatch_clear(vt_sentbatch *b) {
  b->n_bytes = 0;
  b->n_lines = b->n_fields = b->n_toks = 0;
  b->n_sents = 0;
}

void vt_sentbatch_free(vt_sentbatch *b) {
  free(b->bytes);
  free(b->lines);
  free(b->fields);
  free(b->tok_line);
  free(b->sents);
  memset(b, 0, sizeof *b);
}

void vt_sentbatch_tokens(const vt_sentbatch *b, int32_t s, vt_tokens *out) {
  const vt_sentence *se = &b->sents[s];
  out->T = se->T;
  out->ncols = se->ncols;
  out->base = b->bytes;
  /* A batch of pass-through lines only has no fields yet: NULL + 0 is undefined behaviour. */
  out->fields = b->fields ? b->fields + 2 * (size_t)se->field0 : NULL;
}
