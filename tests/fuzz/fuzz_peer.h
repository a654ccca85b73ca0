/* tests/fuzz/fuzz_peer.h: the body of the peer model fuzz targets (fuzz_crfpp.c, fuzz_wapiti.c):
 * the input, as a file, opened in the target's format through the public API
 * (vt_model_open_as, which converts it in memory: engine/models/peer_crfpp.c, engine/models/peer_wapiti.c), then
 * described, its labels named, and two short sentences tagged with its default decoder
 * (fuzz_model.h). Seeds: tests/test_peer.c --write-seeds (tests/fuzz/make_seeds.sh). */
#ifndef VT_TESTS_FUZZ_FUZZ_PEER_H
#define VT_TESTS_FUZZ_FUZZ_PEER_H

#include "fuzz_model.h"

static int fz_peer_input(const uint8_t *data, size_t size, const char *format) {
  const char *path = fz_file(0, data, size);
  if (!path) return 0;
  vt_model *m = NULL;
  vt_model_memory_limit_set(FZ_MODEL_MEMORY);
  if (vt_model_open_as(&m, path, format, 0.0) != VT_OK) return 0;
  vt_model_info info;
  vt_model_describe(m, &info);
  size_t sink = 0;
  for (int32_t y = 0; y < info.labels && y < 4096; y++) {
    const char *s = vt_model_label_name(m, y);
    if (!s) abort();
    sink += strlen(s);
  }
  if (info.templates) sink += strlen(info.templates);
  volatile size_t keep = sink;
  (void)keep;
  double best[2];
  fz_tag(m, NULL, 3, best);
  vt_model_close(m);
  return 0;
}

#endif
