/* mpi/split.c: split points of a column corpus and reading its byte ranges (split.h). */
#define _POSIX_C_SOURCE 200809L
#include "split.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

/* The byte at `pos` (< s->size), or -2 on a read error. */
static int byte_at(vt_mpi_src *s, int64_t pos) {
  if (s->mem) return (unsigned char)s->mem[pos];
  if (pos < s->win_at || pos >= s->win_at + s->win_len) {
    int64_t at = pos >= (int64_t)sizeof s->win / 2 ? pos - (int64_t)sizeof s->win / 2 : 0;
    ssize_t n = pread(s->fd, s->win, sizeof s->win, (off_t)at);
    if (n <= 0 || pos >= at + n) {
      if (n >= 0) errno = 0; /* the file shrank: vt_mpi_read_why says so */
      return -2;
    }
    s->win_at = at;
    s->win_len = (int)n;
  }
  return (unsigned char)s->win[pos - s->win_at];
}

static int is_ws(int c) { return c == ' ' || c == '\t' || c == '\r'; }

int64_t vt_mpi_split(vt_mpi_src *s, int64_t q) {
  if (q <= 0) return 0;
  if (q >= s->size) return s->at_eof ? s->size : -1;
  /* Is the part of q-1's line before q-1 blank? */
  int blank = 1;
  for (int64_t j = q - 2; j >= 0; j--) {
    int c = byte_at(s, j);
    if (c < 0) return -2;
    if (c == '\n') break;
    if (s->items || !is_ws(c)) {
      blank = 0;
      break;
    }
  }
  for (int64_t i = q - 1; i < s->size; i++) {
    int c = byte_at(s, i);
    if (c < 0) return -2;
    if (c == '\n') {
      if (blank) return i + 1;
      blank = 1;
    } else if (s->items || !is_ws(c)) {
      blank = 0;
    }
  }
  return s->at_eof ? s->size : -1;
}

int vt_mpi_first_sep(vt_mpi_src *s, int comments) {
  int64_t line = 0; /* start of the current line */
  int blank = 1, tab = 0;
  for (int64_t i = 0; i <= s->size; i++) {
    int c = i < s->size ? byte_at(s, i) : '\n';
    if (c < 0) return -2;
    if (c == '\n') {
      if (i == s->size && !s->at_eof) break; /* the line may go on */
      int comment = 0;
      if (comments && i > line) {
        int c0 = byte_at(s, line);
        if (c0 < 0) return -2;
        comment = c0 == '#';
      }
      if (!blank && !comment) return tab ? VT_SEP_TAB : VT_SEP_SPACE;
      line = i + 1;
      blank = 1;
      tab = 0;
      continue;
    }
    if (c == '\t') tab = 1;
    if (!is_ws(c)) blank = 0;
  }
  return VT_SEP_AUTO;
}

int vt_mpi_read_range(const vt_mpi_src *s, int64_t from, int64_t to, char *dst) {
  while (from < to) {
    size_t want = (size_t)(to - from) > ((size_t)1 << 30) ? (size_t)1 << 30 : (size_t)(to - from);
    ssize_t n = pread(s->fd, dst, want, (off_t)from);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = 0; /* the file ended early: vt_mpi_read_why says so */
      return -1;
    }
    from += n;
    dst += n;
  }
  return 0;
}

const char *vt_mpi_read_why(int err) {
  return err ? strerror(err)
             : "the file ended before its measured size (it changed while being read)";
}
