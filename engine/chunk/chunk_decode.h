/* engine/chunk/chunk_decode.h: exact decoding of label-chunk structures (Shimizu & Haas 2006).
 *
 * A label-chunk structure over n tokens gives every token a POS tag P in [0, p) and cuts the
 * tokens into consecutive chunks of at most W tokens, each with a chunk tag C in [0, c). Its
 * score is the sum of its parts (layouts of vt_chunk_lattice):
 *   POS node          (C, P, r)             token r tagged P inside a chunk tagged C
 *   POS transition    (C, P', P, r-1, r)    tokens r-1 and r in the same chunk, tagged C
 *   chunk node        (C, q, r)             a chunk tagged C over tokens q..r (inclusive)
 *   chunk transition  (C', C, q-1, q)       a chunk tagged C' ends at q-1, one tagged C starts at q
 * No part crosses a chunk boundary in the POS layer, and the first chunk has no transition.
 *
 * Canonical evaluation order (the decoders' sums, so that scores compare with ==): for each
 * chunk [q, r] with tag C, in order,
 *   inner = node(q); for t = q+1..r: inner = (inner + trans(t)) + node(t)
 *   span  = chunk_span (full table) or chunk_left(q) + chunk_right(r)
 *   total = ((total + ctrans(q)) + inner) + span      (first chunk: total = (0 + inner) + span)
 * Rounded addition is monotone, so the dynamic programs return exactly the largest canonical
 * score over all structures. -inf forbids a part; NaN and +inf are not allowed. */
#ifndef VT_CHUNK_CHUNK_DECODE_H
#define VT_CHUNK_CHUNK_DECODE_H

#include <stdint.h>

#include "vitesse.h"

/* The part scores of one sentence. */
typedef struct vt_chunk_lattice {
  int32_t n, c, p;           /* tokens (>= 0), chunk tags (>= 1), POS tags (>= 1) */
  int32_t W;                 /* longest chunk allowed, 1 <= W <= n (any value when n == 0) */
  const double *pos_node;    /* [(r*c + C)*p + P], n*c*p */
  const double *pos_trans;   /* [((r*c + C)*p + P')*p + P], n*c*p*p; rows r = 0 unused */
  const double *chunk_trans; /* [(q*c + C')*c + C], n*c*c; rows q = 0 unused */
  /* Chunk nodes, either a full table or a sum of a start and an end score: */
  const double *chunk_span;  /* [(r*c + C)*W + (q - r + W - 1)] for r - W < q <= r, or NULL */
  const double *chunk_left;  /* [q*c + C] (used when chunk_span is NULL) */
  const double *chunk_right; /* [r*c + C] (used when chunk_span is NULL) */
} vt_chunk_lattice;

/* A decoded structure: n entries each (the caller's buffers). */
typedef struct vt_chunk_out {
  int32_t *pos;   /* POS tag of each token */
  int32_t *ctag;  /* chunk tag of the chunk holding each token */
  uint8_t *begin; /* 1 when the token starts a chunk (begin[0] == 1 when n > 0) */
  double score;   /* canonical score of the structure; -inf when no structure is finite */
} vt_chunk_out;

/* Counters a decoder adds to (never resets). */
typedef struct vt_chunk_stats {
  int64_t sentences, tokens;
  int64_t cells; /* (chunk start, end, chunk tag, POS tag) label-table cells computed */
} vt_chunk_stats;

/* Decodes `lat` exactly with the kernels of vt_simd_active(): the label table runs over all open
 * chunks at once, O(n W c p^2 + n c^2) time, O(n c p) scratch from `arena` (not reset).
 * Fills `out` with a best structure (ties: lowest chunk start, then lowest tags) and its score;
 * the structure and score are identical at every SIMD level. n == 0 gives score 0. When no
 * structure is finite, out->score is -inf and the arrays still hold a valid structure.
 * `stats` may be NULL. Returns VT_OK, VT_EINVAL for a malformed lattice, or VT_ENOMEM. */
vt_status vt_chunk_decode(const vt_chunk_lattice *lat, vt_arena *arena, vt_chunk_out *out,
                          vt_chunk_stats *stats);

/* As vt_chunk_decode with the kernels of `level`; VT_EUNSUPPORTED when this CPU lacks it. */
vt_status vt_chunk_decode_level(const vt_chunk_lattice *lat, vt_simd level, vt_arena *arena,
                                vt_chunk_out *out, vt_chunk_stats *stats);

/* The reference: Algorithm 3.1 as printed (loops q, length, C, C', P, P' over a label table of
 * n*W*c*p cells), O(n W c^2 p^2) time, in the canonical order, for tests and measurements.
 * Returns the same score as vt_chunk_decode and a structure of that score. */
vt_status vt_chunk_decode_ref(const vt_chunk_lattice *lat, vt_arena *arena, vt_chunk_out *out);

/* As vt_chunk_decode with the label table vectorised over POS tags (the max-plus kernels of
 * engine/core/kernel.h at `level`, one call per open chunk) instead of over chunk starts: the same
 * score and structure. For measurements (perf/chunk_bench.c). */
vt_status vt_chunk_decode_tags(const vt_chunk_lattice *lat, vt_simd level, vt_arena *arena,
                               vt_chunk_out *out);

/* The chunk layer the decoders share. table[r*c + C] is the best score of a structure of
 * tokens [0, r) whose last chunk is tagged C; bq[r*c + C] the start of that last chunk;
 * bc[q*c + C] the tag of the chunk before a chunk tagged C starting at q.
 * vt_chunk_enter sets enter[C*n + r] = max_C' (table[r*c + C'] + ctrans(C', C, r-1, r)) and
 * bc[r*c + C] its argmax (lowest C' on ties), for 1 <= r < n. */
void vt_chunk_enter(const vt_chunk_lattice *lat, const double *table, int32_t r, double *enter,
                    int32_t *bc);

/* Writes the best structure (lowest final tag on ties) from the tables into out, POS tags
 * by vt_chunk_pos_fill, and its score. n >= 1. Returns VT_OK or VT_ENOMEM. */
vt_status vt_chunk_trace(const vt_chunk_lattice *lat, const double *table, const int32_t *bq,
                         const int32_t *bc, vt_arena *arena, vt_chunk_out *out);

/* Given the chunks of out (ctag, begin over lat->n tokens), fills out->pos with the best POS
 * tags inside each chunk (lowest tags on ties): the decoders' traceback, which repeats the
 * forward pass's sums and so finds a POS path of exactly its score. VT_OK or VT_ENOMEM. */
vt_status vt_chunk_pos_fill(const vt_chunk_lattice *lat, vt_arena *arena, vt_chunk_out *out);

/* Returns the canonical score of the structure (pos, ctag, begin) under `lat`, or NaN when it
 * is not a valid structure (tag out of range, begin[0] != 1, a chunk tag changing inside a chunk,
 * a chunk longer than W). n == 0 gives 0. */
double vt_chunk_score(const vt_chunk_lattice *lat, const int32_t *pos, const int32_t *ctag,
                      const uint8_t *begin);

#endif
