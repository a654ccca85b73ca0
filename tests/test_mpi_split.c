/* tests/test_mpi_split.c: vitesse-mpi's byte ranges of a file (mpi/split.c) when the file is
 * shorter than measured (it shrank between the measure and the read): a read error whose
 * message says the file ended early, never strerror(0)'s "Success". No MPI needed. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "split.h" /* mpi/split.h: the test target and the clang check add mpi/ */

TEST(short_read_says_the_file_ended) {
  char path[] = "/tmp/vt_mpi_split_XXXXXX";
  const char text[] = "a X\nb Y\n\nc X\n";
  const int64_t n = (int64_t)(sizeof text - 1);
  char buf[64];
  vt_mpi_src *src = calloc(1, sizeof *src);
  int fd = mkstemp(path);
  REQUIRE(src && fd >= 0, "a temporary file");
  EXPECT(write(fd, text, (size_t)n) == (ssize_t)n, "writing it");
  src->fd = fd;
  src->at_eof = 1;
  src->size = n;
  EXPECT(vt_mpi_read_range(src, 0, n, buf) == 0 && !memcmp(buf, text, (size_t)n), "whole file");
  EXPECT_EQ_INT(vt_mpi_split(src, 5), 9, "the split point after the blank line");
  /* measured 40 bytes, 13 there: a short read, errno 0, and the message says what happened */
  src->size = 40;
  src->win_len = 0;
  errno = EINVAL;
  EXPECT_EQ_INT(vt_mpi_read_range(src, 0, 40, buf), -1, "read past the end");
  EXPECT_EQ_INT(errno, 0, "errno of a short read");
  EXPECT(strstr(vt_mpi_read_why(errno), "ended before its measured size") != NULL, "%s",
         vt_mpi_read_why(errno));
  errno = EINVAL;
  EXPECT_EQ_INT(vt_mpi_split(src, 20), -2, "a split search past the end");
  EXPECT_EQ_INT(errno, 0, "errno of the split search");
  EXPECT_EQ_STR(vt_mpi_read_why(EIO), strerror(EIO), "a real error keeps its words");
  free(src);
  if (fd >= 0) close(fd);
  unlink(path);
}

TEST_MAIN(CASE(short_read_says_the_file_ended))
