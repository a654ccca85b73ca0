/* tests/fuzz/fuzz_crfsitems.c: fuzz target of the CRFsuite item reader and parser
 * (io/crfs_items.c: sequences cut from a file; engine/text/crfs.c: fields, escapes, values,
 * emissions), as `vitesse tag -m CRFSUITE_MODEL` runs them.
 *
 * The input is one item file (plain or gzip), read from a memfd twice: in batches of about 64
 * bytes with the default limits, and in batches of 1 byte with lines of at most 64 bytes and
 * sequences of at most 4 items; then from memory as a part of a larger file
 * (vt_items_open_mem, vitesse-mpi's ranks), in batches of about 64 bytes. Every sequence read is
 * tagged with a fixed crf1d model (tests/crf1d_write.h) by viterbi; in the first read also by
 * k-best (k = 2) with marginals, and formatted as crfsuite tag -p -i -l prints it (the other two
 * reads exercise the reader: tagging and formatting the same items again would only cost). */
#define _GNU_SOURCE /* memfd_create (fuzz_common.h) */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/arena.h"
#include "crf1d_write.h"
#include "io/crfs_items.h"
#include "models/crfsuite_file.h"
#include "text/crfs.h"
#include "vitesse.h"

#include "fuzz_common.h"

static const char *const fz_attrs[] = {"w=the", "a:b", "c\\d", "x", "pos=NN"};
static const char *const fz_labels[] = {"B-NP", "I-NP", "O"};

static vt_crfs *fz_model(void) {
  static vt_crfs *m;
  if (!m) {
    static const crf1d_feat f[] = {{0, 0, 0, 1.5}, {0, 1, 1, 2},     {0, 2, 2, -1},
                                   {1, 0, 1, 0.5}, {1, 1, 0, -0.25}, {0, 3, 1, 0.75},
                                   {1, 2, 2, 1},   {0, 4, 0, 1e-3}};
    crf1d_buf b;
    char err[256];
    crf1d_build(&b, fz_labels, 3, fz_attrs, 5, f, sizeof f / sizeof *f);
    if (vt_crfs_load_mem(&m, b.p, b.len, "fixed", err, sizeof err) != VT_OK) abort();
    free(b.p);
  }
  return m;
}

/* Reads the file `path`, or when `mem` is not NULL its `mem_len` bytes as a part that starts at
 * line 7 of a file. */
static void fz_read_all(const char *path, const uint8_t *mem, size_t mem_len, size_t max_bytes,
                        int32_t max_line, int32_t max_items, int full, vt_arena *arena) {
  const vt_crfs *m = fz_model();
  vt_items *r = NULL;
  vt_items_batch ib;
  char err[256];
  memset(&ib, 0, sizeof ib);
  vt_status st = mem ? vt_items_open_mem(&r, "part", (const char *)mem, mem_len, 7, max_line,
                                         max_items, err, sizeof err)
                     : vt_items_open(&r, path, max_line, max_items, err, sizeof err);
  if (st != VT_OK) return;
  vt_decode_opts one, two;
  vt_decode_opts_init(&one);
  vt_decode_opts_init(&two);
  two.algo = VT_ALGO_KBEST_VITERBI;
  two.k = 2;
  char *text = NULL;
  size_t len = 0, cap = 0;
  while (vt_items_read(r, &ib, max_bytes, err, sizeof err) == VT_OK && ib.n_seq > 0) {
    int64_t item = 0;
    for (int32_t s = 0; s < ib.n_seq; s++) {
      int32_t T = ib.n_items[s], n_paths, bad;
      vt_arena_reset(arena);
      const char **lines = VT_ARENA_NEW(arena, const char *, (size_t)T);
      size_t *lens = VT_ARENA_NEW(arena, size_t, (size_t)T);
      int32_t *labels = VT_ARENA_NEW(arena, int32_t, 2 * (size_t)T);
      double *marg = VT_ARENA_NEW(arena, double, (size_t)T * 3);
      double scores[2], logz = 0;
      if (!lines || !lens || !labels || !marg) abort();
      for (int32_t t = 0; t < T; t++, item++) {
        /* The reader's items are whole lines of the batch's bytes, in order, each within them
         * and ending at a '\n' or at their end. */
        const size_t at = ib.at[item], n = ib.lens[item];
        if (at < ib.from || at > ib.len || n > ib.len - at || memchr(ib.src + at, '\n', n) ||
            (at + n < ib.len && ib.src[at + n] != '\n') || (item && at <= ib.at[item - 1]))
          abort();
        lines[t] = ib.src + at;
        lens[t] = n;
      }
      for (int i = 0; i < 1 + full; i++) {
        len = 0;
        if (vt_crfs_tag(m, i ? &two : &one, arena, lines, lens, T, labels, scores, &n_paths,
                        i ? marg : NULL, &logz, NULL, NULL, &bad, NULL, NULL, err,
                        sizeof err) == VT_OK &&
            full)
          (void)vt_crfs_format(m, i ? 15 : 0, i ? 2 : 1, T, labels, scores, n_paths,
                               i ? marg : NULL, logz, lines, lens, &text, &len, &cap);
      }
    }
    if (item != ib.items) abort();
  }
  free(text);
  vt_items_batch_free(&ib);
  vt_items_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static vt_arena *arena; /* one for every input, reset per sequence, as a worker's */
  const char *path = fz_file(0, data, size);
  if (!path || (!arena && vt_arena_create(&arena, 0) != VT_OK)) return 0;
  fz_read_all(path, NULL, 0, 64, 0, 0, 1, arena);
  fz_read_all(path, NULL, 0, 1, 64, 4, 0, arena);
  fz_read_all(NULL, data, size, 64, 0, 0, 0, arena);
  return 0;
}
