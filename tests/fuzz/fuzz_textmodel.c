/* tests/fuzz/fuzz_textmodel.c: fuzz target of the text tagger's model file (engine/models/model_file.c,
 * vt_textmodel_load_mem; engine/text/textmodel.c).
 *
 * The input is one model file; fuzz_model.h says what is done with it (the header's size field
 * and, outside the fuzzing build, its checksums are made consistent first: fuzz_common.h). */
#define _GNU_SOURCE /* memfd_create (fuzz_common.h) */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return fz_model_input(data, size); }
