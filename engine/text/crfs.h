/* engine/text/crfs.h: a CRFsuite 0.12 crf1d model as the tagger reads it, and CRFsuite's item
 * format (as CRFsuite 0.12's crf1dmodel.c writes and frontend/reader.c reads them).
 *
 * The model is laid out at load time (engine/models/crfsuite_file.c, from a crf1d file or from the
 * native file `vitesse convert --from crfsuite` writes): label and attribute names, an
 * open-addressing table attribute -> id, each attribute's state features (label, weight) back to
 * back in file order, the L x L transition weights. Emission row of an item = sum over its known
 * attributes, in item order, of value * weight, added label by label exactly as crf1d_tag.c does;
 * the transitions bind a vt_trans without start or end scores, so every path score is CRFsuite's
 * own, bit for bit, and every decoder's ties go to the lowest label id as CRFsuite's do. */
#ifndef VT_TEXT_CRFS_H
#define VT_TEXT_CRFS_H

#include <stddef.h>
#include <stdint.h>

#include "io/filemap.h"
#include "text/crfs_fields.h"
#include "text/crfs_index.h"
#include "vitesse.h"

typedef struct vt_crfs {
  int32_t L;                 /* labels, ids in CRFsuite's order */
  uint32_t A;                /* attributes */
  uint32_t n_state;          /* state features */
  uint32_t mask;             /* hash slots - 1 (a power of two minus one, > A) */
  const uint32_t *label_off; /* L + 1 offsets into label_pool */
  const char *label_pool;
  const uint32_t *attr_off; /* A + 1 offsets into attr_pool */
  const char *attr_pool;
  const uint32_t *slots;    /* mask + 1 slots: attribute id + 1 at its hash, 0 = empty (a native
                             * file's; NULL for a crf1d file, whose lookups go through idx) */
  uint64_t key;             /* the slots' hash key: 0 in a file, the process's when built */
  const uint32_t *st_off;   /* A + 1 offsets into st_label / st_w */
  const uint32_t *st_label; /* n_state labels */
  const double *st_w;       /* n_state weights */
  const double *tw;         /* L * L transition weights, tw[prev * L + cur] */
  vt_trans *trans;          /* bound from tw (vt_crfs_bind) */
  vt_crfs_index idx;        /* the attributes laid out for tagging (vt_crfs_index_build) */
  void *own[12];            /* heap blocks the arrays live in (freed by vt_crfs_free) */
  int n_own;
  vt_filemap file; /* or the file they live in, mapped or read (owned) */
} vt_crfs;

/* Binds m->trans from m->tw (rank: labels by their number of state features). Returns VT_OK,
 * VT_EFORMAT (a NaN or infinite weight) or VT_ENOMEM. The loaders then build m->idx
 * (vt_crfs_index_build), once the file's bytes are freed. */
vt_status vt_crfs_bind(vt_crfs *m);

/* Frees everything the model owns and the struct itself. NULL is a no-op. */
void vt_crfs_free(vt_crfs *m);

/* The slot count of an attribute table of A entries (a power of two >= 2A + 2). */
uint64_t vt_crfs_slot_count(uint64_t A);

/* Fills `slots` (n_slots zeroed slots, a power of two > A) with attributes 0..A-1 of the pool,
 * hashed under `key` (0: the unkeyed hash native files hold; tables built from a file's names
 * take vt_hash_key(), so names made to share a hash cannot flood them). Returns A when every
 * name is distinct, else the id of the first duplicate. */
uint32_t vt_crfs_hash_fill(uint32_t *slots, uint64_t n_slots, const uint32_t *off, const char *pool,
                           uint32_t A, uint64_t key);

/* The id of attribute `s` (`len` bytes), or -1 when the model lacks it. */
int64_t vt_crfs_attr_find(const vt_crfs *m, const char *s, size_t len);

/* The name of label y and its length. */
static inline const char *vt_crfs_label(const vt_crfs *m, int32_t y, size_t *len) {
  *len = m->label_off[y + 1] - m->label_off[y];
  return m->label_pool + m->label_off[y];
}

/* Adds the emission row of one item line (`len` bytes, no line end) to row[0, L) (zeroed by the
 * caller): fields separated by runs of tabs, the first one the label (ignored), each other one
 * NAME[:VALUE] with escapes \: and \\ (a further ':' starts an attribute with an empty name, as
 * CRFsuite's reader does); VALUE empty or absent is 1. `scratch` holds len + 2 bytes. Unknown
 * attributes are dropped; *known (may be NULL) gets the attributes found. Returns 0, or -1 with
 * the problem in err: a NUL byte, a VALUE that is not a finite number, a score that overflows. */
int vt_crfs_item_row(const vt_crfs *m, const char *line, size_t len, char *scratch, double *row,
                     int32_t *known, char *err, size_t errlen);

/* What vt_crfs_format prints besides the labels (CRFsuite's `tag` options). */
enum { VT_CRFS_PROB = 1, VT_CRFS_MARG = 2, VT_CRFS_MARG_ALL = 4, VT_CRFS_REF = 8 };

/* Tags one sequence of T item lines (lines[t], lens[t] bytes) with `opts`: emissions, decoder,
 * and with `marg` (T * L doubles) the marginals and *logz. Scratch from `arena` (not reset).
 * Writes up to opts->k paths as vt_decode does; with `path` (T label ids) its score into
 * *path_score (vt_path_score on the same scores); `seconds` (NULL: not timed) gets the time of the
 * emissions added to seconds[0], of the decoder and marginals to seconds[1]. Returns VT_OK,
 * VT_EFORMAT (item `*bad`: message in err, without a location), VT_EINVAL or VT_ENOMEM. */
vt_status vt_crfs_tag(const vt_crfs *m, const vt_decode_opts *opts, vt_arena *arena,
                      const char *const *lines, const size_t *lens, int32_t T, int32_t *labels,
                      double *scores, int32_t *n_paths, double *marg, double *logz,
                      const int32_t *path, double *path_score, int32_t *bad, vt_decode_stats *stats,
                      double *seconds, char *err, size_t errlen);

/* Appends to `out` (a growable buffer: *buf, *len, *cap) what `crfsuite tag` prints for a
 * sequence of T items: with VT_CRFS_PROB in `flags` the lines "@score\tS\tLOGZ" and
 * "@probability\tP" (%f), then one line per item: with VT_CRFS_REF the item's reference label (the
 * first field of lines[t], lens[t] bytes; "(null)" when the model lacks it, as crfsuite prints
 * it) and a tab, the label, with VT_CRFS_MARG ":MARGINAL", with VT_CRFS_MARG_ALL
 * "\tLABEL:MARGINAL" for every label; then a blank line. With k > 1 paths, each path is printed
 * so after a line "# RANK SCORE". A sequence without a finite path prints "_" labels. `lines`
 * may be NULL without VT_CRFS_REF. Returns 0 or -1 (out of memory). */
int vt_crfs_format(const vt_crfs *m, int flags, int32_t k, int32_t T, const int32_t *labels,
                   const double *scores, int32_t n_paths, const double *marg, double logz,
                   const char *const *lines, const size_t *lens, char **buf, size_t *len,
                   size_t *cap);

#endif
