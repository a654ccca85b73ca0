/* engine/text/template.h: feature templates (the CRF++ language plus Wapiti's pattern commands).
 *
 * One template per line: `U...` (unigram: scores a label) or `B...` (bigram: scores a label
 * pair); `#` comment lines and blank lines are skipped. In a template's text:
 *   %x[row,col]        the token `row` positions away (relative), column `col` (0-based)
 *   %t[row,col,"re"]   "true" when the regex matches somewhere in that token, else "false"
 *   %m[row,col,"re"]   the first (leftmost) match of the regex, empty when none
 *   %X %T %M           the same, lower-cased (ASCII)
 * Everything else is copied, so the template's own text is part of the feature string
 * (`U02:%x[0,0]` at "the" gives `U02:the`). Rows outside the sentence read the CRF++ sentinels
 * `_B-1`, `_B-2`, ... before it and `_B+1`, `_B+2`, ... after it.
 * The regex subset is Wapiti's: `.`, the classes \d \a \w \l \u \p \s (ASCII; upper case =
 * complement), `\c` = the character c, `^` at the start, `$` at the end, `*` (any number of
 * the previous item, fewest first, as Wapiti) and `?` (optional, taken first when possible).
 * A `B` template without macros is the plain label bigram (the transition matrix).
 *
 * Wapiti's pattern files are read in Wapiti's dialect, chosen when a template line starts with
 * a lower-case `u` or `b` or with `*` (Wapiti lower-cases the first character of every pattern
 * it stores, so its models always select it): the type letter in either case, `*` = both a
 * unigram and a bigram template over the same text (the bigram one's strings get a leading
 * "\n", which no template line nor token holds, so the two never share a feature string), `#`
 * starts a comment anywhere on a line, rows are read as C's %i (`010` is 8, `0x10` 16),
 * `%x[@n,col]` reads the absolute position n (1 = first token, -1 = last, 0 = before the
 * first), and rows outside the sentence read Wapiti's sentinels `_x-1` .. `_x-4`, then `_x-#`
 * (and `_x+1` .. `_x+4`, `_x+#`). */
#ifndef VT_TEXT_TEMPLATE_H
#define VT_TEXT_TEMPLATE_H

#include <stddef.h>
#include <stdint.h>

#include "io/sentbatch.h"
#include "vitesse.h"

enum { VT_TI_LIT = 0, VT_TI_X = 1, VT_TI_T = 2, VT_TI_M = 3 };

typedef struct vt_tmpl_item {
  uint8_t kind;      /* VT_TI_* */
  uint8_t caps;      /* lower-case the result */
  uint8_t fast;      /* regex shortcut: 1 = "^.?.?..." (prefix), 2 = "....?$" (suffix) */
  uint32_t fast_n;   /* how many ".?" the shortcut has */
  uint8_t abs;       /* Wapiti `@`: row is an absolute position */
  int32_t row, col;  /* macros */
  uint32_t off, len; /* literal bytes, or the regex (NUL-terminated), in the pool */
} vt_tmpl_item;

typedef struct vt_tmpl {
  int bigram;        /* 1 for B */
  uint32_t item0, n; /* items[item0 .. item0 + n) */
  int32_t n_macros;
  uint32_t lit_len; /* total literal bytes */
  int32_t line;     /* line in the template file */
} vt_tmpl;

typedef struct vt_tmplset {
  int32_t n; /* templates kept (U and observation-dependent B) */
  vt_tmpl *t;
  vt_tmpl_item *items;
  char *pool;
  uint32_t n_items; /* entries of items */
  size_t pool_len;  /* bytes of pool */
  int32_t n_u, n_b; /* unigram and observation-dependent bigram templates */
  int32_t *u_idx;   /* the n_u unigram templates' indices in t */
  int32_t *b_idx;   /* the n_b observation-dependent bigram templates' indices */
  /* The unigram templates in emission order (engine/text/rowcache.h): the local ones (every
   * macro reads row 0) first, then the others, each group in template order. */
  int32_t *u_ord;          /* n_u indices into t */
  int32_t n_local;         /* how many of u_ord are local */
  uint32_t local_cols;     /* columns the local ones read, as bits; UINT32_MAX if one is >= 31 */
  int plain_bigram;        /* a `B` line without macros was seen (the label-bigram matrix) */
  int32_t plain_bigram_at; /* how many observation-dependent bigram templates precede the first
                              such line; -1 when none */
  int32_t max_col;         /* largest column any macro reads, -1 when none */
  int wapiti;              /* read in Wapiti's dialect (see above) */
} vt_tmplset;

