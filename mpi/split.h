/* mpi/split.h: where a column corpus (or a CRFsuite item file) may be cut between ranks, and its
 * bytes read.
 *
 * A position p is a split point when p is 0, the end of the input, or the line before p is blank
 * (only blanks, tabs and '\r': the line that ends a sentence, see vt_reader_opts; in an item
 * file only an empty line ends a sequence, a line of blanks being an item): cutting there never
 * splits a sentence, and the reader, started there, is where it would be anyway. */
#ifndef VT_MPI_SPLIT_H
#define VT_MPI_SPLIT_H

#include <stddef.h>
#include <stdint.h>

#include "vitesse.h"

/* Bytes to search: a file read with pread through a window (fd >= 0), or memory (mem). */
typedef struct vt_mpi_src {
  int fd;
  const char *mem;
  int64_t size;   /* bytes of the input (file) or of mem */
  int at_eof;     /* the input ends at size (a file: always; memory: the stream's last bytes) */
  int items;      /* a CRFsuite item file: only an empty line is blank */
  int64_t win_at; /* the window holds bytes [win_at, win_at + win_len) */
  int win_len;
  char win[1 << 16];
} vt_mpi_src;

/* The first split point >= q; -1 when mem ends (not at eof) before one is seen, -2 on a read
 * error (errno set; 0 when the file ended before s->size). */
int64_t vt_mpi_split(vt_mpi_src *s, int64_t q);

/* The separator vt_reader_opts' auto rule gives the input: VT_SEP_TAB when its first token line
 * (not blank, not a '#' comment when `comments`) has a tab, VT_SEP_SPACE when it has none,
 * VT_SEP_AUTO when no token line starts before s->size; -2 cast on a read error. */
int vt_mpi_first_sep(vt_mpi_src *s, int comments);

/* Reads bytes [from, to) of the file of `s` into `dst`; 0, or -1 on a read error (errno set;
 * 0 when the file ended before `to`: it shrank since it was measured). */
int vt_mpi_read_range(const vt_mpi_src *s, int64_t from, int64_t to, char *dst);

/* Why a read of the functions above failed, given their errno `err`: strerror's words, or for
 * 0 (a short read) that the file ended before its measured size. */
const char *vt_mpi_read_why(int err);

#endif
