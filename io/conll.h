/* io/conll.h: streaming reader of CoNLL-style column corpora (plain, .gz, stdin).
 *
 * One token per line, a blank line (or only blanks) ends a sentence. Columns are separated by
 * tabs, or, in a file whose first token line has no tab, by runs of spaces and tabs (sep auto;
 * --sep tab / space force one). With `comments` (or `conllu`), lines starting with '#' are kept
 * as pass-through lines; `conllu` also passes through multiword-token ranges (`1-2`) and empty
 * nodes (`8.1`) and forces tabs. CRLF line ends, a missing final newline and any bytes are
 * accepted. Errors name "FILE:LINE": a token line whose column count differs from its sentence's
 * first token line, a sentence over `max_tokens` tokens, a line over `max_line_bytes` bytes,
 * unreadable or corrupt (.gz) input.
 *
 * Sentences are appended to a vt_sentbatch (io/sentbatch.h) that the caller owns and
 * clears; memory is bounded by the batch limits, not by the corpus. */
#ifndef VT_IO_CONLL_H
#define VT_IO_CONLL_H

#include <stddef.h>
#include <stdint.h>

#include "io/sentbatch.h"
#include "vitesse.h"

/* The reader's options are the public vt_reader_opts (vitesse.h). */
typedef vt_sep vt_conll_sep;
typedef vt_reader_opts vt_conll_opts;

/* Fills `o` with the defaults: sep auto, no comments, not CoNLL-U, max_tokens 10000,
 * max_line_bytes 1 MiB (VT_CONLL_MAX_LINE_BYTES). */
#define VT_CONLL_MAX_LINE_BYTES (1 << 20)
void vt_conll_opts_init(vt_conll_opts *o);

typedef struct vt_conll vt_conll;

/* Opens `path` for reading ("-" or NULL: standard input); gzip data is detected and inflated.
 * `path` must stay valid while batches filled from it are used. Returns VT_OK, VT_EIO (cannot
 * open; message in `err`) or VT_ENOMEM. */
vt_status vt_conll_open(vt_conll **out, const char *path, const vt_conll_opts *opts, char *err,
                        size_t errlen);

/* Opens `len` bytes at `data` (plain text, not copied: they and `name` must stay valid while the
 * reader and the batches filled from it are used) as a corpus named `name` in messages, whose
 * first line is line `first_line` + 1 (the lines of the corpus before it). With sep auto the
 * separator is decided by the first token line of `data`. Returns VT_OK or VT_ENOMEM. */
vt_status vt_conll_open_mem(vt_conll **out, const char *name, const char *data, size_t len,
                            uint64_t first_line, const vt_conll_opts *opts, char *err,
                            size_t errlen);

/* Appends sentences to `b` until `max_sents` were appended, `b` holds `max_bytes` bytes or the
 * input ends; *n_read gets the number appended (0: end of input). A sentence of only
 * pass-through lines is appended with T = 0. Returns VT_OK, VT_EFORMAT (bad input: "FILE:LINE:
 * problem" in `err`; the batch is then unusable until cleared), VT_EIO or VT_ENOMEM. */
vt_status vt_conll_read(vt_conll *r, vt_sentbatch *b, int32_t max_sents, size_t max_bytes,
                        int32_t *n_read, char *err, size_t errlen);

/* The raw text of whole sentences, cut from a file by vt_conll_cut, to be parsed elsewhere (the
 * engine's reader cuts, its workers parse): the lines as they were read, blank ones included so
 * line numbers hold (the input's last line may lack its '\n'), the file's name and separator. */
typedef struct vt_conll_text {
  char *data;
  size_t len, cap;  /* capacity kept across cuts; free(data) when done */
  const char *name; /* the file, as vt_conll_open got it */
  uint64_t line0;   /* number of the line before the first of data */
  char sep;         /* the file's column separator; 0 while no token line decided it */
} vt_conll_text;

/* The byte work of vt_conll_read: cuts lines into `t` (emptied first) until `max_sents`
 * sentences, `max_bytes` bytes of stored lines (counting from `stored`, the bytes the target
 * batch holds already) or the end of the input; *n_read gets the number of sentences (0: end of
 * input). Refuses a line over max_line_bytes and a sentence over 4 GiB, and fails to read or
 * inflate, as vt_conll_read; then `t` holds the lines before the failure. */
vt_status vt_conll_cut(vt_conll *r, vt_conll_text *t, int32_t max_sents, size_t max_bytes,
                       size_t stored, int32_t *n_read, char *err, size_t errlen);

/* The parsing of vt_conll_read: appends the sentences of `t` to `b` with options `o` (those the
 * reader was opened with). Returns VT_OK, VT_EFORMAT (a token line whose column count differs
 * from its sentence's first, a sentence over max_tokens: "FILE:LINE: problem" in `err`, which is
 * left alone on success) or VT_ENOMEM. */
vt_status vt_conll_parse(const vt_conll_opts *o, const vt_conll_text *t, vt_sentbatch *b, char *err,
                         size_t errlen);

/* How far the reader is into its file: bytes consumed from the file (compressed bytes for gzip
 * input; read ahead by up to one buffer; where the file has no offset, a pipe, the bytes read
 * after inflating), and in *size the file's size, or -1 when it is not a regular file (a pipe,
 * a terminal). For a progress line's ETA. */
int64_t vt_conll_offset(const vt_conll *r, int64_t *size);

/* Where the reader is, to resume there later: the bytes of the input consumed so far (inflated
 * bytes for gzip; lines cut or read, not the buffer read ahead), and in *lines the lines
 * consumed, in *sep the column separator decided so far ('\t', ' ', or 0 while none was). */
int64_t vt_conll_where(const vt_conll *r, uint64_t *lines, char *sep);

/* Puts a reader just opened by vt_conll_open, before any read, where vt_conll_where said an
 * earlier reader of the same input was: `offset` bytes in (a plain file seeks, gzip input is
 * inflated and skipped), after `lines` lines, with separator `sep` (0: still undecided). Returns
 * VT_OK, or VT_EIO (cannot seek; message in `err`). */
vt_status vt_conll_skip(vt_conll *r, int64_t offset, uint64_t lines, char sep, char *err,
                        size_t errlen);

/* Closes the reader. NULL is a no-op. */
void vt_conll_close(vt_conll *r);

/* Called with each batch of sentences vt_conll_each reads; returns VT_OK to go on, or a failure
 * with one line in `err` (errlen bytes) to stop. */
typedef vt_status (*vt_conll_fn)(void *ctx, const vt_sentbatch *b, char *err, size_t errlen);

/* Reads `path` with `ro` in batches of up to 1,024 sentences (8 MB of text) and hands each to
 * `fn` in order. Returns VT_OK, or the reader's or fn's first failure with its one line in err. */
vt_status vt_conll_each(const char *path, const vt_conll_opts *ro, vt_conll_fn fn, void *ctx,
                        char *err, size_t errlen);

#endif
