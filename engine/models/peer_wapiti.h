/* engine/models/peer_wapiti.h: Wapiti 1.5 text models, opened as native tagger models
 * (peer_wapiti.c; vt_peer_load_mem chooses it). */
#ifndef VT_MODELS_PEER_WAPITI_H
#define VT_MODELS_PEER_WAPITI_H

#include <stddef.h>

#include "text/textmodel.h"
#include "vitesse.h"

/* Opens the `size` bytes of a Wapiti model at `data` (`name` in messages) as a native model
 * into *out; returns as vt_peer_load_mem. */
vt_status vt_peer_wapiti_load(vt_textmodel **out, const void *data, size_t size, const char *name,
                              char *err, size_t errlen);

#endif
