/* tests/fuzz/fuzz_lattice.c: fuzz target of lattice-set validation (io/lattice_file.c,
 * vt_lattice_file_load) and of the decoders on what it accepts.
 *
 * The input is a set of .npy files concatenated: it is cut before every occurrence of the .npy
 * magic "\x93NUMPY" (but the first byte), and the parts are, in order, E, N, A, S, F, R (parts
 * past the sixth stay in R; with fewer than three parts the missing files are empty, and
 * without A no transitions are loaded). After a successful load the first sentence (and the
 * last) is decoded with viterbi and with staggered-col, and the two best scores must agree. */
#define _GNU_SOURCE /* memfd_create (fuzz_common.h) */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/lattice_file.h"
#include "vitesse.h"

#include "fuzz_common.h"

static void decode_one(const vt_lattice_file *lf, const vt_trans *trans, vt_arena *arena,
                       int64_t s) {
  const int32_t T = vt_lattice_file_len(lf, s);
  if ((int64_t)T * lf->L > (1 << 22)) return; /* keep one run fast */
  int32_t *labels = malloc(sizeof *labels * (size_t)(T ? T : 1));
  double *E = malloc(sizeof *E * (size_t)T * (size_t)lf->L + sizeof *E);
  if (!labels || !E) goto done;
  vt_lattice_file_copy(lf, s, E);
  static const vt_algo algos[] = {VT_ALGO_VITERBI, VT_ALGO_STAGGERED_COL};
  double score[2];
  for (int a = 0; a < 2; a++) {
    vt_decode_opts o;
    vt_decode_opts_init(&o);
    o.algo = algos[a];
    int32_t n_paths = 0;
    vt_status st;
    if (a == 0 && lf->E.dtype == VT_NPY_F32)
      st = vt_decode_f32(trans, &o, arena, vt_lattice_file_rows(lf, s), T, labels, &score[a],
                         &n_paths, NULL);
    else
      st = vt_decode(trans, &o, arena, E, T, labels, &score[a], &n_paths, NULL);
    if (st != VT_OK) abort(); /* valid options on a validated set: must succeed */
    if (n_paths == 0) score[a] = -INFINITY;
    vt_arena_reset(arena);
  }
  /* Both decoders are exact: the same best score (unless a sum overflowed to +inf or NaN). */
  if (!isnan(score[0]) && !isnan(score[1]) && score[0] != INFINITY && score[1] != INFINITY &&
      score[0] != score[1])
    abort();
done:
  free(labels);
  free(E);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char magic[6] = "\x93NUMPY";
  size_t cut[7];
  int parts = 1;
  cut[0] = 0;
  for (size_t i = 1; i + 6 <= size && parts < 6; i++)
    if (data[i] == 0x93 && !memcmp(data + i, magic, 6)) cut[parts++] = i;
  cut[parts] = size;
  const char *path[6] = {NULL, NULL, NULL, NULL, NULL, NULL};
  for (int p = 0; p < 6; p++) {
    if (p >= parts && p >= 2) break; /* E and N always exist, maybe empty */
    const uint8_t *b = p < parts ? data + cut[p] : data;
    size_t n = p < parts ? cut[p + 1] - cut[p] : 0;
    if (!(path[p] = fz_file(p, b, n))) return 0;
  }
  vt_lattice_file lf;
  char err[256];
  if (vt_lattice_file_load(&lf, path[0], path[1], path[2], path[3], path[4], path[5], err,
                           sizeof err) != VT_OK)
    return 0;
  vt_trans *trans = NULL;
  vt_arena *arena = NULL;
  if (lf.A && lf.n_sent > 0 && vt_trans_create(&trans, lf.L, lf.A, lf.S, lf.F, lf.R) == VT_OK &&
      vt_arena_create(&arena, 0) == VT_OK) {
    decode_one(&lf, trans, arena, 0);
    if (lf.n_sent > 1) decode_one(&lf, trans, arena, lf.n_sent - 1);
  }
  vt_arena_destroy(arena);
  vt_trans_destroy(trans);
  vt_lattice_file_free(&lf);
  return 0;
}
