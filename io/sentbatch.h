/* io/sentbatch.h: a batch of sentences read from a column corpus, held in memory.
 *
 * The corpus reader (io/conll.h) appends whole sentences; the tagger and the trainer read them.
 * Every line keeps its bytes (without its line end) so that output can echo it; token lines
 * also have their columns as (offset, length) fields. */
#ifndef VT_IO_SENTBATCH_H
#define VT_IO_SENTBATCH_H

#include <stddef.h>
#include <stdint.h>


/* A sentence as templates see it: T tokens of ncols columns each. Token t, column c is the
 * fields[2*(t*ncols + c) + 1] bytes at base + fields[2*(t*ncols + c)]. */
typedef struct vt_tokens {
  int32_t T, ncols;
  const char *base;
  const uint32_t *fields;
} vt_tokens;

/* One line: bytes[off .. off+len); tok is its token index in its sentence, or -1 for a
 * pass-through line (comment, CoNLL-U range or empty node). */
typedef struct vt_sentline {
  uint32_t off, len;
  int32_t tok;
  uint64_t lineno;
} vt_sentline;

typedef struct vt_sentence {
  const char *file;       /* the corpus path ("-" for stdin) */
  uint32_t line0, nlines; /* lines[line0 .. line0 + nlines) */
  uint32_t tok0;          /* its tokens' lines are tok_line[tok0 .. tok0 + T) */
  uint32_t field0;        /* its fields start at fields[2 * field0] */
  int32_t T, ncols;       /* tokens, columns per token (0 when T = 0) */
  char sep;               /* '\t' or ' ': the column separator of its file */
} vt_sentence;

typedef struct vt_sentbatch {
  char *bytes;
  size_t n_bytes, cap_bytes;
  vt_sentline *lines;
  uint32_t n_lines, cap_lines;
  uint32_t *fields; /* (offset into bytes, length) pairs, 2 per field */
  uint32_t n_fields, cap_fields;
  uint32_t *tok_line; /* line index of each token */
  uint32_t n_toks, cap_toks;
  vt_sentence *sents;
  int32_t n_sents, cap_sents;
} vt_sentbatch;

/* Empties a batch, keeping its memory. */
void vt_sentbatch_clear(vt_sentbatch *b);

/* Frees a batch's memory; *b becomes zeroed. Fine on a zeroed struct. */
void vt_sentbatch_free(vt_sentbatch *b);

/* The template view of sentence `s` of `b` (fields NULL when the batch holds no token). */
void vt_sentbatch_tokens(const vt_sentbatch *b, int32_t s, vt_tokens *out);

/* Column `col` of token `t` of sentence `s`: returns its bytes and stores its length. */
static inline const char *vt_sentbatch_field(const vt_sentbatch *b, int32_t s, int32_t t,
                                             int32_t col, size_t *len) {
  const vt_sentence *se = &b->sents[s];
  const uint32_t *f =
      b->fields + 2 * ((size_t)se->field0 + (size_t)t * (size_t)se->ncols + (size_t)col);
  *len = f[1];
  return b->bytes + f[0];
}

/* The line number of token `t` of sentence `s`. */
static inline uint64_t vt_sentbatch_lineno(const vt_sentbatch *b, int32_t s, int32_t t) {
  return b->lines[b->tok_line[b->sents[s].tok0 + (uint32_t)t]].lineno;
}

#endif
