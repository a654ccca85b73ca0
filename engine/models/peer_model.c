/* engine/models/peer_model.c: recognising and opening peer toolkits' models (see peer_model.h). */
#include "models/peer_model.h"

#include "models/peer_crfpp.h"
#include "models/peer_wapiti.h"

#include <string.h>

#include "core/errmsg.h"
#include "io/outfile.h"

vt_peer_format vt_peer_sniff(const unsigned char *head, size_t n) {
  if (n >= 8 && !memcmp(head, "version:", 8)) return VT_PEER_CRFPP;
  if (n >= 5 && !memcmp(head, "#mdl#", 5)) return VT_PEER_WAPITI;
  if (n >= 8) {
    uint32_t version, type;
    memcpy(&version, head, 4);
    memcpy(&type, head + 4, 4);
    if (version / 100 == 1 && type == 0) return VT_PEER_CRFPP;
  }
  return VT_PEER_NONE;
}

vt_peer_format vt_peer_format_named(const char *s) {
  if (!strcmp(s, "crfpp")) return VT_PEER_CRFPP;
  if (!strcmp(s, "wapiti")) return VT_PEER_WAPITI;
  return VT_PEER_NONE;
}

vt_status vt_peer_load_mem(vt_textmodel **out, vt_peer_format fmt, const void *data, size_t size,
                           const char *name, double cost_factor, char *err, size_t errlen) {
  *out = NULL;
  switch (fmt) {
  case VT_PEER_CRFPP: return vt_peer_crfpp_load(out, data, size, name, cost_factor, err, errlen);
  case VT_PEER_WAPITI: return vt_peer_wapiti_load(out, data, size, name, err, errlen);
  case VT_PEER_NONE: break;
  }
  vt_errorf(err, errlen, name, "not a model of a known format");
  return VT_EFORMAT;
}
