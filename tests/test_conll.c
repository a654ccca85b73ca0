/* tests/test_conll.c: the column-corpus reader: separators, CRLF, missing final newline, any
 * bytes, comments, CoNLL-U ranges and empty nodes, .gz input, batch limits, and the errors for
 * ragged columns and overlong sentences (naming FILE:LINE). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "io/conll.h"
#include "test_util.h"

static char dir[] = "/tmp/vt_test_conll.XXXXXX";

static void remove_dir(void) {
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd)) {
    fprintf(stderr, "could not remove %s\n", dir);
    _exit(1);
  }
}

/* Makes the temporary directory on the first call (removed at exit); returns 1 when it is there. */
static int dir_ready(void) {
  static int state; /* 0: not yet, 1: made, -1: failed */
  if (!state) {
    state = mkdtemp(dir) ? 1 : -1;
    if (state > 0) atexit(remove_dir);
  }
  return state > 0;
}

static const char *put(const char *name, const char *data, size_t n, int gz) {
  static char path[256];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  if (gz) {
    gzFile g = gzopen(path, "wb");
    gzwrite(g, data, (unsigned)n);
    gzclose(g);
  } else {
    FILE *f = fopen(path, "wb");
    fwrite(data, 1, n, f);
    fclose(f);
  }
  return path;
}

/* Reads the whole file into `b`; returns the status, err gets the message. */
static vt_status read_all(const char *path, const vt_conll_opts *o, vt_sentbatch *b, char *err) {
  vt_conll *r;
  vt_status st = vt_conll_open(&r, path, o, err, 256);
  if (st != VT_OK) return st;
  int32_t n;
  do st = vt_conll_read(r, b, 1000, 1 << 20, &n, err, 256);
  while (st == VT_OK && n > 0);
  vt_conll_close(r);
  return st;
}

/* Joins the fields of sentence s as "a|b c|d" (tokens by spaces, columns by '|'). */
static void render(const vt_sentbatch *b, int32_t s, char *out) {
  out[0] = 0;
  for (int32_t t = 0; t < b->sents[s].T; t++) {
    if (t) strcat(out, " ");
    for (int32_t c = 0; c < b->sents[s].ncols; c++) {
      size_t len;
      const char *f = vt_sentbatch_field(b, s, t, c, &len);
      if (c) strcat(out, "|");
      strncat(out, f, len);
    }
  }
}

static void expect_sents(const char *name, const char *data, size_t n, const vt_conll_opts *o,
                         int gz, const char *const *want, int32_t nwant) {
  vt_sentbatch b;
  memset(&b, 0, sizeof b);
  char err[256] = "", got[1024];
  const char *path = put(name, data, n, gz);
  vt_status st = read_all(path, o, &b, err);
  EXPECT(st == VT_OK, "%s: %s", name, err);
  EXPECT_EQ_INT(b.n_sents, nwant, name);
  for (int32_t s = 0; s < b.n_sents && s < nwant; s++) {
    render(&b, s, got);
    EXPECT(!strcmp(got, want[s]), "%s: sentence %d is '%s', want '%s'", name, s, got, want[s]);
  }
  vt_sentbatch_free(&b);
}

static void expect_error(const char *name, const char *data, const vt_conll_opts *o,
                         const char *want_suffix) {
  vt_sentbatch b;
  memset(&b, 0, sizeof b);
  char err[256] = "", want[512];
  const char *path = put(name, data, strlen(data), 0);
  snprintf(want, sizeof want, "%s%s", path, want_suffix);
  vt_status st = read_all(path, o, &b, err);
  EXPECT(st == VT_EFORMAT, "%s: status %d", name, st);
  EXPECT(!strncmp(err, want, strlen(want)), "%s: '%s', want '%s...'", name, err, want);
  vt_sentbatch_free(&b);
}

/* Default options, and the directory the cases write their files in. */
static int setup(vt_conll_opts *o) {
  vt_conll_opts_init(o);
  return dir_ready();
}

