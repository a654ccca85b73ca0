/* tests/test_crfs_items.c: the CRFsuite item reader (io/crfs_items.h) gives the same sequences,
 * items and line numbers whichever way it holds the input: a plain file mapped, the same bytes
 * gzipped (read), or in memory. The mapped file is larger than the reader keeps in memory, so
 * that pages behind the reader are dropped: a batch kept from the start still reads its items
 * (they come back from the file), and a reader put where another one was (resume) goes on with
 * the same items. */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "harness.h"
#include "io/crfs_items.h"

#define SEQS 60000              /* about 9 MB of items: more than twice what a mapping keeps */
#define BATCH ((size_t)1 << 16) /* bytes a batch is asked for */

/* The item file: sequence s has 1 + s % 5 items; item t of it is "Y<s%7>\ta<s>_<t>\tb:<t>"
 * with a run of filler attributes; sequences end with one empty line, or two. */
static char *items_text(size_t *len) {
  size_t cap = (size_t)SEQS * 200, n = 0;
  char *p = malloc(cap);
  if (!p) return NULL;
  for (int s = 0; s < SEQS; s++) {
    for (int t = 0; t <= s % 5; t++)
      n += (size_t)snprintf(p + n, cap - n, "Y%d\ta%d_%d\tb:%d\tfiller=%08d\tmore=%d\n", s % 7, s,
                            t, t, s * 31 + t, t * s);
    n += (size_t)snprintf(p + n, cap - n, s % 3 ? "\n" : "\n\n");
  }
  *len = n;
  return p;
}

/* What a reader gives, each sequence as "line0:item|item|...\n", in one string. */
typedef struct seen {
  char *s;
  size_t len, cap;
} seen;

static int seen_put(seen *a, const char *p, size_t n) {
  if (a->len + n + 1 > a->cap) {
    size_t c = a->cap ? 2 * a->cap : 1 << 20;
    while (c < a->len + n + 1) c *= 2;
    char *q = realloc(a->s, c);
    if (!q) return -1;
    a->s = q;
    a->cap = c;
  }
  memcpy(a->s + a->len, p, n);
  a->len += n;
  a->s[a->len] = 0;
  return 0;
}

/* Appends batch b's sequences to a; -1 when an item lies outside the batch's bytes. */
static int seen_batch(seen *a, const vt_items_batch *b) {
  int64_t item = 0;
  for (int32_t s = 0; s < b->n_seq; s++) {
    char head[32];
    const int hn = snprintf(head, sizeof head, "%llu:", (unsigned long long)b->line0[s]);
    if (seen_put(a, head, (size_t)hn)) return -1;
    for (int32_t i = 0; i < b->n_items[s]; i++, item++) {
      const size_t at = b->at[item], n = b->lens[item];
      if (at < b->from || at > b->len || n > b->len - at) return -1;
      if (seen_put(a, b->src + at, n) || seen_put(a, i + 1 < b->n_items[s] ? "|" : "\n", 1))
        return -1;
    }
  }
  return item == b->items ? 0 : -1;
}

/* Reads all of r into a, batch by batch; the first batch stays in *first (not read again),
 * and is checked again at the end, after the reader has gone through the whole file. */
static vt_status read_all(vt_items *r, seen *a, vt_items_batch *first, int *mapped) {
  vt_items_batch b;
  memset(&b, 0, sizeof b);
  char err[256] = "";
  vt_status st = vt_items_read(r, first, BATCH, err, sizeof err);
  if (st != VT_OK || seen_batch(a, first)) return st != VT_OK ? st : VT_EFORMAT;
  *mapped = first->map != NULL;
  while ((st = vt_items_read(r, &b, BATCH, err, sizeof err)) == VT_OK && b.n_seq > 0)
    if (seen_batch(a, &b)) st = VT_EFORMAT;
  vt_items_batch_free(&b);
  return st;
}

static char *tmp_file(const char *tag) {
  static char paths[4][64];
  static int k;
  char *p = paths[k++ % 4];
  snprintf(p, 64, "/tmp/vt_items_%s_%ld", tag, (long)getpid());
  return p;
}

