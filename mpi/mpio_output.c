/* mpi/mpio_output.c: one output file written by every rank with collective MPI-IO (mpi_cli.h). The
 * temporary file and its rename are the library's (vt_output on rank 0): what `vitesse tag -o`
 * does, so an interrupted or failed job leaves the target untouched. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "mpi_cli.h"

/* Bytes one collective write call moves at most per rank (MPI counts are ints). */
#define WRITE_PIECE ((size_t)1 << 30)

static void mpi_message(int err, const char *what, const char *path, char *msg, size_t n) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(err, text, &len);
  snprintf(msg, n, "%.700s: %s: %.*s", path, what, len > 250 ? 250 : len, text);
}

int vt_mpi_out_open(const vt_mpi *w, vt_mpi_out *o, const char *path) {
  char msg[1024] = "";
  int code = VT_MPI_OK;
  memset(o, 0, sizeof *o);
  if (w->rank == 0) {
    if (!path || !strcmp(path, "-")) {
      snprintf(msg, sizeof msg, "-o OUT is required: the ranks write one file together");
      code = VT_MPI_BAD;
    } else if (vt_output_open(&o->of, path) != VT_OK) {
      snprintf(msg, sizeof msg, "%s", vt_last_error());
      code = VT_MPI_BAD;
    } else if (!vt_output_is_atomic(o->of)) {
      snprintf(msg, sizeof msg, "%s: not a regular file (the ranks write one file together)", path);
      code = VT_MPI_BAD;
    } else {
      snprintf(o->tmp, sizeof o->tmp, "%s", vt_output_temp_path(o->of));
    }
  }
  if ((code = vt_mpi_agree(w, code, msg)) != VT_MPI_OK) {
    vt_output_abort(o->of);
    o->of = NULL;
    return code;
  }
  MPI_Bcast(o->tmp, (int)sizeof o->tmp, MPI_CHAR, 0, w->comm);
  int err = MPI_File_open(w->comm, o->tmp, MPI_MODE_WRONLY, MPI_INFO_NULL, &o->fh);
  if (err == MPI_SUCCESS)
    o->open = 1;
  else
    mpi_message(err, "cannot open with MPI-IO", o->tmp, msg, sizeof msg);
  code = vt_mpi_agree(w, err == MPI_SUCCESS ? VT_MPI_OK : VT_MPI_FAIL, msg);
  if (code != VT_MPI_OK) vt_mpi_out_abort(w, o);
  return code;
}

int vt_mpi_out_write(const vt_mpi *w, vt_mpi_out *o, const char *data, size_t len) {
  long long mine = (long long)len, before = 0, total = 0;
  MPI_Exscan(&mine, &before, 1, MPI_LONG_LONG, MPI_SUM, w->comm);
  if (w->rank == 0) before = 0; /* MPI_Exscan leaves rank 0's result undefined */
  MPI_Allreduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, w->comm);
  /* The same number of collective calls on every rank: pieces of at most WRITE_PIECE bytes. */
  long long calls = (long long)((len + WRITE_PIECE - 1) / WRITE_PIECE), most = calls;
  MPI_Allreduce(&calls, &most, 1, MPI_LONG_LONG, MPI_MAX, w->comm);
  int err = MPI_SUCCESS;
  char msg[1024] = "";
  for (long long c = 0; c < most; c++) {
    size_t at = (size_t)c * WRITE_PIECE;
    size_t n = at < len ? (len - at < WRITE_PIECE ? len - at : WRITE_PIECE) : 0;
    MPI_Status status;
    int e = MPI_File_write_at_all(o->fh, o->base + (MPI_Offset)before + (MPI_Offset)at,
                                  n ? data + at : NULL, (int)n, MPI_BYTE, &status);
    if (e != MPI_SUCCESS && err == MPI_SUCCESS) err = e;
  }
  if (err != MPI_SUCCESS) mpi_message(err, "write error", o->tmp, msg, sizeof msg);
  o->base += (MPI_Offset)total;
  return vt_mpi_agree(w, err == MPI_SUCCESS ? VT_MPI_OK : VT_MPI_FAIL, msg);
}

int vt_mpi_out_commit(const vt_mpi *w, vt_mpi_out *o) {
  char msg[1024] = "";
  int err = MPI_File_set_size(o->fh, o->base); /* the temporary file was empty: no-op but sure */
  if (err == MPI_SUCCESS) err = MPI_File_sync(o->fh);
  int err2 = MPI_File_close(&o->fh);
  o->open = 0;
  if (err == MPI_SUCCESS) err = err2;
  if (err != MPI_SUCCESS) mpi_message(err, "write error", o->tmp, msg, sizeof msg);
  int code = vt_mpi_agree(w, err == MPI_SUCCESS ? VT_MPI_OK : VT_MPI_FAIL, msg);
  if (code != VT_MPI_OK) {
    vt_mpi_out_abort(w, o);
    return code;
  }
  MPI_Barrier(w->comm); /* every rank's data is in the file before it takes the target's name */
  code = VT_MPI_OK;
  if (w->rank == 0 && o->of) { /* none: a --resume run's OUT.partial, renamed by its caller */
    if (vt_output_commit(o->of) != VT_OK) {
      snprintf(msg, sizeof msg, "%s", vt_last_error());
      code = VT_MPI_FAIL;
    }
    o->of = NULL;
  }
  return vt_mpi_agree(w, code, msg);
}

void vt_mpi_out_abort(const vt_mpi *w, vt_mpi_out *o) {
  int open = o->open, any = 0;
  MPI_Allreduce(&open, &any, 1, MPI_INT, MPI_MAX, w->comm);
  if (any && o->open) MPI_File_close(&o->fh);
  o->open = 0;
  if (any) MPI_Barrier(w->comm);
  vt_output_abort(o->of); /* rank 0: removes the temporary file */
  o->of = NULL;
}