/* CRLF line ends, blank and white-space-only lines between sentences, no final newline; the same
 * from a .gz file. */
TEST(crlf_and_gz) {
  vt_conll_opts o;
  REQUIRE(setup(&o), "temporary directory");
  static const char crlf[] = "He PRP B-NP\r\nruns VBZ B-VP\r\n\r\n\r\n  \t \r\nOK UH O";
  static const char *const crlf_want[] = {"He|PRP|B-NP runs|VBZ|B-VP", "OK|UH|O"};
  expect_sents("crlf", crlf, strlen(crlf), &o, 0, crlf_want, 2);
  expect_sents("crlf.gz", crlf, strlen(crlf), &o, 1, crlf_want, 2);
}

/* Runs of spaces separate columns (any other byte is data); a tab-separated file keeps spaces
 * inside fields and empty fields. */
TEST(separators) {
  vt_conll_opts o;
  REQUIRE(setup(&o), "temporary directory");

  static const char spaces[] = "  a   b  \nc\x01\xff  \xce\xb1\n";
  static const char *const spaces_want[] = {"a|b c\x01\xff|\xce\xb1"};
  expect_sents("spaces", spaces, strlen(spaces), &o, 0, spaces_want, 1);

  static const char tabs[] = "New York\tNNP\n\tX\n";
  static const char *const tabs_want[] = {"New York|NNP |X"};
  expect_sents("tabs", tabs, strlen(tabs), &o, 0, tabs_want, 1);
}

/* Blank-separated lines of every length around the 64-byte blocks the splitter reads, with runs
 * of blanks and tabs at the ends, at the block edges and inside: each line's fields are those of
 * a byte-by-byte split. */
TEST(blank_runs_across_blocks) {
  vt_conll_opts o;
  REQUIRE(setup(&o), "temporary directory");
  enum { N = 600, MAXLEN = 300 };
  static char text[N * (MAXLEN + 2)];
  static uint32_t want_off[N][MAXLEN], want_len[N][MAXLEN];
  static int32_t want_n[N];
  test_rng r = {29};
  size_t at = 0;
  int32_t lines = 0;
  for (int i = 0; i < N; i++) {
    const size_t len =
        i < 8 ? 64 * (size_t)(1 + i % 4) : 1 + (size_t)test_int(&r, i < 200 ? 140 : MAXLEN);
    char *line = text + at;
    for (size_t k = 0; k < len; k++) {
      const int c = test_int(&r, 6);
      line[k] = c == 0 ? ' ' : c == 1 ? '\t' : c == 2 ? (char)0xff : (char)('a' + test_int(&r, 3));
    }
    if (len > 64 && test_int(&r, 2)) line[63] = line[64] = ' '; /* a run over a block's edge */
    if (i < 8) line[len - 1] = 'z'; /* a field up to the end of whole blocks */
    int32_t n = 0;
    for (size_t k = 0; k < len;) { /* the reference split */
      while (k < len && (line[k] == ' ' || line[k] == '\t')) k++;
      if (k == len) break;
      const size_t f = k;
      while (k < len && line[k] != ' ' && line[k] != '\t') k++;
      want_off[lines][n] = (uint32_t)f;
      want_len[lines][n++] = (uint32_t)(k - f);
    }
    if (!n) continue; /* a blank line: no sentence */
    want_n[lines++] = n;
    at += len;
    text[at++] = '\n';
    text[at++] = '\n';
  }
  o.sep = VT_SEP_SPACE;
  vt_sentbatch b;
  memset(&b, 0, sizeof b);
  char err[256] = "";
  const char *path = put("blank_runs", text, at, 0);
  EXPECT(read_all(path, &o, &b, err) == VT_OK, "read: %s", err);
  EXPECT_EQ_INT(b.n_sents, lines, "sentences");
  const char *src = text;
  for (int32_t s = 0; s < b.n_sents && s < lines; s++) {
    EXPECT(b.sents[s].T == 1 && b.sents[s].ncols == want_n[s], "line %d: %d columns, want %d", s,
           b.sents[s].ncols, want_n[s]);
    for (int32_t c = 0; c < b.sents[s].ncols && c < want_n[s]; c++) {
      size_t len;
      const char *f = vt_sentbatch_field(&b, s, 0, c, &len);
      EXPECT(len == want_len[s][c] && !memcmp(f, src + want_off[s][c], len),
             "line %d field %d: %zu bytes, want %u", s, c, len, want_len[s][c]);
    }
    src = strchr(src, '\n') + 2;
  }
  vt_sentbatch_free(&b);
}

