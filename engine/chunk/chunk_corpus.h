/* engine/chunk/chunk_corpus.h: column corpora (io/conll.h) in the joint model's terms: word ids,
 * token types, gold POS tags and the gold label-chunk structure of each sentence.
 *
 * The chunk layer comes from a BIO column (CoNLL-2000: B-NP, I-NP, B-VP, ..., O): a chunk of a
 * kept type X starts at B-X, or at I-X not preceded by X; every other label is outside, and a
 * maximal run of outside tokens is one "O" chunk (the paper's Table 2). With a chunk-length
 * bound W, longer chunks and O runs are cut into pieces of at most W tokens (the structure the
 * decoder can return); the evaluation keeps the uncut chunks. */
#ifndef VT_CHUNK_CHUNK_CORPUS_H
#define VT_CHUNK_CHUNK_CORPUS_H

#include <stddef.h>
#include <stdint.h>

#include "chunk/chunk_model.h"
#include "io/sentbatch.h"
#include "vitesse.h"

typedef struct vt_chunk_read_opts {
  int32_t word_col;  /* default 0 */
  int32_t pos_col;   /* default 1; -1: no gold POS (tagging without evaluation) */
  int32_t chunk_col; /* default -1 = the last column; -2: no gold chunks */
  int32_t grow;      /* 1: add new words, POS tags (and chunk types when all_types) to the model */
  int32_t all_types; /* with grow: keep every chunk type seen (else only the model's) */
  int32_t max_chunk; /* W for the gold structure, 0 = none */
  int64_t max_sents; /* stop after this many sentences, 0 = all */
} vt_chunk_read_opts;

/* Fills `o` with the defaults above (grow 0, all_types 0, max_chunk 0, max_sents 0). */
void vt_chunk_read_opts_init(vt_chunk_read_opts *o);

typedef struct vt_chunk_corpus {
  int64_t n_sent, n_tok;
  int64_t *off;          /* n_sent + 1 token offsets */
  int32_t *word;         /* observation ids, -1 = unknown */
  uint8_t *type;         /* token types */
  int32_t *pos;          /* gold POS ids, -1 = unknown to the model */
  int32_t *ctag;         /* gold structure: chunk tag of each token */
  uint8_t *begin;        /* gold structure: 1 where a chunk starts */
  uint8_t *bio;          /* gold chunk column, uncut: 1 where a kept chunk starts (B), else 0 */
  int32_t max_n;         /* longest sentence */
  int64_t cut;           /* kept chunks cut by the length bound */
  int64_t cap, cap_sent; /* tokens and offsets allocated */
} vt_chunk_corpus;

/* Appends the token sentences of batch `b` to `cp`, in the dictionaries of `m` (grown when
 * o->grow), until o->max_sents sentences are held (*full is then 1). Returns VT_OK, VT_EFORMAT
 * ("FILE:LINE: problem" in err: a sentence lacking a column) or VT_ENOMEM. */
vt_status vt_chunk_corpus_add(vt_chunk_corpus *cp, vt_chunk_model *m, const vt_sentbatch *b,
                              const vt_chunk_read_opts *o, int *full, char *err, size_t errlen);

/* Frees a corpus; *cp becomes zeroed. Fine on a zeroed struct. */
void vt_chunk_corpus_free(vt_chunk_corpus *cp);

/* The model's view of sentence s of cp. */
void vt_chunk_corpus_x(const vt_chunk_corpus *cp, int64_t s, vt_chunk_x *x);

/* Word ids and token types of sentence s of batch b (column `word_col`, which the caller checked
 * exists) into word[] and type[] (T entries each), looked up in m. */
void vt_chunk_batch_x(const vt_chunk_model *m, const vt_sentbatch *b, int32_t s, int32_t word_col,
                      int32_t *word, uint8_t *type);

/* Parses a chunk label: "B-X" and "I-X" give 'B' or 'I' and the type X (*type, *type_len);
 * anything else gives 'O'. */
char vt_chunk_label_parse(const char *s, size_t len, const char **type, size_t *type_len);

#endif
