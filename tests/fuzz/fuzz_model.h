/* tests/fuzz/fuzz_model.h: the body both model fuzz targets share (fuzz_textmodel.c,
 * fuzz_chunkmodel.c): open a model file held in memory through the public API
 * (vt_model_open_memory, which sniffs the magic and calls vt_textmodel_load_mem or
 * vt_chunk_model_load_mem), then describe it, name its labels, and tag two short sentences with
 * its default decoder and with viterbi-scalar (both exact: the same best score). */
#ifndef VT_TESTS_FUZZ_MODEL_H
#define VT_TESTS_FUZZ_MODEL_H

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

/* Tags the first T tokens with `opts` (NULL: the default decoder); returns the best score,
 * NAN when the tagger cannot be made or tagging fails. */
static double fz_tag(const vt_model *m, const vt_decode_opts *opts, int32_t T, int32_t ncols) {
  vt_tagger *tg = NULL;
  if (vt_tagger_create(&tg, m, opts) != VT_OK) return NAN;
  const char *cells[FZ_T * FZ_MAXCOLS];
  for (int32_t t = 0; t < T; t++)
    for (int32_t c = 0; c < ncols; c++) cells[t * ncols + c] = fz_words[t * FZ_MAXCOLS + c];
  int32_t labels[FZ_T], chunks[FZ_T];
  double score = NAN;
  vt_tag_out out;
  memset(&out, 0, sizeof out);
  out.labels = labels;
  out.scores = &score;
  out.chunks = chunks;
  if (vt_tagger_tag(tg, cells, T, ncols, &out) != VT_OK)
    score = NAN;
  else if (out.n_paths == 0)
    score = -INFINITY;
  vt_tagger_destroy(tg);
  return score;
}

static int fz_model_input(const uint8_t *data, size_t size) {
  unsigned char *b = fz_seal(data, size);
  if (!b) return 0;
  vt_model *m = NULL;
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
  for (int32_t T = 1; T <= FZ_T; T += FZ_T - 1) {
    double best = fz_tag(m, NULL, T, ncols);
    if (info.kind == VT_MODEL_TAGGER) {
      vt_decode_opts o;
      vt_decode_opts_init(&o);
      o.algo = VT_ALGO_VITERBI_SCALAR;
      double ref = fz_tag(m, &o, T, ncols);
      if (!isnan(best) && !isnan(ref) && best != INFINITY && ref != INFINITY && best != ref)
        abort();
    }
  }
  vt_model_close(m);
  return 0;
}

#endif