/* A leading # is data unless comments are on. */
TEST(comments) {
  vt_conll_opts o;
  REQUIRE(setup(&o), "temporary directory");

  static const char hash[] = "# # B-NP\nx y z\n";
  static const char *const hash_want[] = {"#|#|B-NP x|y|z"};
  expect_sents("hash", hash, strlen(hash), &o, 0, hash_want, 1);
  vt_conll_opts oc = o;
  oc.comments = 1;
  static const char *const hash_c_want[] = {"x|y|z"};
  expect_sents("hash_comments", hash, strlen(hash), &oc, 0, hash_c_want, 1);
}

/* A batch of comment-only sentences has no fields: its template view holds no token (and,
 * under UBSan, adds no offset to a NULL pointer). */
TEST(comment_only_tokens) {
  vt_conll_opts o;
  REQUIRE(setup(&o), "temporary directory");
  o.comments = 1;
  static const char only[] = "# one\n\n# two\n# three\n\n";
  const char *p = put("only.txt", only, strlen(only), 0);
  vt_sentbatch b;
  memset(&b, 0, sizeof b);
  char err[256];
  EXPECT_EQ_INT(read_all(p, &o, &b, err), VT_OK, "read");
  EXPECT_EQ_INT(b.n_sents, 2, "sentences");
  for (int32_t s = 0; s < b.n_sents; s++) {
    vt_tokens tk;
    vt_sentbatch_tokens(&b, s, &tk);
    EXPECT_EQ_INT(tk.T, 0, "tokens");
    EXPECT(tk.fields == NULL, "no fields");
  }
  vt_sentbatch_free(&b);
}

/* A NUL byte is part of its field. */
TEST(nul_bytes) {
  vt_conll_opts o;
  REQUIRE(setup(&o), "temporary directory");

  static const char nul[] = "a\0b c\n";
  static const char *const nul_want[] = {"a|c"}; /* rendering stops at the NUL */
  expect_sents("nul", nul, sizeof nul - 1, &o, 0, nul_want, 1);
  {
    vt_sentbatch b;
    memset(&b, 0, sizeof b);
    char err[256];
    read_all(put("nul2", nul, sizeof nul - 1, 0), &o, &b, err);
    size_t len = 0;
    if (b.n_sents) vt_sentbatch_field(&b, 0, 0, 0, &len);
    EXPECT_EQ_INT(len, 3, "a field with a NUL byte keeps its length");
    vt_sentbatch_free(&b);
  }
}

/* CoNLL-U: comments, multi-word ranges and empty nodes are kept as pass-through lines. */
TEST(conllu) {
  vt_conll_opts o;
  REQUIRE(setup(&o), "temporary directory");
  vt_conll_opts ou = o;
  ou.conllu = 1;
  static const char conllu[] = "# sent_id = 1\n"
                               "1-2\tdon't\t_\t_\n"
                               "1\tdo\tdo\tAUX\n"
                               "2\tn't\tnot\tPART\n"
                               "2.1\tgo\tgo\tVERB\n"
                               "3\tgo\tgo\tVERB\n\n";
  static const char *const conllu_want[] = {"1|do|do|AUX 2|n't|not|PART 3|go|go|VERB"};
  expect_sents("conllu", conllu, strlen(conllu), &ou, 0, conllu_want, 1);
  {
    vt_sentbatch b;
    memset(&b, 0, sizeof b);
    char err[256];
    read_all(put("conllu2", conllu, strlen(conllu), 0), &ou, &b, err);
    EXPECT_EQ_INT(b.n_sents ? b.sents[0].nlines : 0, 6, "conllu lines kept for output");
    EXPECT_EQ_INT(b.n_sents ? b.lines[1].tok : 0, -1, "a range is a pass-through line");
    EXPECT_EQ_INT(b.n_sents ? vt_sentbatch_lineno(&b, 0, 2) : 0, 6, "line of token 2");
    vt_sentbatch_free(&b);
  }
}

