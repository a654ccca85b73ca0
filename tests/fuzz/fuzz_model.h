/* tests/fuzz/fuzz_model.h: the body both model fuzz targets share (fuzz_textmodel.c,
 * fuzz_chunkmodel.c): open a model file held in memory through the public API
 * (vt_model_open_memory, which sniffs the magic and calls vt_textmodel_load_mem or
 * vt_chunk_model_load_mem), then describe it, name its labels, and tag two short sentences
 * (1 and 4 tokens) with its default decoder. */
#ifndef VT_TESTS_FUZZ_FUZZ_MODEL_H
#define VT_TESTS_FUZZ_FUZZ_MODEL_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "vitesse.h"

#include "fuzz_common.h"

enum { FZ_T = 4, FZ_MAXCOLS = 8 };
static const char *const fz_words[FZ_T * FZ_MAXCOLS] = {
    "The", "DT",  "B-NP", "x", "1",   "a",    "b", "c", /* */
    "cat", "NN",  "I-NP", "y", "22",  "ab",   "b", "c", /* */
    "sat", "VBD", "B-VP", "z", "333", "abc",  "b", "c", /* */
    ".",   ".",   "O",    "w", "-",   "abcd", "b", "c",
};

/* Tags the first token, then all FZ_T tokens, with `opts` (NULL: the default decoder) into
 * best[0], best[1]: the best scores, -inf when no path is finite, NAN when the tagger cannot be
 * made or tagging fails. */
static void fz_tag(const vt_model *m, const vt_decode_opts *opts, int32_t ncols, double best[2]) {
  best[0] = best[1] = NAN;
  vt_tagger *tg = NULL;
  if (vt_tagger_create(&tg, m, opts) != VT_OK) return;
  const char *cells[FZ_T * FZ_MAXCOLS];
  for (int32_t t = 0; t < FZ_T; t++)
    for (int32_t c = 0; c < ncols; c++) cells[t * ncols + c] = fz_words[t * FZ_MAXCOLS + c];
  for (int i = 0; i < 2; i++) {
    int32_t labels[FZ_T], chunks[FZ_T];
    double score = NAN;
    vt_tag_out out;
    memset(&out, 0, sizeof out);
    out.labels = labels;
    out.scores = &score;
    out.chunks = chunks;
    if (vt_tagger_tag(tg, cells, i ? FZ_T : 1, ncols, &out) == VT_OK)
      best[i] = out.n_paths == 0 ? -INFINITY : score;
  }
  vt_tagger_destroy(tg);
}

static inline int fz_model_input(const uint8_t *data, size_t size) {
  unsigned char *b = fz_seal(data, size);
  if (!b) return 0;
  vt_model *m = NULL;
  vt_model_memory_limit_set(FZ_MODEL_MEMORY);
  vt_status st = vt_model_open_memory(&m, b, size, "fuzz.model");
  free(b);
  if (st != VT_OK) return 0;
  vt_model_info info;
  vt_model_describe(m, &info);
  size_t sink = 0;
  for (int32_t y = 0; y < info.labels && y < 4096; y++) {
    const char *s = vt_model_label_name(m, y);
    if (!s) abort();
    sink += strlen(s);
  }
  for (int32_t c = 0; c < info.chunk_labels && c < 4096; c++) {
    const char *s = vt_model_chunk_name(m, c);
    if (!s) abort();
    sink += strlen(s);
  }
  if (info.templates) sink += strlen(info.templates);
  volatile size_t keep = sink;
  (void)keep;
  int32_t ncols = info.columns < 1 ? 3 : info.columns > FZ_MAXCOLS ? FZ_MAXCOLS : info.columns;
  /* The default decoder only: each tagger clears a 4 MiB row cache, the bulk of a run's time
   * (exactness across decoders is tests/test_exact.c's and fuzz_lattice's business). */
  double best[2];
  fz_tag(m, NULL, ncols, best);
  vt_model_close(m);
  return 0;
}

#endif
