/* tests/fuzz/fuzz_crfpp.c: fuzz target of CRF++ 0.58/0.59 binary and text models (engine/models/peer_crfpp.c),
 * opened as format "crfpp" whatever the content (fuzz_peer.h). */
#define _GNU_SOURCE /* memfd_create (fuzz_common.h) */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_peer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return fz_peer_input(data, size, "crfpp");
}