/* Batches: at most 2 sentences per read; an empty file has none. */
TEST(batches) {
  vt_conll_opts o;
  REQUIRE(setup(&o), "temporary directory");
  {
    static const char three[] = "a\n\nb\n\nc\n";
    vt_conll *r;
    char err[256];
    vt_conll_open(&r, put("three", three, strlen(three), 0), &o, err, sizeof err);
    vt_sentbatch b;
    memset(&b, 0, sizeof b);
    int32_t n1, n2, n3;
    vt_conll_read(r, &b, 2, 1 << 20, &n1, err, sizeof err);
    vt_sentbatch_clear(&b);
    vt_conll_read(r, &b, 2, 1 << 20, &n2, err, sizeof err);
    vt_conll_read(r, &b, 2, 1 << 20, &n3, err, sizeof err);
    EXPECT(n1 == 2 && n2 == 1 && n3 == 0, "batches of 2: %d %d %d", n1, n2, n3);
    EXPECT_EQ_INT(b.n_sents, 1, "sentences after clear");
    EXPECT(b.n_sents == 1 && b.sents[0].T == 1 && b.bytes[b.lines[0].off] == 'c', "third");
    vt_sentbatch_free(&b);
    vt_conll_close(r);
  }
  expect_sents("empty", "", 0, &o, 0, NULL, 0);
}

/* Ragged columns, overlong sentences and missing files: an error naming FILE:LINE. */
TEST(errors) {
  vt_conll_opts o;
  REQUIRE(setup(&o), "temporary directory");
  expect_error("ragged", "a b c\nd e f\ng h\n", &o,
               ":3: 2 columns, but the sentence's first token (line 1) has 3");
  vt_conll_opts om = o;
  om.max_tokens = 3;
  expect_error("long", "w\nw\nw\n\nw\nw\nw\nw\n", &om, ":8: sentence longer than 3 tokens");
  {
    char err[256];
    vt_conll *r;
    EXPECT(vt_conll_open(&r, "/nonexistent/x", &o, err, sizeof err) == VT_EIO, "missing file");
  }
}

/* A truncated .gz file is an error, not a short corpus. */
TEST(truncated_gzip) {
  vt_conll_opts o;
  REQUIRE(setup(&o), "temporary directory");
  {
    char big[4096];
    for (size_t i = 0; i < sizeof big; i++) big[i] = (i % 7 == 6) ? '\n' : (char)('a' + i % 26);
    const char *p = put("trunc.gz", big, sizeof big, 1);
    FILE *f = fopen(p, "rb");
    char gzb[8192];
    size_t n = fread(gzb, 1, sizeof gzb, f);
    fclose(f);
    f = fopen(p, "wb");
    fwrite(gzb, 1, n / 2, f);
    fclose(f);
    vt_sentbatch b;
    memset(&b, 0, sizeof b);
    char err[256] = "";
    vt_status st = read_all(p, &o, &b, err);
    EXPECT(st == VT_EFORMAT && strstr(err, "gzip"), "truncated gzip: status %d '%s'", st, err);
    vt_sentbatch_free(&b);
  }
}

TEST_MAIN(CASE(crlf_and_gz), CASE(separators), CASE(blank_runs_across_blocks), CASE(comments),
          CASE(comment_only_tokens), CASE(nul_bytes), CASE(conllu), CASE(batches), CASE(errors),
          CASE(truncated_gzip))
