/* tests/fuzz/fuzz_crfsmodel.c: fuzz target of the CRFsuite model loaders (engine/models/crfsuite_file.c:
 * the crf1d file of crfsuite learn, and the native file of vitesse convert --from crfsuite).
 *
 * The input is one model file, opened through the public API (vt_model_open_memory sniffs
 * "lCRF" or the native magic); a crf1d input gets its header's size field set to the input's
 * size, a native one is sealed as the other model targets' (fuzz_common.h), so the mutated bytes
 * reach the chunk parsers. Then its labels are named and two item sequences (1 and 4 items, with
 * the attributes of the seed models, values and an unknown one) tagged with the default decoder,
 * with k = 3 and with marginals. */
#define _GNU_SOURCE /* memfd_create (fuzz_common.h) */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vitesse.h"

#include "fuzz_common.h"

static const char *const fz_items[4] = {"B-NP\tw=the\tx:2", "I-NP\ta\\:b:0.5\tunknown",
                                        "O\tc\\d\tU00=the\tU01=cat", "B-VP\t\tx:\tpos=NN:-1"};

static void fz_tag_items(const vt_model *m, int32_t k, int marg) {
  vt_decode_opts o;
  vt_model_default_decoder(m, k, &o);
  vt_tagger *tg = NULL;
  if (vt_tagger_create(&tg, m, &o) != VT_OK) return;
  vt_model_info info;
  vt_model_describe(m, &info);
  int32_t labels[4 * 3];
  double scores[3];
  double *mg = marg ? malloc((size_t)info.labels * 4 * sizeof *mg) : NULL;
  for (int i = 0; i < 2; i++) {
    vt_tag_out out;
    memset(&out, 0, sizeof out);
    out.labels = labels;
    out.scores = scores;
    out.marg = mg;
    if (vt_tagger_tag_items(tg, fz_items, i ? 4 : 1, &out) == VT_OK && out.n_paths > 0)
      for (int32_t t = 0; t < (i ? 4 : 1); t++)
        if (labels[t] < 0 || labels[t] >= info.labels) abort();
  }
  free(mg);
  vt_tagger_destroy(tg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  unsigned char *b;
  if (size >= 8 && !memcmp(data, "lCRF", 4)) {
    b = malloc(size);
    if (!b) return 0;
    memcpy(b, data, size);
    vt_bin_put32(b + 4, (uint32_t)size);
  } else {
    b = fz_seal(data, size);
    if (!b) return 0;
  }
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
  volatile size_t keep = sink;
  (void)keep;
  if (info.kind == VT_MODEL_CRFSUITE) {
    fz_tag_items(m, 1, 0);
    fz_tag_items(m, 3, 1);
  }
  vt_model_close(m);
  return 0;
}
