/* engine/chunk/chunk_model.h: the joint label-chunk model (Shimizu & Haas 2006): feature templates,
 * weights, and the part scores of a sentence.
 *
 * Every part type has its own weights. A template conjoins the part's outputs (its "dimension":
 * POS node C,P: c*p; POS transition C,P',P: c*p*p; chunk node C: c; chunk transition C',C: c*c)
 * with one observation (the paper's Table 6; x = word, t = token type of Table 5):
 *   POS node (C,P,r)           bias, x[r-1], x[r], x[r+1], t[r]
 *   POS transition (C,P',P,r)  bias, x[r-1], x[r]
 *   chunk node (C,q,r)         bias, x[q-1], x[q], x[r], x[r+1]
 *   chunk transition (C',C,q)  bias, x[q-1], x[q]
 * The bias templates are the unlexicalized features. A feature is (template, observation value,
 * output); its weights sit in rows: one row per (template, value), holding the outputs that
 * have a weight, sorted. Words outside the sentence read the sentinels _B-1 and _B+1. */
#ifndef VT_CHUNK_CHUNK_MODEL_H
#define VT_CHUNK_CHUNK_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "chunk/chunk_decode.h"
#include "text/featdict.h"
#include "vitesse.h"

enum { VT_CPART_POS_NODE, VT_CPART_POS_TRANS, VT_CPART_CHUNK_NODE, VT_CPART_CHUNK_TRANS };
enum { VT_CSRC_BIAS, VT_CSRC_WORD, VT_CSRC_TYPE };

typedef struct vt_chunk_tmpl {
  uint8_t part;   /* VT_CPART_* */
  uint8_t src;    /* VT_CSRC_* */
  uint8_t at_end; /* chunk nodes: anchored at the chunk's last token r (else its first, q) */
  int8_t off;     /* observation at anchor + off */
  const char *name;
} vt_chunk_tmpl;

enum { VT_CHUNK_NTMPL = 16 };
extern const vt_chunk_tmpl vt_chunk_tmpls[VT_CHUNK_NTMPL];

/* Token types of Table 5 (the first rule that matches the whole token wins). */
enum {
  VT_TTYPE_NONE,    /* no rule */
  VT_TTYPE_CAPITAL, /* [A-Z][a-z]+ */
  VT_TTYPE_CAP_ONE, /* [A-Z] */
  VT_TTYPE_CAP_ALL, /* [A-Z]+ */
  VT_TTYPE_CAP_MIX, /* [A-Z]+[a-z]+[A-Z]+[a-z]* */
  VT_TTYPE_NUMBER,  /* .*[0-9].* */
  VT_TTYPE_COUNT
};

/* Returns the token type of the `len` bytes at `s` (ASCII classes; other bytes match no class). */
int vt_chunk_token_type(const char *s, size_t len);

/* POS collapsing: none, or the paper's Table 3 (NN* NOUN, VB* VERB, JJ* JADJ, RB* RBP, else
 * OTHER: "all different types" read as all tags sharing the two-letter Penn prefix). */
enum { VT_COLLAPSE_NONE = 0, VT_COLLAPSE_PAPER = 1 };

/* Returns the tag `tag` (`len` bytes) maps to under `mode`, and its length in *out_len (the
 * result points into `tag` or to a static string). */
const char *vt_chunk_pos_collapse(int mode, const char *tag, size_t len, size_t *out_len);

typedef struct vt_chunk_model {
  int32_t c, p;                     /* chunk tags (0 = "O", outside), POS tags */
  vt_featdict pos_names;            /* POS tag names, ids 0..p-1 */
  vt_featdict chunk_names;          /* chunk tag names ("O", then chunk types such as "NP") */
  vt_featdict words;                /* word -> observation id; 0 = _B-1, 1 = _B+1 */
  int32_t collapse;                 /* VT_COLLAPSE_* applied to the POS column */
  int32_t max_chunk;                /* chunk-length bound used in training, 0 = none */
  int64_t row0[VT_CHUNK_NTMPL + 1]; /* template k's rows are row0[k] .. row0[k+1]-1 */
  int64_t *rowptr;                  /* n_rows + 1: row i's entries are rowptr[i] .. rowptr[i+1]-1 */
  int32_t *outs;                    /* n_feat: output of each entry, increasing within a row */
  double *w;                        /* n_feat weights */
  int64_t n_rows, n_feat;
} vt_chunk_model;

/* Number of observation values of template k in `m` (rows it has). */
int64_t vt_chunk_tmpl_values(const vt_chunk_model *m, int k);

/* Output dimension of template k's part in `m`. */
int64_t vt_chunk_tmpl_dim(const vt_chunk_model *m, int k);

/* Initialises an empty model (dictionaries with the sentinels and "O"). Returns VT_OK or
 * VT_ENOMEM (*m is then freeable). */
vt_status vt_chunk_model_init(vt_chunk_model *m);

/* Frees a model; *m becomes zeroed. Fine on a zeroed struct. */
void vt_chunk_model_free(vt_chunk_model *m);

/* A sentence as the model sees it: n tokens, word observation ids (-1: unknown) and token
 * types. */
typedef struct vt_chunk_x {
  int32_t n;
  const int32_t *word;
  const uint8_t *type;
} vt_chunk_x;

/* Fills `lat` with the part scores of `x` under weights `w` (n_feat entries, in m's layout:
 * the model's own or a trainer's), chunks of at most `W` tokens (0: no bound). Its arrays come
 * from `arena`. Returns VT_OK or VT_ENOMEM. */
vt_status vt_chunk_lattice_build(const vt_chunk_model *m, const double *w, const vt_chunk_x *x,
                                 int32_t W, vt_arena *arena, vt_chunk_lattice *lat);

/* Returns the entry of feature (template k, observation value a, output o), or -1. */
int64_t vt_chunk_feat_find(const vt_chunk_model *m, int k, int64_t a, int32_t o);

/* Writes to `ids` the entries of every feature of structure (pos, ctag, begin) over `x`, from
 * the templates whose bit is set in `mask` (features the model lacks are skipped); `ids` holds
 * VT_CHUNK_NTMPL * x->n entries. Returns how many were written. */
int64_t vt_chunk_feats(const vt_chunk_model *m, const vt_chunk_x *x, const int32_t *pos,
                       const int32_t *ctag, const uint8_t *begin, uint32_t mask, int64_t *ids);

#endif
