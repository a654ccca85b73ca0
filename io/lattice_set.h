/* io/lattice_set.h: the public vt_lattices (vitesse.h): a lattice set mapped from .npy files or
 * wrapped around the caller's memory, as the decode job reads it. */
#ifndef VT_IO_LATTICE_SET_H
#define VT_IO_LATTICE_SET_H

#include "core/synth.h"
#include "io/lattice_file.h"
#include "vitesse.h"

struct vt_lattices {
  int64_t n_sent;
  const int64_t *offset; /* n_sent + 1 row offsets: sentence s is rows offset[s] .. offset[s+1] */
  const void *E;         /* rows of L floats (is_f64 0) or doubles */
  int is_f64;
  int32_t L;
  const vt_npy *E_file; /* the mapped .npy, whose pages behind the writer are released; or NULL */
  const char *e_path;   /* names E in messages ("memory" when wrapped) */
  vt_lattice_file lf;   /* the files, when opened from files */
  int64_t *own_offset;  /* the offsets, when wrapped */
  int is_synth;         /* made by vt_lattices_synth: `syn` holds it */
  vt_synth syn;
};

#endif
