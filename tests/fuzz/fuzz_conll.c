/* tests/fuzz/fuzz_conll.c: fuzz target of the column-corpus reader (io/conll.c: plain, CoNLL-U,
 * comments, gzip).
 *
 * The input is one corpus file. It is read with one of four option sets, chosen by the input's
 * size modulo 4: 0 the defaults (sep auto), 1 --conllu, 2 --comments with --sep tab, 3 --sep
 * space with --max-tokens 4; in batches of at most 3 sentences or 256 bytes (so sentences straddle
 * batches). Every field and line of every batch is read back. */
#define _GNU_SOURCE /* memfd_create (fuzz_common.h) */
#include <stddef.h>
#include <stdint.h>

#include "io/conll.h"
#include "io/sentbatch.h"

#include "fuzz_common.h"

static void read_all(const char *path, const vt_conll_opts *o) {
  vt_conll *r = NULL;
  vt_sentbatch b;
  char err[256];
  memset(&b, 0, sizeof b);
  if (vt_conll_open(&r, path, o, err, sizeof err) != VT_OK) return;
  size_t sink = 0;
  for (;;) {
    int32_t n = 0;
    vt_sentbatch_clear(&b);
    if (vt_conll_read(r, &b, 3, 256, &n, err, sizeof err) != VT_OK || n == 0) break;
    for (int32_t s = 0; s < b.n_sents; s++) {
      const vt_sentence *se = &b.sents[s];
      for (int32_t t = 0; t < se->T; t++) {
        sink += vt_sentbatch_lineno(&b, s, t);
        for (int32_t c = 0; c < se->ncols; c++) {
          size_t len;
          const char *f = vt_sentbatch_field(&b, s, t, c, &len);
          if (len) sink += (unsigned char)f[0] + (unsigned char)f[len - 1];
        }
      }
      for (uint32_t l = se->line0; l < se->line0 + se->nlines; l++) {
        const vt_sentline *li = &b.lines[l];
        if (li->len) sink += (unsigned char)b.bytes[li->off + li->len - 1];
      }
      vt_tokens tk;
      vt_sentbatch_tokens(&b, s, &tk);
      sink += (size_t)tk.T;
    }
  }
  volatile size_t keep = sink;
  (void)keep;
  vt_sentbatch_free(&b);
  vt_conll_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fz_file(0, data, size);
  if (!path) return 0;
  /* One option set per input, by its size (mutations change sizes): each open costs buffers and
   * a zlib stream, so reading every input four times would quarter the execution rate. */
  vt_conll_opts o;
  vt_conll_opts_init(&o);
  switch (size % 4) {
  case 1: o.conllu = 1; break;
  case 2:
    o.comments = 1;
    o.sep = VT_SEP_TAB;
    break;
  case 3:
    o.sep = VT_SEP_SPACE;
    o.max_tokens = 4;
    break;
  default: break;
  }
  read_all(path, &o);
  return 0;
}
