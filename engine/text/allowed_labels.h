/* engine/text/allowed_labels.h: allowed labels per token for tagging (the public vt_constraints):
 * a tag dictionary (word -> allowed labels) and partial labels read from an input column, applied
 * to a sentence's emissions by setting every disallowed label's score to -inf, so that every
 * exact decoder and the posteriors honour them exactly. */
#ifndef VT_TEXT_ALLOWED_LABELS_H
#define VT_TEXT_ALLOWED_LABELS_H

#include <stddef.h>
#include <stdint.h>

#include "text/template.h"
#include "text/textmodel.h"
#include "vitesse.h"

/* Label names and dictionary words, each in an open-addressing table of string -> index. */
struct vt_constraints {
  int32_t L;
  const vt_textmodel *model; /* the model whose labels the names were resolved against */
  /* labels: name of label y is the model's; lslot[h] = y + 1 (0 empty) */
  int32_t *lslot;
  uint32_t lmask;
  /* words: word w is wbytes[woff[w], woff[w + 1]), its labels labs[loff[w], loff[w + 1]) */
  char *wbytes;
  size_t wbytes_len, wbytes_cap;
  uint64_t *woff, *loff;
  int32_t nwords, words_cap;
  int32_t *labs;
  size_t nlabs, labs_cap;
  int32_t *wslot; /* word table: w + 1 (0 empty) */
  uint32_t wmask;
  uint64_t key;        /* the tables' hash key (strhash.h: a dictionary cannot flood them) */
  int32_t word_col;    /* the column a dictionary word is read from (default 0) */
  int32_t partial_col; /* the column of partial labels, -1 = none (default) */
};

/* Initialises `c` for model `m` (its label table; no words; word column 0, no partial column).
 * Returns VT_OK or VT_ENOMEM (c then holds nothing to free). */
vt_status vt_constraints_init(struct vt_constraints *c, const vt_textmodel *m);

/* Frees what `c` holds. */
void vt_constraints_free(struct vt_constraints *c);

/* The label named [s, s + n), or -1 when the model has none of that name. */
int32_t vt_constraints_label(const struct vt_constraints *c, const char *s, size_t n);

/* Adds word [w, w + n) with labels lab[0, nl) (nl >= 1, each in [0, L)). Returns VT_OK, VT_EINVAL
 * (the word is already there) or VT_ENOMEM. */
vt_status vt_constraints_add(struct vt_constraints *c, const char *w, size_t n, const int32_t *lab,
                             int32_t nl);

/* Reads a tag dictionary file: one word a line, its allowed labels after it, fields separated
 * by tabs or blanks; blank lines skipped. Returns VT_OK, VT_EIO, VT_EFORMAT (a line without
 * labels, a label the model does not have, a word listed twice) or VT_ENOMEM, with
 * "PATH:LINE: problem" in err. */
vt_status vt_constraints_read(struct vt_constraints *c, const char *path, char *err, size_t errlen);

/* Restricts the T x L emissions E of tokens `tk`: a token whose partial column holds a label
 * keeps only that label (its column "_" or empty: free); else a dictionary word keeps its
 * labels; other tokens stay free. `tmp`: L doubles of scratch. Returns VT_OK, or VT_EFORMAT with
 * *bad the token and *why 1 (the partial column is missing), 2 (its label is not the model's) or 3
 * (a dictionary is loaded and the word column is missing). */
vt_status vt_constraints_apply(const struct vt_constraints *c, const vt_tokens *tk, double *E,
                               double *tmp, int32_t *bad, int *why);

#endif
