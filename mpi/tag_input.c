/* mpi/tag_input.c: the readers of `vitesse-mpi tag` (tag_run.h). A regular uncompressed file is
 * cut by byte ranges: in round k, rank i takes nominal range [(kP + i) R, (kP + i + 1) R) (R =
 * VITESSE_MPI_ROUND_BYTES, default 16 MiB, or less so that a smaller file is shared evenly), both
 * ends moved forward to the next split point (split.h: a blank line, or for a CRFsuite model's
 * item files an empty one), reads it with pread: a sentence
 * straddling a nominal cut goes whole to the rank before the cut. Standard input, pipes and gzip
 * files cannot be cut without reading them: rank 0 reads (inflates) them, R P bytes a round, cuts
 * that at split points into P parts of about the same size (the tail after the last split point
 * waits for the next round) and scatters them (MPI_Scatterv). Line numbers in messages count
 * from the file's start: an MPI_Exscan of each part's newlines (ranges), or rank 0's count
 * (stream). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "split.h"
#include "tag_run.h"

#define MSG 1024

int64_t vt_mpi_count_lines(const char *p, size_t n) {
  int64_t k = 0;
  if (!n) return 0;
  for (const char *e = p + n; (p = memchr(p, '\n', (size_t)(e - p))) != NULL; p++) k++;
  return k;
}

int vt_mpi_tag_ranges(vt_mpi_tag_run *r, const char *path, int64_t size, int sep) {
  const vt_mpi *w = r->w;
  char msg[MSG] = "";
  vt_mpi_src *src = calloc(1, sizeof *src);
  int code = VT_MPI_OK;
  if (!src) {
    snprintf(msg, sizeof msg, "out of memory");
    code = VT_MPI_FAIL;
  } else if ((src->fd = open(path, O_RDONLY)) < 0) {
    snprintf(msg, sizeof msg, "%s: cannot open: %s", path, strerror(errno));
    code = VT_MPI_BAD;
  }
  if (src) {
    src->size = size;
    src->at_eof = 1;
    src->items = r->items;
  }
  if ((code = vt_mpi_agree(w, code, msg)) != VT_MPI_OK) goto done;
  if (sep != VT_SEP_AUTO) { /* the file's separator, once (the reader's auto rule) */
    r->t.to.reader.sep = (vt_sep)sep;
  }
  /* Rounds of at most round_bytes a rank from b0 (0, or a resumed run's place: a split point);
   * a smaller file is shared evenly. */
  const int64_t b0 = r->at.offset, P = w->size, even = (size - b0 + P - 1) / P;
  const int64_t R = even < r->round_bytes ? (even > 0 ? even : 1) : r->round_bytes;
  const int64_t rounds = (size - b0 + R * P - 1) / (R * P);
  int64_t lines_before = r->at.lines;
  for (int64_t k = 0; k < rounds; k++) {
    double t = vt_mpi_now();
    int64_t j = k * P + w->rank;
    int64_t q0 = b0 + j * R, q1 = b0 + (j + 1) * R;
    int64_t from = vt_mpi_split(src, q0 < size ? q0 : size);
    int64_t to = from < 0 ? from : vt_mpi_split(src, q1 < size ? q1 : size);
    code = VT_MPI_OK;
    r->in.len = 0;
    if (from < 0 || to < 0) {
      snprintf(msg, sizeof msg, "%s: read error: %s", path, vt_mpi_read_why(errno));
      code = VT_MPI_BAD;
    } else if (vt_mpi_buf_reserve(&r->in, (size_t)(to - from))) {
      snprintf(msg, sizeof msg, "out of memory (%lld bytes of %s)", (long long)(to - from), path);
      code = VT_MPI_FAIL;
    } else if (vt_mpi_read_range(src, from, to, r->in.p)) {
      snprintf(msg, sizeof msg, "%s: read error: %s", path, vt_mpi_read_why(errno));
      code = VT_MPI_BAD;
    } else {
      r->in.len = (size_t)(to - from);
    }
    long long mine = vt_mpi_count_lines(r->in.p, r->in.len), before = 0, all = 0;
    r->ph.read += vt_mpi_now() - t;
    t = vt_mpi_now();
    MPI_Exscan(&mine, &before, 1, MPI_LONG_LONG, MPI_SUM, w->comm);
    if (w->rank == 0) before = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_LONG_LONG, MPI_SUM, w->comm);
    code = vt_mpi_agree(w, code, msg);
    r->ph.exchange += vt_mpi_now() - t;
    if (code != VT_MPI_OK) goto done;
    int64_t upto = b0 + (k + 1) * R * P;
    code = vt_mpi_tag_round(r, path, lines_before + before, upto < size ? upto : size);
    if (code != VT_MPI_OK) goto done;
    lines_before += all;
    if (r->resume) { /* the round's end: the last rank's, a split point */
      if (w->rank == 0) r->at.offset = vt_mpi_split(src, upto < size ? upto : size);
      r->at.lines = lines_before;
      r->at.sentences = r->done_sents;
      if ((code = vt_mpi_tag_resume_mark(r, 0)) != VT_MPI_OK) goto done;
    }
  }
