/* io/npy.h: NumPy .npy files (format versions 1.0, 2.0 and 3.0), read through mmap.
 *
 * Accepted dtypes: '<f4', '<f8', '<i4', '<i8'; '=' (native order) is accepted as '<' because
 * vitesse only runs on little-endian hosts (vt_npy_open returns VT_EUNSUPPORTED elsewhere).
 * Arrays must be in C order and have at most 2 dimensions. Everything else is rejected with a
 * one-line message naming the file and the problem. */
#ifndef VT_IO_NPY_H
#define VT_IO_NPY_H

#include <stddef.h>
#include <stdint.h>

#include "vitesse.h"

typedef enum vt_npy_dtype { VT_NPY_F32, VT_NPY_F64, VT_NPY_I32, VT_NPY_I64 } vt_npy_dtype;

typedef struct vt_npy {
  vt_npy_dtype dtype;
  int ndim;         /* 0..2 (0 = scalar, count 1) */
  int64_t shape[2]; /* shape[0..ndim); unused entries are 0 */
  int64_t count;    /* product of shape (1 for a scalar) */
  const void *data; /* count elements, little-endian, C order, aligned for the dtype */
  void *map;        /* internal: the read-only mapping of the whole file, or NULL */
  size_t map_len;   /* internal: its length */
  void *owned;      /* internal: a heap copy of the data (unaligned data, pipes), or NULL */
} vt_npy;

/* Returns the size in bytes of one element of `dtype` (4 or 8). */
size_t vt_npy_itemsize(vt_npy_dtype dtype);

/* Returns the .npy descr of `dtype`: "<f4", "<f8", "<i4" or "<i8" (static string). */
const char *vt_npy_descr(vt_npy_dtype dtype);

/* Opens the .npy file `path` into *out. A regular file is mapped read-only (MAP_PRIVATE) and
 * stays mapped until vt_npy_close; `data` points into the mapping (copied to the heap only when
 * the header length leaves it misaligned). Other files (pipes) are read into memory. A 0-byte
 * data section (a shape with a 0 dimension) is fine. Bytes after the data are ignored, as numpy
 * does.
 * Returns VT_OK; VT_EIO when the file cannot be opened or read; VT_EFORMAT for an empty file, a
 * bad magic, an unsupported version, a truncated or malformed header, an unsupported or
 * big-endian dtype, Fortran order, a negative or non-integer dimension, more than 2 dimensions
 * or data shorter than the shape needs (the message gives expected and actual bytes);
 * VT_EUNSUPPORTED on a big-endian host; VT_ENOMEM. On failure *out is zeroed and `err` (errlen
 * bytes, may be 0) receives one line "PATH: problem", always NUL-terminated. */
int vt_npy_open(vt_npy *out, const char *path, char *err, size_t errlen);

/* Unmaps / frees the array and zeroes *npy. Idempotent; fine on a zeroed struct and NULL. */
void vt_npy_close(vt_npy *npy);

/* Drops the resident pages of a mapped array from the one holding element `first` up to, not
 * including, the one holding element first + count (MADV_DONTNEED on a read-only private file
 * mapping: the data stay readable and come back from the file when touched again). Releasing
 * consecutive ranges behind a pass thus drops every page it has finished with and keeps
 * resident memory flat. A no-op for arrays read into the heap and for an empty range. */
void vt_npy_release(const vt_npy *npy, int64_t first, int64_t count);

/* As vt_npy_release, only the pages that lie wholly inside elements [first, first + count): a
 * thread done with a range drops what no neighbouring range can share (the engine's workers,
 * after their batch; the writer then releases the rest behind it at little cost). */
void vt_npy_release_inside(const vt_npy *npy, int64_t first, int64_t count);

/* Returns element `i` (0 <= i < count, flat C-order index) as a double. Meant for the float
 * dtypes; integer dtypes are converted (exactly up to 2^53). */
double vt_npy_get_f(const vt_npy *npy, int64_t i);

/* Returns element `i` (0 <= i < count) as an int64. Meant for the integer dtypes; a float
 * element is truncated toward zero, and is 0 when NaN or outside the int64 range. */
int64_t vt_npy_get_i(const vt_npy *npy, int64_t i);

/* Formats the shape of `npy` as Python does ("()", "(5,)", "(2, 3)") into buf (buflen bytes,
 * NUL-terminated). Returns buf. */
char *vt_npy_shape_str(const vt_npy *npy, char *buf, size_t buflen);

/* Formats the header of a .npy v1.0 file of `ndim` in 0..2 dimensions shape[0..ndim) of
 * `dtype` (C order) into buf (cap >= 256 bytes): magic, version, length and the dictionary padded
 * with blanks and a newline to a multiple of 64 bytes. Returns its length; the data follow. */
size_t vt_npy_header(vt_npy_dtype dtype, int ndim, const int64_t *shape, char *buf, size_t cap);

/* Writes a .npy v1.0 file (header padded to a multiple of 64 bytes) atomically through
 * io/outfile: `ndim` in 0..2 dimensions `shape[0..ndim)` (each >= 0; shape may be NULL when
 * ndim is 0), `data` holds their product of elements of `dtype` in C order (may be NULL when
 * that is 0). `path` "-" writes to stdout.
 * Returns VT_OK; VT_EINVAL for a bad ndim, dtype or shape; VT_EIO when writing fails (nothing is
 * left at `path` then); VT_ENOMEM. `err` (errlen bytes) receives one line on failure. */
int vt_npy_write(const char *path, vt_npy_dtype dtype, int ndim, const int64_t *shape,
                 const void *data, char *err, size_t errlen);

#endif
