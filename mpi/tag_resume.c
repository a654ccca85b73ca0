/* mpi/tag_resume.c: `vitesse-mpi tag -o OUT --resume` (tag_run.h). What is kept beside OUT, and
 * how, is resume.c's (OUT.partial, OUT.progress with the run's identity, tag_resume.c's, and a
 * place), kept by rank 0; the ranks write OUT.partial together with MPI-IO, as they write the
 * temporary file without --resume, and make it durable together (MPI_File_sync) before rank 0
 * records a place. A place is the end of a round in a regular file: a split point (split.h),
 * where a reader started anew is where it would be anyway, so the bytes the job writes after it
 * are the bytes an uninterrupted job writes there, whatever the number of ranks and round size
 * (the output of a sentence depends only on it). Its progress file starts "vitesse-mpi-tag-resume
 * 1": vitesse tag's places are not split points, so neither continues the other's run. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/tag_resume.h"
#include "tag_run.h"

#define MSG 1024

/* Rank 0: a named input that is gzip data (only regular uncompressed files are cut by ranges,
 * and only their rounds are places), or NULL. */
static const char *gzip_input(const vt_mpi_tag_run *r) {
  for (int i = 0; i < r->t.n_files; i++) {
    unsigned char magic[2] = {0, 0};
    int fd = open(r->t.files[i], O_RDONLY);
    ssize_t n = fd >= 0 ? pread(fd, magic, 2, 0) : 0;
    if (fd >= 0) close(fd);
    if (n == 2 && magic[0] == 0x1f && magic[1] == 0x8b) return r->t.files[i];
  }
  return NULL;
}

/* Rank 0: the checks, the identity, OUT.partial opened where the run continues; -1 to go on,
 * else the exit status (printed). *place: the saved place and OUT.partial's length there. */
static int begin_root(vt_mpi_tag_run *r, int quiet, long long *place) {
  vt_cli_tag_run tr = {.run = &r->t.run,
                       .m = r->t.m,
                       .to = &r->t.to,
                       .files = r->t.files,
                       .n_files = r->t.n_files,
                       .out_path = r->t.out_path,
                       .model_path = r->t.model_path,
                       .opts = r->argv + 1,
                       .n_opts = r->t.files ? (int)(r->t.files - (const char *const *)r->argv) - 1
                                            : r->argc - 1};
  vt_cli_resume_id id;
  int rc = vt_cli_tag_resume_id(&tr, "vitesse-mpi-tag-resume 1", &id);
  if (rc >= 0) return rc;
  const char *gz = gzip_input(r);
  if (gz) {
    vt_cli_resume_id_free(&id);
    vt_cli_error("tag: --resume: %s is gzip data: vitesse-mpi resumes uncompressed files "
                 "(vitesse tag --resume resumes it)",
                 gz);
    return VT_EXIT_USAGE;
  }
  const vt_corpus_pos *from = NULL;
  const char *const outs[1] = {r->t.out_path};
  rc = vt_cli_resume_begin(&r->rr, "tag", outs, 1, &id, r->t.files, r->t.n_files, quiet, &from);
  if (rc >= 0) return rc;
  if (from) {
    place[0] = from->file;
    place[1] = (long long)from->offset;
    place[2] = (long long)from->lines;
    place[3] = (long long)from->sentences;
    place[4] = (long long)ftello(r->rr.out[0]); /* cut to the saved length */
  }
  return -1;
}

int vt_mpi_tag_resume_begin(vt_mpi_tag_run *r, int quiet) {
  const vt_mpi *w = r->w;
  char msg[MSG] = "";
  long long place[5] = {0, 0, 0, 0, 0}; /* file, offset, lines, sentences, OUT.partial's bytes */
  int code = VT_MPI_OK;
  if (w->rank == 0) {
    int rc = begin_root(r, quiet, place);
    if (rc >= 0) code = rc == VT_EXIT_USAGE ? VT_MPI_BAD : VT_MPI_FAIL; /* printed */
    r->saved_at = vt_mpi_now();
  }
  if ((code = vt_mpi_agree(w, code, "")) != VT_MPI_OK) return code;
  MPI_Bcast(place, 5, MPI_LONG_LONG, 0, w->comm);
  memset(&r->from, 0, sizeof r->from);
  r->from.file = (int32_t)place[0];
  r->from.offset = place[1];
  r->from.lines = place[2];
  r->from.sentences = place[3];
  r->at = r->from;
  r->done_sents = place[3];
  memset(&r->out, 0, sizeof r->out);
  snprintf(r->out.tmp, sizeof r->out.tmp, "%s.partial", r->t.out_path);
  r->out.base = (MPI_Offset)place[4];
  int err = MPI_File_open(w->comm, r->out.tmp, MPI_MODE_WRONLY, MPI_INFO_NULL, &r->out.fh);
  if (err == MPI_SUCCESS) {
    r->out.open = 1;
  } else {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(err, text, &len);
    snprintf(msg, sizeof msg, "%.700s: cannot open with MPI-IO: %.*s", r->out.tmp,
             len > 250 ? 250 : len, text);
  }
  code = vt_mpi_agree(w, err == MPI_SUCCESS ? VT_MPI_OK : VT_MPI_FAIL, msg);
  if (code != VT_MPI_OK) vt_mpi_out_abort(w, &r->out);
  return code;
}

int vt_mpi_tag_resume_mark(vt_mpi_tag_run *r, int force) {
  const vt_mpi *w = r->w;
  char msg[MSG] = "";
  int due = force;
  if (w->rank == 0 && !due) due = vt_mpi_now() - r->saved_at >= r->rr.every;
  MPI_Bcast(&due, 1, MPI_INT, 0, w->comm);
  if (!due) return VT_MPI_OK;
  int err = MPI_File_sync(r->out.fh), code = VT_MPI_OK;
  if (err != MPI_SUCCESS) {
    snprintf(msg, sizeof msg, "%.700s: write error (sync)", r->out.tmp);
    code = VT_MPI_FAIL;
  }
  if ((code = vt_mpi_agree(w, code, msg)) != VT_MPI_OK) return code;
  if (w->rank == 0) {
    long long len[2] = {(long long)r->out.base, 0};
    int e = vt_cli_resume_save(&r->rr, &r->at, len);
    if (e) {
      snprintf(msg, sizeof msg, "%.700s: cannot write: %s", r->rr.progress, strerror(e));
      code = VT_MPI_FAIL;
    }
    r->saved_at = vt_mpi_now();
  }
  return vt_mpi_agree(w, code, msg);
}

int vt_mpi_tag_resume_end(vt_mpi_tag_run *r, int code) {
  const vt_mpi *w = r->w;
  int rc = VT_MPI_OK;
  if (w->rank == 0) {
    if (code == VT_MPI_OK)
      rc = vt_cli_resume_commit(&r->rr) ? VT_MPI_FAIL : VT_MPI_OK; /* printed */
    else if (code == VT_MPI_BAD)
      vt_cli_resume_discard(&r->rr);
  }
  rc = vt_mpi_agree(w, rc, "");
  return code != VT_MPI_OK ? code : rc;
}
