/* engine/chunk/chunk_tag.c: tagging with a joint label-chunk model (see chunk_tag.h). */
#define _POSIX_C_SOURCE 200809L
#include "chunk/chunk_tag.h"
#include "core/clock.h"

#include <stdlib.h>

vt_status vt_chunk_tag_sentence(const vt_chunk_model *m, const vt_chunk_x *x, int32_t W,
                                vt_arena *arena, vt_chunk_out *out, vt_chunk_stats *stats) {
  vt_chunk_lattice lat;
  vt_status st = vt_chunk_lattice_build(m, m->w, x, W, arena, &lat);
  if (st != VT_OK) return st;
  return vt_chunk_decode(&lat, arena, out, stats);
}

vt_status vt_chunk_corpus_eval(const vt_chunk_model *m, const vt_chunk_corpus *cp, int32_t W,
                               vt_chunk_eval *ev, double *seconds) {
  vt_status st = VT_ENOMEM;
  vt_arena *arena = NULL;
  const size_t n = (size_t)cp->max_n + 1;
  int32_t *pos = malloc(n * sizeof *pos), *ctag = malloc(n * sizeof *ctag);
  uint8_t *begin = malloc(n);
  const double t0 = vt_clock_seconds();
  if (!pos || !ctag || !begin || vt_arena_create(&arena, 0) != VT_OK) goto fail;
  for (int64_t s = 0; s < cp->n_sent; s++) {
    vt_chunk_x x;
    vt_chunk_corpus_x(cp, s, &x);
    vt_chunk_out out = {pos, ctag, begin, 0};
    vt_arena_reset(arena);
    if ((st = vt_chunk_tag_sentence(m, &x, W, arena, &out, NULL)) != VT_OK) goto fail;
    const int64_t o = cp->off[s];
    vt_chunk_eval_add(ev, x.n, cp->pos + o, cp->ctag + o, cp->bio + o, pos, ctag, begin);
  }
  st = VT_OK;
fail:
  if (seconds) *seconds = vt_clock_seconds() - t0;
  vt_arena_destroy(arena);
  free(pos);
  free(ctag);
  free(begin);
  return st;
}