TEST(mapped_gzip_and_memory_agree) {
  size_t len = 0;
  char *text = items_text(&len);
  REQUIRE(text != NULL, "out of memory");
  const char *plain = tmp_file("plain"), *gz = tmp_file("gz");
  FILE *f = fopen(plain, "wb");
  REQUIRE(f && fwrite(text, 1, len, f) == len && fclose(f) == 0, "write %s", plain);
  gzFile z = gzopen(gz, "wb1");
  REQUIRE(z && gzwrite(z, text, (unsigned)len) == (int)len && gzclose(z) == Z_OK, "write %s", gz);
  seen a[3];
  memset(a, 0, sizeof a);
  int mapped[3] = {0, 0, 0};
  for (int k = 0; k < 3; k++) {
    vt_items *r = NULL;
    char err[256] = "";
    vt_status st = k == 2 ? vt_items_open_mem(&r, "mem", text, len, 0, 0, 0, err, sizeof err)
                          : vt_items_open(&r, k ? gz : plain, 0, 0, err, sizeof err);
    REQUIRE(st == VT_OK, "open %d: %s", k, err);
    vt_items_batch first;
    memset(&first, 0, sizeof first);
    st = read_all(r, &a[k], &first, &mapped[k]);
    EXPECT_EQ_INT(st, VT_OK, "read");
    vt_items_close(r);
    /* The first batch outlives its reader, and reads what it read at first. */
    seen again;
    memset(&again, 0, sizeof again);
    EXPECT(seen_batch(&again, &first) == 0 && again.len <= a[k].len &&
               !memcmp(again.s, a[k].s, again.len),
           "the first batch after the whole file (reader %d)", k);
    free(again.s);
    vt_items_batch_free(&first);
  }
  EXPECT(mapped[0] && !mapped[1] && !mapped[2], "mapped: plain %d, gzip %d, memory %d", mapped[0],
         mapped[1], mapped[2]);
  EXPECT(a[0].len > 0 && a[0].len == a[1].len && !memcmp(a[0].s, a[1].s, a[0].len),
         "mapped and gzip agree");
  EXPECT(a[0].len == a[2].len && !memcmp(a[0].s, a[2].s, a[0].len), "mapped and memory agree");
  /* The last sequence: its number of items, and the line it starts on. */
  const int s = SEQS - 1;
  char want[64];
  snprintf(want, sizeof want, "|Y%d\ta%d_%d\t", s % 7, s, s % 5);
  EXPECT(a[0].len > 0 && strstr(a[0].s + a[0].len / 2, want) != NULL, "last item '%s'", want);
  for (int k = 0; k < 3; k++) free(a[k].s);
  unlink(plain);
  unlink(gz);
  free(text);
}

TEST(mapped_resume_goes_on) {
  size_t len = 0;
  char *text = items_text(&len);
  REQUIRE(text != NULL, "out of memory");
  const char *plain = tmp_file("resume");
  FILE *f = fopen(plain, "wb");
  REQUIRE(f && fwrite(text, 1, len, f) == len && fclose(f) == 0, "write %s", plain);
  free(text);
  vt_items *r = NULL;
  char err[256] = "";
  REQUIRE(vt_items_open(&r, plain, 0, 0, err, sizeof err) == VT_OK, "open: %s", err);
  vt_items_batch b;
  memset(&b, 0, sizeof b);
  /* Far enough in that pages behind it are dropped. */
  for (int i = 0; i < 100; i++)
    REQUIRE(vt_items_read(r, &b, BATCH, err, sizeof err) == VT_OK && b.n_seq > 0, "read: %s", err);
  uint64_t lines = 0;
  const int64_t at = vt_items_where(r, &lines);
  seen rest[2];
  memset(rest, 0, sizeof rest);
  while (vt_items_read(r, &b, BATCH, err, sizeof err) == VT_OK && b.n_seq > 0)
    REQUIRE(seen_batch(&rest[0], &b) == 0, "batch");
  vt_items_close(r);
  REQUIRE(vt_items_open(&r, plain, 0, 0, err, sizeof err) == VT_OK, "open: %s", err);
  REQUIRE(vt_items_skip(r, at, lines, err, sizeof err) == VT_OK, "skip: %s", err);
  while (vt_items_read(r, &b, BATCH, err, sizeof err) == VT_OK && b.n_seq > 0)
    REQUIRE(seen_batch(&rest[1], &b) == 0, "batch");
  vt_items_close(r);
  EXPECT(at > ((int64_t)4 << 20), "resumed past the dropped pages (%lld)", (long long)at);
  EXPECT(rest[0].len > 0 && rest[0].len == rest[1].len &&
             !memcmp(rest[0].s, rest[1].s, rest[0].len),
         "the same items after the resume");
  /* A skip past the end, or after a read, is refused. */
  REQUIRE(vt_items_open(&r, plain, 0, 0, err, sizeof err) == VT_OK, "open: %s", err);
  EXPECT(vt_items_skip(r, (int64_t)len + 1, 0, err, sizeof err) == VT_EIO, "past the end");
  vt_items_close(r);
  free(rest[0].s);
  free(rest[1].s);
  vt_items_batch_free(&b);
  unlink(plain);
}

TEST_MAIN(CASE(mapped_gzip_and_memory_agree), CASE(mapped_resume_goes_on))