done:
  if (src && src->fd >= 0) close(src->fd);
  free(src);
  return code;
}

int vt_mpi_tag_stream(vt_mpi_tag_run *r, const char *path, int comments, int sep_given) {
  const vt_mpi *w = r->w;
  const int P = w->size;
  const int64_t R = r->round_bytes;
  char msg[MSG] = "";
  gzFile gz = NULL;
  vt_mpi_buf buf = {0, 0, 0};
  vt_mpi_src *src = NULL;
  long long *cut = NULL; /* rank 0: P (bytes, first line) pairs */
  int code = VT_MPI_OK, eof = 0, sep = sep_given ? -1 : VT_SEP_AUTO;
  int64_t lines = 0, consumed = 0;
  if (w->rank == 0) {
    int fd = strcmp(path, "-") ? open(path, O_RDONLY) : dup(0);
    src = calloc(1, sizeof *src);
    cut = malloc(2 * (size_t)P * sizeof *cut);
    if (src) src->items = r->items;
    if (fd < 0) {
      snprintf(msg, sizeof msg, "%s: cannot open: %s", path, strerror(errno));
      code = VT_MPI_BAD;
    } else if (!src || !cut || !(gz = gzdopen(fd, "rb"))) {
      close(fd);
      snprintf(msg, sizeof msg, "out of memory");
      code = VT_MPI_FAIL;
    }
    if (gz) gzbuffer(gz, 1 << 18);
  }
  if ((code = vt_mpi_agree(w, code, msg)) != VT_MPI_OK) goto done;
  for (;;) {
    double t = vt_mpi_now();
    int more = 0;
    code = VT_MPI_OK;
    if (w->rank == 0) { /* fill up to P R bytes, and on until the last cut is a split point */
      int64_t want = R * P, last = -1, nominal = 0;
      for (;;) {
        while (!eof && (int64_t)buf.len < want) {
          if (vt_mpi_buf_reserve(&buf, (size_t)(want - (int64_t)buf.len))) {
            snprintf(msg, sizeof msg, "out of memory (reading %s)", path);
            code = VT_MPI_FAIL;
            break;
          }
          size_t room = (size_t)(want - (int64_t)buf.len);
          int n = gzread(gz, buf.p + buf.len, (unsigned)(room > (1u << 30) ? 1u << 30 : room));
          int zc = Z_OK;
          const char *zmsg = n <= 0 ? gzerror(gz, &zc) : "";
          if (n < 0 || (n == 0 && zc != Z_OK && zc != Z_STREAM_END)) {
            if (zc == Z_ERRNO)
              snprintf(msg, sizeof msg, "%s: read error: %s", path, strerror(errno));
            else
              snprintf(msg, sizeof msg, "%s: corrupt or truncated gzip data: %s", path, zmsg);
            code = VT_MPI_BAD;
            break;
          }
          if (n == 0) eof = 1;
          buf.len += (size_t)n;
        }
        if (code != VT_MPI_OK) break;
        src->mem = buf.p;
        src->size = (int64_t)buf.len;
        src->at_eof = eof;
        nominal = R * P < src->size ? R * P : src->size;
        last = vt_mpi_split(src, nominal);
        if (last >= 0 || eof) break;
        want = (int64_t)buf.len * 2; /* a sentence longer than the round: read on */
      }
      if (code == VT_MPI_OK) {
        if (sep == VT_SEP_AUTO) sep = vt_mpi_first_sep(src, comments);
        if (sep == VT_SEP_AUTO && eof) sep = VT_SEP_SPACE; /* no token line at all */
        int64_t at = 0;
        for (int i = 0; i < P; i++) {
          /* the round's bytes shared evenly (the last round is short) */
          int64_t end = i == P - 1 ? last : vt_mpi_split(src, nominal * (i + 1) / P);
          if (end < 0 || end > last) end = last;
          if (end - at > INT32_MAX) {
            snprintf(msg, sizeof msg, "%s: a sentence over 2 GiB cannot be sent to a rank", path);
            code = VT_MPI_BAD;
          }
          cut[2 * i] = end - at;
          cut[2 * i + 1] = lines;
          lines += vt_mpi_count_lines(buf.p + at, (size_t)(end - at));
          at = end;
        }
        more = last > 0 || !eof;
      }
    }
    r->ph.read += vt_mpi_now() - t;
    t = vt_mpi_now();
    if ((code = vt_mpi_agree(w, code, msg)) != VT_MPI_OK) goto done;
    int hdr[2] = {more, sep};
    MPI_Bcast(hdr, 2, MPI_INT, 0, w->comm);
    if (!hdr[0]) break;
    if (hdr[1] == VT_SEP_TAB || hdr[1] == VT_SEP_SPACE) r->t.to.reader.sep = (vt_sep)hdr[1];
    long long mine[2];
    MPI_Scatter(cut, 2, MPI_LONG_LONG, mine, 2, MPI_LONG_LONG, 0, w->comm);
    r->in.len = 0;
    int fail = vt_mpi_buf_reserve(&r->in, (size_t)mine[0] + 1) ? 1 : 0, any = 0;
    MPI_Allreduce(&fail, &any, 1, MPI_INT, MPI_MAX, w->comm);
    if (any) {
      snprintf(msg, sizeof msg, "out of memory (a part of %lld bytes)", mine[0]);
      code = vt_mpi_agree(w, fail ? VT_MPI_FAIL : VT_MPI_OK, msg);
      goto done;
    }
    int *counts = NULL, *displs = NULL;
    if (w->rank == 0) {
      counts = malloc((size_t)P * sizeof *counts);
      displs = malloc((size_t)P * sizeof *displs);
      if (counts && displs) /* < P R + a sentence: the ints hold (checked above) */
        for (int i = 0, at = 0; i < P; at += counts[i++]) {
          counts[i] = (int)cut[2 * i];
          displs[i] = at;
        }
    }
    MPI_Scatterv(buf.p, counts, displs, MPI_CHAR, r->in.p, (int)mine[0], MPI_CHAR, 0, w->comm);
    r->in.len = (size_t)mine[0];
    int64_t sent = 0;
    if (w->rank == 0) { /* the tail after the last cut waits for the next round */
      for (int i = 0; i < P; i++) sent += cut[2 * i];
      memmove(buf.p, buf.p + sent, buf.len - (size_t)sent);
      buf.len -= (size_t)sent;
      consumed += sent;
      free(counts);
      free(displs);
    }
    r->ph.exchange += vt_mpi_now() - t;
    if ((code = vt_mpi_tag_round(r, path, mine[1], consumed)) != VT_MPI_OK) goto done;
  }
done:
  if (gz) gzclose(gz);
  free(buf.p);
  free(src);
  free(cut);
  return code;
}
