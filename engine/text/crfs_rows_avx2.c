/* engine/text/crfs_rows_avx2.c: the CRFsuite item rows (crfs_rows_body.h) at AVX2: the body built
 * with -mavx2, which vectorizes its row additions. tests/test_crfsuite.c checks every level against
 * the reference reader, bit for bit. */
#include "text/crfs_rows.h"

#include "text/crfs_rows_body.h"

const vt_crfs_rows_ops vt_crfs_rows_avx2 = {VT_SIMD_AVX2, crfs_rows_level, index_hash};
