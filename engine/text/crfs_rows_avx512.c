/* engine/text/crfs_rows_avx512.c: the CRFsuite item rows (crfs_rows_body.h) at AVX-512: the body
 * built with the AVX-512 flags (F, VL, BW), which vectorize its row additions.
 * tests/test_crfsuite.c checks every level against the reference reader, bit for bit. */
#include "text/crfs_rows.h"

#include "text/crfs_rows_body.h"

const vt_crfs_rows_ops vt_crfs_rows_avx512 = {VT_SIMD_AVX512, crfs_rows_level, index_hash};
