/* engine/text/crfs_rows_scalar.c: the CRFsuite item rows (crfs_rows_body.h) at the portable level
 * (baseline x86-64: SSE2 for the line scans). tests/test_crfsuite.c checks every level against the
 * reference reader, bit for bit. */
#include "text/crfs_rows.h"

#include "text/crfs_rows_body.h"

const vt_crfs_rows_ops vt_crfs_rows_scalar = {VT_SIMD_SCALAR, crfs_rows_level, index_hash};
