/* engine/models/peer_crfpp.h: CRF++ 0.58/0.59 models (binary and text), opened as native tagger
 * models (peer_crfpp.c; vt_peer_load_mem chooses it). */
#ifndef VT_MODELS_PEER_CRFPP_H
#define VT_MODELS_PEER_CRFPP_H

#include <stddef.h>

#include "text/textmodel.h"
#include "vitesse.h"

/* Opens the `size` bytes of a CRF++ model at `data` (`name` in messages; `cost_factor`: the
 * -c of crf_test, scaling every weight) as a native model into *out; returns as
 * vt_peer_load_mem. */
vt_status vt_peer_crfpp_load(vt_textmodel **out, const void *data, size_t size, const char *name,
                             double cost_factor, char *err, size_t errlen);

#endif
