/* engine/models/peer_model.h: models of other toolkits opened as native tagger models: CRF++
 * 0.58/0.59 (binary and text, engine/models/peer_crfpp.c) and Wapiti 1.5 (text,
 * engine/models/peer_wapiti.c). Each is turned into a model file image in memory
 * (engine/models/peer_build.h) and loaded from there, so it tags exactly as the same model
 * converted to a file (`vitesse convert`). The formats are the peers' own (CRF++'s
 * feature_index.cpp, Wapiti's model.c), described in each loader. To add a format: one
 * vt_peer_format, a case in vt_peer_sniff, vt_peer_format_named and vt_peer_load_mem. */
#ifndef VT_MODELS_PEER_MODEL_H
#define VT_MODELS_PEER_MODEL_H

#include <stddef.h>

#include "text/textmodel.h"
#include "vitesse.h"

typedef enum vt_peer_format {
  VT_PEER_NONE = 0,
  VT_PEER_CRFPP,  /* CRF++ binary or text (crf_learn, crf_learn -t) */
  VT_PEER_WAPITI, /* Wapiti 1.5 text model */
} vt_peer_format;

/* The peer format the first `n` bytes of a file start (CRF++ binary: version 1xx and type 0;
 * CRF++ text: "version:"; Wapiti: "#mdl#"), or VT_PEER_NONE. */
vt_peer_format vt_peer_sniff(const unsigned char *head, size_t n);

/* The format named `s` ("crfpp", "wapiti"), or VT_PEER_NONE. */
vt_peer_format vt_peer_format_named(const char *s);

/* Opens the `size` bytes of a `fmt` model at `data` (`name` names it in messages) as a native
 * model. cost_factor > 0 multiplies every CRF++ weight (crf_test -c; 0: the model's own, as
 * crf_test). Returns VT_OK, VT_EFORMAT (truncated, corrupt, another version, a template the peer
 * would refuse: one line "NAME: problem" in err) or VT_ENOMEM. */
vt_status vt_peer_load_mem(vt_textmodel **out, vt_peer_format fmt, const void *data, size_t size,
                           const char *name, double cost_factor, char *err, size_t errlen);

#endif
