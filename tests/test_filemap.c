/* tests/test_filemap.c: whole files in memory (io/filemap.h) and the page advice the loaders
 * give (alloc/prefault.h, alloc/heap_trim.h): the bytes a caller sees never change. A mapped
 * range dropped from memory reads back from the file; heap memory is never dropped (its pages
 * would come back zeroed); a prefaulted block keeps what it held; a trimmed heap keeps live
 * blocks; a big block is aligned for huge pages and keeps what it held; a plain file is told
 * from a gzip one. */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc/heap_trim.h"
#include "alloc/prefault.h"
#include "harness.h"
#include "io/filemap.h"

#define BYTES ((size_t)1 << 20) /* 256 pages: whole pages inside any range dropped below */

/* Byte i of the test pattern: no run of equal bytes a page long, and never all zeros. */
static unsigned char pattern(size_t i) {
  return (unsigned char)(1 + (i * 2654435761u >> 13) % 251);
}

static int pattern_holds(const unsigned char *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (p[i] != pattern(i)) return 0;
  return 1;
}

/* Writes the n bytes at p to a new temporary file named into path (a mkstemp template). */
static int temp_with(char *path, const void *p, size_t n) {
  const int fd = mkstemp(path);
  if (fd < 0) return 0;
  const int ok = write(fd, p, n) == (ssize_t)n;
  close(fd);
  return ok;
}

TEST(mapped_range_dropped_reads_back) {
  char path[] = "/tmp/vt_filemap_XXXXXX";
  unsigned char *buf = malloc(BYTES);
  REQUIRE(buf != NULL, "malloc");
  for (size_t i = 0; i < BYTES; i++) buf[i] = pattern(i);
  const int wrote = temp_with(path, buf, BYTES);
  free(buf);
  REQUIRE(wrote, "write %s", path);
  vt_filemap m;
  char err[256] = "";
  const vt_status st = vt_filemap_open(&m, path, err, sizeof err);
  unlink(path); /* the mapping keeps the bytes */
  REQUIRE(st == VT_OK, "open: %s", err);
  EXPECT_EQ_INT(m.len, BYTES, "length");
  EXPECT_EQ_INT(m.heap, 0, "a regular file is mapped");
  EXPECT(pattern_holds(m.p, m.len), "the file's bytes");
  /* an unaligned range in the middle: its whole pages go, and come back from the file */
  vt_filemap_drop(&m, (unsigned char *)m.p + 1000, BYTES / 2);
  EXPECT(pattern_holds(m.p, m.len), "the bytes after a drop");
  vt_filemap_close(&m);
  EXPECT(m.p == NULL && m.len == 0, "closed and zeroed");
}

TEST(heap_range_never_dropped) {
  /* The heap case of vt_filemap (what a pipe is read into): a drop must leave it alone. */
  unsigned char *p = aligned_alloc(4096, BYTES);
  REQUIRE(p != NULL, "aligned_alloc");
  for (size_t i = 0; i < BYTES; i++) p[i] = pattern(i);
  vt_filemap m = {p, BYTES, 1};
  vt_filemap_drop(&m, p, BYTES);
  EXPECT(pattern_holds(p, BYTES), "heap bytes after a drop");
  vt_filemap_close(&m); /* frees p */
  EXPECT(m.p == NULL, "closed and zeroed");
}

TEST(directory_refused) {
  vt_filemap m;
  char err[256] = "";
  EXPECT(vt_filemap_open(&m, "/tmp", err, sizeof err) == VT_EIO, "a directory");
  EXPECT(strstr(err, "/tmp: is a directory") != NULL, "message '%s'", err);
  EXPECT(m.p == NULL, "zeroed on failure");
  EXPECT(vt_filemap_open(&m, "/nonexistent/vt_filemap", err, sizeof err) == VT_EIO, "missing");
  EXPECT(strstr(err, "/nonexistent/vt_filemap: cannot open") != NULL, "message '%s'", err);
}

TEST(plain_files_told_from_gzip) {
  char text[] = "/tmp/vt_plain_XXXXXX", gz[] = "/tmp/vt_plain_XXXXXX",
       empty[] = "/tmp/vt_plain_XXXXXX";
  REQUIRE(temp_with(text, "B-NP\tw=a\n", 9), "text file");
  REQUIRE(temp_with(gz, "\x1f\x8b\x08\x00", 4), "gzip file");
  REQUIRE(temp_with(empty, "", 0), "empty file");
  EXPECT(vt_file_is_plain(text) == 1, "a text file is plain");
  EXPECT(vt_file_is_plain(empty) == 1, "an empty file is plain");
  EXPECT(vt_file_is_plain(gz) == 0, "a file with gzip's magic is not");
  EXPECT(vt_file_is_plain("/tmp") == 0, "a directory is not");
  EXPECT(vt_file_is_plain("/nonexistent/vt_plain") == 0, "a missing file is not");
  unlink(text);
  unlink(gz);
  unlink(empty);
}

TEST(prefault_and_trim_keep_contents) {
  unsigned char *p = malloc(BYTES + 123);
  REQUIRE(p != NULL, "malloc");
  for (size_t i = 0; i < BYTES + 123; i++) p[i] = pattern(i);
  vt_mem_prefault(p, BYTES + 123); /* written already: nothing may change */
  EXPECT(pattern_holds(p, BYTES + 123), "bytes after a prefault");
  unsigned char *q = malloc(BYTES); /* freed before the trim: its pages may go */
  REQUIRE(q != NULL, "malloc");
  memset(q, 7, BYTES);
  free(q);
  vt_heap_trim();
  EXPECT(pattern_holds(p, BYTES + 123), "a live block after a trim");
  vt_mem_prefault(NULL, BYTES); /* no-ops */
  vt_mem_prefault(p, 10);
  free(p);
}

TEST(big_blocks_aligned_for_huge_pages) {
  const size_t sizes[] = {0, 1, 100, (size_t)2 << 20, ((size_t)5 << 20) + 123};
  for (int i = 0; i < 5; i++) {
    const size_t n = sizes[i];
    unsigned char *p = vt_mem_alloc_big(n);
    REQUIRE(p != NULL, "alloc %zu", n);
    const uintptr_t align = n >= ((size_t)2 << 20) ? (uintptr_t)2 << 20 : 64;
    EXPECT((uintptr_t)p % align == 0, "%zu bytes at %p: aligned to %zu", n, (void *)p,
           (size_t)align);
    vt_mem_prefault(p, n); /* huge pages offered, then present: nothing written changes */
    for (size_t k = 0; k < n; k++) p[k] = pattern(k);
    vt_mem_prefault(p, n);
    EXPECT(pattern_holds(p, n), "%zu bytes written and kept", n);
    free(p);
  }
}

TEST_MAIN(CASE(mapped_range_dropped_reads_back), CASE(heap_range_never_dropped),
          CASE(directory_refused), CASE(prefault_and_trim_keep_contents),
          CASE(big_blocks_aligned_for_huge_pages), CASE(plain_files_told_from_gzip))