/* Parses template text `text` (`len` bytes; `name` names it in messages), in Wapiti's dialect
 * when vt_tmpl_is_wapiti says so, else CRF++'s. Lines may end in CRLF; leading and trailing
 * blanks are ignored. Returns VT_OK, VT_EFORMAT with one line
 * "NAME:LINE: problem" in `err` (errlen bytes), or VT_ENOMEM. On failure *ts is zeroed. */
vt_status vt_tmplset_parse(vt_tmplset *ts, const char *text, size_t len, const char *name,
                           char *err, size_t errlen);

/* As vt_tmplset_parse, but every `B` line is a bigram template of its own, one without macros
 * included (its feature string is its text, as crf_learn has it: each B line's strings own L * L
 * weights), so plain_bigram stays 0 and n_b counts every B line, in file order. */
vt_status vt_tmplset_parse_crfpp(vt_tmplset *ts, const char *text, size_t len, const char *name,
                                 char *err, size_t errlen);

/* Returns 1 when template text `text` (`len` bytes) is in Wapiti's dialect: a line whose first
 * non-blank character is `u`, `b` or `*`; else 0. */
int vt_tmpl_is_wapiti(const char *text, size_t len);

/* Frees a template set; *ts becomes zeroed. Fine on a zeroed struct. */
void vt_tmplset_free(vt_tmplset *ts);

/* Returns an upper bound on the length of template i's expansion over tokens whose fields are
 * at most `max_field` bytes long. */
size_t vt_tmpl_bound(const vt_tmplset *ts, int32_t i, size_t max_field);

/* Returns an upper bound on the length of template i's expansion at position t of `s` (the
 * literal text plus, per macro, the length of the field it reads or of a sentinel). */
size_t vt_tmpl_bound_at(const vt_tmplset *ts, int32_t i, const vt_tokens *s, int32_t t);

/* Returns an upper bound on the summed lengths of every unigram template's expansions at every
 * position of `s` (at least the sum of vt_tmpl_bound_at over them), in O(T) per macro: each
 * macro's fields summed over its column, plus its literal text and a sentinel per position. */
size_t vt_tmpl_bound_unigrams(const vt_tmplset *ts, const vt_tokens *s);

/* Writes template i's feature string at position t (0 <= t < s->T) of `s` into `buf`, which
 * holds at least vt_tmpl_bound(ts, i, longest field of s) bytes; returns its length. Every
 * column a macro reads must exist (s->ncols > ts->max_col: the caller checks). */
size_t vt_tmpl_expand(const vt_tmplset *ts, int32_t i, const vt_tokens *s, int32_t t, char *buf);

/* Writes into *out the text macro item `it` of `ts` gives for the field value [v, v + n) (a
 * sentinel's, outside the sentence), returning its length: a part of v, "true" or "false", or,
 * when the macro lower-cases, the bytes it wrote into buf (n bytes of room). */
size_t vt_tmpl_item_text(const vt_tmplset *ts, const vt_tmpl_item *it, const char *v, size_t n,
                         char *buf, const char **out);

/* The longest sentinel vt_tmpl_sentinel writes. */
#define VT_TMPL_SENTINEL_MAX 16

/* Writes into buf (VT_TMPL_SENTINEL_MAX bytes) the sentinel a macro reads at position idx,
 * outside [0, T), of a T-token sentence (CRF++'s _B-1.., or Wapiti's _x-1.. when `wapiti`, as
 * vt_tmplset.wapiti); returns its length. */
size_t vt_tmpl_sentinel(int wapiti, int64_t idx, int32_t T, char *buf);

#endif
