/* tests/fuzz/fuzz_wapiti.c: fuzz target of Wapiti 1.5 text models (engine/models/peer_wapiti.c), opened as
 * format "wapiti" whatever the content (fuzz_peer.h). */
#define _GNU_SOURCE /* memfd_create (fuzz_common.h) */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_peer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return fz_peer_input(data, size, "wapiti");
}
