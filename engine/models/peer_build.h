/* engine/models/peer_build.h: builds a native tagger model from the parts of a peer toolkit's model
 * (CRF++, Wapiti), for the peer loaders (engine/models/peer_crfpp.c, engine/models/peer_wapiti.c).
 *
 * A loader adds the labels in the peer's order (label i of the peer is label i here, so the
 * decoders' lowest-index tie rule is the peer's), the templates as vitesse's template text (the
 * peer's lines; engine/text/template.h reads both dialects), then every feature string with its
 * weights (cost factor applied, in double, then stored as float32 records: sparse, the non-zero
 * ones, or dense when they score an eighth of the labels or more, as the trainer's), and the plain
 * label-bigram weights into A. There are no start or end weights (S = F = 0): neither peer has
 * them. vt_peer_build_finish writes the image as a model file in memory and opens it with the
 * ordinary loader, so a converted model is the same bytes. */
#ifndef VT_MODELS_PEER_BUILD_H
#define VT_MODELS_PEER_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "text/textmodel.h"
#include "vitesse.h"

typedef struct vt_peer_build {
  int32_t L;
  double cf;       /* cost factor: every weight is multiplied by it */
  uint32_t origin; /* VT_ORIGIN_CRFPP or VT_ORIGIN_WAPITI (the loader sets it) */
  char *labels;
  uint32_t *label_off; /* L + 1 */
  int32_t n_labels;
  size_t labels_len, labels_cap;
  char *tmpl;
  size_t tmpl_len, tmpl_cap;
  uint8_t *recs;
  uint64_t recs_len, recs_cap;
  uint32_t n_feat;
  double *A; /* L * L, [prev][cur]; NULL until a plain bigram adds to it */
  int key_bytes;
  int obs_bigram; /* the templates have a bigram template with macros */
  int tmpl_done;
} vt_peer_build;

/* Starts a model of L labels (1 <= L <= 46340) with cost factor cf (`name` names it in messages).
 * Returns VT_OK, VT_EFORMAT (L out of range, or a model of L labels would need more memory than
 * vt_model_memory_limit allows: one line "NAME: problem" in err) or VT_ENOMEM. */
vt_status vt_peer_build_init(vt_peer_build *b, int32_t L, double cf, const char *name, char *err,
                             size_t errlen);

/* Appends the next label's name (n bytes). Returns VT_OK or VT_ENOMEM. */
vt_status vt_peer_build_label(vt_peer_build *b, const char *s, size_t n);

/* Appends one template line (n bytes; a newline is added). Returns VT_OK or VT_ENOMEM. */
vt_status vt_peer_build_template(vt_peer_build *b, const char *s, size_t n);

/* Ends the templates: parses them (errors name `name`). Returns VT_OK, VT_EFORMAT (with one line
 * "NAME: problem" in err) or VT_ENOMEM. */
vt_status vt_peer_build_templates_end(vt_peer_build *b, const char *name, char *err, size_t errlen);

/* Adds feature string s (n bytes): a unigram with weights w[0 .. L) by label, or, when bigram,
 * an observation-dependent bigram with weights w[prev * L + cur]. Returns VT_OK, VT_EFORMAT
 * (a non-finite weight) or VT_ENOMEM. A bigram feature in a model without bigram templates that
 * have macros can never fire and is left out. */
vt_status vt_peer_build_feature(vt_peer_build *b, const char *s, size_t n, int bigram,
                                const double *w);

/* As vt_peer_build_feature for an observation-dependent bigram given by its `n_w` listed weights:
 * w[i] at key[i] = prev * L + cur (keys increasing, < L * L; the others are 0). */
vt_status vt_peer_build_bigram_sparse(vt_peer_build *b, const char *s, size_t n,
                                      const uint64_t *key, const double *w, size_t n_w);

/* Adds w[prev * L + cur] (cost factor applied) to the label-bigram matrix. Returns VT_OK or
 * VT_ENOMEM. */
vt_status vt_peer_build_trans(vt_peer_build *b, const double *w);

/* As vt_peer_build_trans for the `n_w` listed weights w[i] at key[i] = prev * L + cur (< L * L). */
vt_status vt_peer_build_trans_sparse(vt_peer_build *b, const uint64_t *key, const double *w,
                                     size_t n_w);

/* Writes the model and loads it into *out (name names it in messages). Returns what
 * vt_textmodel_load_mem returns, with one line "NAME: problem" in err on failure. */
vt_status vt_peer_build_finish(vt_peer_build *b, const char *name, vt_textmodel **out, char *err,
                               size_t errlen);

/* Frees the builder's memory; *b is zeroed. */
void vt_peer_build_free(vt_peer_build *b);

#endif
