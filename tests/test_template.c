/* tests/test_template.c: the template language against hand-computed feature strings: CRF++
 * macros, several per line, sentinels, Wapiti's %t / %m / upper-case commands, the regex
 * subset, and the errors of malformed templates. */
#include <string.h>

#include "test_util.h"
#include "text/regex.h"
#include "text/template.h"

/* A sentence of T tokens and 2 columns, from "w0/p0 w1/p1 ..." pairs. */
typedef struct sent {
  char base[512];
  uint32_t fields[64];
  vt_tokens tk;
} sent;

static void sent_make(sent *s, const char *const *cols, int T) {
  size_t n = 0;
  for (int i = 0; i < 2 * T; i++) {
    size_t len = strlen(cols[i]);
    memcpy(s->base + n, cols[i], len);
    s->fields[2 * i] = (uint32_t)n;
    s->fields[2 * i + 1] = (uint32_t)len;
    n += len;
  }
  s->tk.T = T;
  s->tk.ncols = 2;
  s->tk.base = s->base;
  s->tk.fields = s->fields;
}

/* Expands template i of `ts` at t and compares with `want`. */
static void expect_expand(const vt_tmplset *ts, int32_t i, const sent *s, int32_t t,
                          const char *want) {
  char buf[512];
  size_t bound = vt_tmpl_bound(ts, i, 64), at = vt_tmpl_bound_at(ts, i, &s->tk, t);
  size_t n = vt_tmpl_expand(ts, i, &s->tk, t, buf);
  EXPECT(n < bound, "template %d at %d: length %zu over its bound %zu", i, t, n, bound);
  EXPECT(n < at, "template %d at %d: length %zu over its position bound %zu", i, t, n, at);
  EXPECT(n == strlen(want) && memcmp(buf, want, n) == 0, "template %d at %d: got '%.*s', want '%s'",
         i, t, (int)n, buf, want);
}

/* vt_tmpl_bound_unigrams over sentence s holds the unigram templates' expansions at every
 * position, and bounds the sum of their position bounds. */
static void expect_sentence_bound(const vt_tmplset *ts, const sent *s) {
  char buf[512];
  size_t total = 0, at = 0;
  for (int32_t k = 0; k < ts->n_u; k++)
    for (int32_t t = 0; t < s->tk.T; t++) {
      total += vt_tmpl_expand(ts, ts->u_idx[k], &s->tk, t, buf);
      at += vt_tmpl_bound_at(ts, ts->u_idx[k], &s->tk, t);
    }
  const size_t b = vt_tmpl_bound_unigrams(ts, &s->tk);
  EXPECT(total <= b && at <= b, "sentence bound %zu under %zu expanded or %zu position bounds", b,
         total, at);
}

/* CRF++ templates: comments, CRLF, blank lines, several macros per line, sentinels, B. */
TEST(crfpp) {
  const char *text = "# a comment\r\n"
                     "\n"
                     "U00:%x[-2,0]\n"
                     "U01:%x[0,0]\r\n"
                     "U02:%x[1,1]\n"
                     "U05:%x[-1,0]/%x[0,0]/%x[1,0]\n"
                     "  U06:%x[3,1]  \n"
                     "U\n"
                     "B\n"
                     "B10:%x[0,1]\n";
  vt_tmplset ts;
  char err[256];
  vt_status st = vt_tmplset_parse(&ts, text, strlen(text), "t.tmpl", err, sizeof err);
  EXPECT(st == VT_OK, "parse: %s", err);
  if (st != VT_OK) return;
  EXPECT_EQ_INT(ts.n, 7, "templates kept (plain B is the matrix)");
  EXPECT_EQ_INT(ts.n_u, 6, "unigram templates");
  EXPECT_EQ_INT(ts.n_b, 1, "observation-dependent bigram templates");
  EXPECT_EQ_INT(ts.plain_bigram, 1, "plain bigram");
  EXPECT_EQ_INT(ts.max_col, 1, "max column");
  static const char *const cols[] = {"He", "PRP", "reckons", "VBZ", "the", "DT"};
  sent s;
  sent_make(&s, cols, 3);
  expect_expand(&ts, 0, &s, 0, "U00:_B-2");
  expect_expand(&ts, 0, &s, 1, "U00:_B-1");
  expect_expand(&ts, 0, &s, 2, "U00:He");
  expect_expand(&ts, 1, &s, 1, "U01:reckons");
  expect_expand(&ts, 2, &s, 0, "U02:VBZ");
  expect_expand(&ts, 2, &s, 2, "U02:_B+1");
  expect_expand(&ts, 3, &s, 0, "U05:_B-1/He/reckons");
  expect_expand(&ts, 3, &s, 2, "U05:reckons/the/_B+1");
  expect_expand(&ts, 4, &s, 0, "U06:_B+1");
  expect_expand(&ts, 4, &s, 2, "U06:_B+3");
  expect_expand(&ts, 5, &s, 1, "U");
  expect_expand(&ts, 6, &s, 1, "B10:VBZ");
  expect_sentence_bound(&ts, &s);
  vt_tmplset_free(&ts);
}

/* Sentinels far from the sentence: one digit (written without snprintf) and two. */
TEST(sentinels) {
  const char *text = "U00:%x[-12,0]/%x[10,1]/%x[-9,0]/%x[9,0]\n";
  vt_tmplset ts;
  char err[256];
  vt_status st = vt_tmplset_parse(&ts, text, strlen(text), "s.tmpl", err, sizeof err);
  EXPECT(st == VT_OK, "parse: %s", err);
  if (st != VT_OK) return;
  static const char *const cols[] = {"a", "A", "b", "B", "c", "C"};
  sent s;
  sent_make(&s, cols, 3);
  expect_expand(&ts, 0, &s, 0, "U00:_B-12/_B+8/_B-9/_B+7");
  expect_expand(&ts, 0, &s, 1, "U00:_B-11/_B+9/_B-8/_B+8");
  expect_expand(&ts, 0, &s, 2, "U00:_B-10/_B+10/_B-7/_B+9");
  expect_sentence_bound(&ts, &s);
  vt_tmplset_free(&ts);
}

/* Wapiti's %t / %m and their upper-case forms. */
TEST(wapiti) {
  const char *text = "U30:%m[0,0,\".?.?.?$\"]\n"     /* 3-byte suffix */
                     "U31:%m[0,0,\"^.?.?\"]\n"       /* 2-byte prefix */
                     "U32:%t[0,0,\"^\\u\"]\n"        /* capitalized */
                     "U33:%T[0,0,\"\\d\"]/%X[0,0]\n" /* has a digit / lower-cased word */
                     "U34:%M[0,0,\"\\u\\l*\"]\n"     /* a capital and the fewest lower case */
                     "U35:%m[0,0,\"\\d\\d?\"]\n"     /* first digits, ? greedy */
                     "U36:%m[-1,0,\"B.\"]\n"         /* on a sentinel */
                     "U37:%t[0,0,\"^\\A*$\"]\n"      /* no letter at all */
                     "U38:%m[0,0,\"x$\"]\n"          /* no match: empty */
                     "U39:%m[0,0,\"\\p\"]\n";        /* first punctuation */
  vt_tmplset ts;
  char err[256];
  vt_status st = vt_tmplset_parse(&ts, text, strlen(text), "w.tmpl", err, sizeof err);
  EXPECT(st == VT_OK, "parse: %s", err);
  if (st != VT_OK) return;
  static const char *const cols[] = {"Reckons", "x", "A4-b77", "y", "hi", "z", "12", "w"};
  sent s;
  sent_make(&s, cols, 4);
  expect_expand(&ts, 0, &s, 0, "U30:ons");
  expect_expand(&ts, 0, &s, 2, "U30:hi");
  expect_expand(&ts, 1, &s, 0, "U31:Re");
  expect_expand(&ts, 1, &s, 2, "U31:hi");
  expect_expand(&ts, 2, &s, 0, "U32:true");
  expect_expand(&ts, 2, &s, 2, "U32:false");
  expect_expand(&ts, 3, &s, 0, "U33:false/reckons");
  expect_expand(&ts, 3, &s, 1, "U33:true/a4-b77");
  expect_expand(&ts, 4, &s, 0, "U34:r");
  expect_expand(&ts, 4, &s, 1, "U34:a");
  expect_expand(&ts, 4, &s, 2, "U34:");
  expect_expand(&ts, 5, &s, 1, "U35:4");
  expect_expand(&ts, 5, &s, 3, "U35:12");
  expect_expand(&ts, 6, &s, 0, "U36:B-");
  expect_expand(&ts, 7, &s, 3, "U37:true");
  expect_expand(&ts, 7, &s, 1, "U37:false");
  expect_expand(&ts, 8, &s, 0, "U38:");
  expect_expand(&ts, 9, &s, 1, "U39:-");
  expect_sentence_bound(&ts, &s);
  vt_tmplset_free(&ts);
}

/* Wapiti's pattern dialect (chosen by a line starting with u, b or *): type letters in either
 * case, `*` = unigram + bigram (the bigram half keyed "\n" + string), `#` comments anywhere,
 * blanks inside brackets, @ absolute positions, C's %i rows, _x sentinels capped at 4. */
TEST(wapiti_dialect) {
  const char *text = "# Wapiti pattern\n"
                     "*\n"
                     "u00:%x[ -1, 0] # the previous word\n"
                     "U:wrd X=%X[ 0,0]\n"
                     "*04:%x[ 0,1]\n"
                     "u05:%x[@1,0]/%x[@-1,0]/%x[@0,0]\n"
                     "u06:%x[-5,0]/%x[5,0]/%x[-4,0]\n"
                     "u07:%x[010,0]/%x[0x1,0]\n"
                     "b\n"
                     "B08:%x[0,1]#x\n";
  EXPECT_EQ_INT(vt_tmpl_is_wapiti(text, strlen(text)), 1, "sniffed");
  EXPECT_EQ_INT(vt_tmpl_is_wapiti("U:%x[0,0]\nB\n", 12), 0, "CRF++ text is not Wapiti's");
  vt_tmplset ts;
  char err[256];
  vt_status st = vt_tmplset_parse(&ts, text, strlen(text), "w.pat", err, sizeof err);
  EXPECT(st == VT_OK, "parse: %s", err);
  if (st != VT_OK) return;
  EXPECT_EQ_INT(ts.wapiti, 1, "dialect");
  EXPECT_EQ_INT(ts.plain_bigram, 1, "bare * and b: the label bigram");
  EXPECT_EQ_INT(ts.n_u, 7, "unigram templates");
  EXPECT_EQ_INT(ts.n_b, 2, "bigram templates: half of *04 and B08");
  static const char *const cols[] = {"He", "PRP", "Reckons", "VBZ", "the", "DT"};
  sent s;
  sent_make(&s, cols, 3);
  expect_expand(&ts, 0, &s, 1, "*");
  expect_expand(&ts, 1, &s, 0, "u00:_x-1");
  expect_expand(&ts, 1, &s, 2, "u00:Reckons");
  expect_expand(&ts, 2, &s, 1, "U:wrd X=reckons");
  expect_expand(&ts, 3, &s, 1, "*04:VBZ");
  expect_expand(&ts, 4, &s, 1, "\n*04:VBZ");
  expect_expand(&ts, 5, &s, 2, "u05:He/the/_x-1");
  expect_expand(&ts, 6, &s, 0, "u06:_x-#/_x+3/_x-4");
  expect_expand(&ts, 6, &s, 2, "u06:_x-3/_x+#/_x-2");
  expect_expand(&ts, 7, &s, 0, "u07:_x+#/Reckons");
  expect_expand(&ts, 8, &s, 1, "B08:VBZ");
  vt_tmplset_free(&ts);
  const char *bad = "u01:%x[0,0]\nq02:%x[0,0]\n";
  EXPECT(vt_tmplset_parse(&ts, bad, strlen(bad), "w.pat", err, sizeof err) == VT_EFORMAT &&
             strstr(err, "w.pat:2: "),
         "unknown pattern type: %s", err);
}

/* The regex subset directly: leftmost match, * takes the fewest, ? the most. */
TEST(regex) {
  static const struct {
    const char *re, *s;
    int hit;
    size_t start, len;
  } cases[] = {
      {"b*", "abc", 1, 0, 0},     {"ab*c", "xabbbc", 1, 1, 5},  {"a?b", "b", 1, 0, 1},
      {"a?ab", "ab", 1, 0, 2},    {"^a", "ba", 0, 0, 0},        {"a$", "aba", 1, 2, 1},
      {"\\d\\D", "a1b", 1, 1, 2}, {"\\s", "a b", 1, 1, 1},      {"\\.", "a.b", 1, 1, 1},
      {"^$", "", 1, 0, 0},        {"\\w*$", "ab", 1, 0, 2},     {"\\W", "ab", 0, 0, 0},
      {".", "\xce\xb1", 1, 0, 1}, {"\\a", "\xce\xb1", 0, 0, 0}, {"$", "ab", 1, 2, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    size_t st = 99, len = 99;
    int hit = vt_regex_search(cases[i].re, cases[i].s, strlen(cases[i].s), &st, &len);
    EXPECT(hit == cases[i].hit && (!hit || (st == cases[i].start && len == cases[i].len)),
           "regex '%s' on '%s': hit %d at %zu len %zu", cases[i].re, cases[i].s, hit, st, len);
  }
}

/* The backtracking matcher Wapiti's order is defined by (recursive, exponential in the worst
 * case): the reference the bounded search must equal on small patterns and texts. */
static int ref_item(const char *ch, unsigned char c) {
  size_t a, b;
  char re[3] = {ch[0], ch[0] == '\\' ? ch[1] : '\0', '\0'};
  char s[1] = {(char)c};
  return vt_regex_search(re, s, 1, &a, &b); /* one item, one byte: no search order involved */
}

static int ref_here(const char *re, const unsigned char *s, size_t i, size_t n, size_t *mend) {
  if (re[0] == '\0') return *mend = i, 1;
  if (re[0] == '$' && re[1] == '\0') return *mend = i, i == n;
  const char *nxt = re + 1 + (re[0] == '\\');
  if (nxt[0] == '*') {
    for (;; i++) {
      if (ref_here(nxt + 1, s, i, n, mend)) return 1;
      if (i >= n || !ref_item(re, s[i])) return 0;
    }
  }
  if (nxt[0] == '?') {
    if (i < n && ref_item(re, s[i]) && ref_here(nxt + 1, s, i + 1, n, mend)) return 1;
    return ref_here(nxt + 1, s, i, n, mend);
  }
  return i < n && ref_item(re, s[i]) && ref_here(nxt, s, i + 1, n, mend);
}

static int ref_search(const char *re, const char *s, size_t n, size_t *start, size_t *len) {
  size_t end;
  for (size_t pos = 0; pos <= n; pos++) {
    if (ref_here(re + (re[0] == '^'), (const unsigned char *)s, pos, n, &end))
      return *start = pos, *len = end - pos, 1;
    if (re[0] == '^') break;
  }
  return 0;
}

/* Random patterns of up to 6 items over a small alphabet (letters, '.', classes; '*', '?';
 * anchors) against random texts of up to 12 bytes: the same hit, start and length as the
 * reference, many ties between the alternatives included. */
TEST(regex_order) {
  static const char *atoms[] = {"a", "b", ".", "\\d", "\\D", "\\l", "\\W"};
  static const char text_bytes[] = "ab1B ";
  uint64_t rng = 42;
  int checked = 0;
  for (int round = 0; round < 200000; round++) {
    char re[64], s[16];
    size_t k = 0, n;
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    uint64_t r = rng >> 11;
    if (r % 4 == 0) re[k++] = '^';
    r /= 4;
    int items = (int)(r % 7);
    r /= 7;
    for (int j = 0; j < items; j++) {
      rng = rng * 6364136223846793005ull + 1442695040888963407ull;
      uint64_t q = rng >> 13;
      const char *a = atoms[q % 7];
      q /= 7;
      for (const char *c = a; *c; c++) re[k++] = *c;
      if (q % 3 == 1) re[k++] = '*';
      if (q % 3 == 2) re[k++] = '?';
    }
    if (r % 3 == 0) re[k++] = '$';
    re[k] = '\0';
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    n = (size_t)((rng >> 20) % 13);
    for (size_t j = 0; j < n; j++) {
      rng = rng * 6364136223846793005ull + 1442695040888963407ull;
      s[j] = text_bytes[(rng >> 24) % 5];
    }
    size_t s1 = 99, l1 = 99, s2 = 99, l2 = 99;
    int h1 = vt_regex_search(re, s, n, &s1, &l1), h2 = ref_search(re, s, n, &s2, &l2);
    EXPECT(h1 == h2 && (!h1 || (s1 == s2 && l1 == l2)),
           "'%s' on '%.*s': hit %d at %zu len %zu, reference %d at %zu len %zu", re, (int)n, s, h1,
           s1, l1, h2, s2, l2);
    checked++;
  }
  EXPECT(checked == 200000, "checked %d", checked);
}

/* Patterns that make backtracking exponential (".*" repeated, then a byte that is not there)
 * or recursion deep (as many '?' items as the limit, on a long token): answered, and a pattern
 * past the limit is refused with a message. */
TEST(regex_bounds) {
  char re[4 * VT_REGEX_MAX_ITEMS + 8];
  size_t k = 0, st = 99, len = 99;
  for (int j = 0; j < 30; j++) re[k++] = '.', re[k++] = '*';
  re[k++] = 'Q', re[k] = '\0';
  char tok[41];
  memset(tok, 'x', 40);
  tok[40] = '\0';
  EXPECT(vt_regex_search(re, tok, 40, &st, &len) == 0, "30 x '.*' then Q: no match");
  tok[39] = 'Q';
  EXPECT(vt_regex_search(re, tok, 40, &st, &len) == 1 && st == 0 && len == 40, "with a Q: %zu %zu",
         st, len);
  k = 0;
  for (int j = 0; j < VT_REGEX_MAX_ITEMS; j++) re[k++] = 'a', re[k++] = '?';
  re[k] = '\0';
  EXPECT(vt_regex_check(re) == NULL, "%d items are allowed", VT_REGEX_MAX_ITEMS);
  const size_t n = 200000;
  char *big = malloc(n);
  REQUIRE(big != NULL, "memory");
  memset(big, 'a', n);
  EXPECT(vt_regex_search(re, big, n, &st, &len) == 1 && st == 0 && len == VT_REGEX_MAX_ITEMS,
         "a? x %d on 200000 bytes: %zu %zu", VT_REGEX_MAX_ITEMS, st, len);
  big[n - 1] = 'b';
  k -= 2; /* a? x (limit - 1), then b$: the limit again */
  re[k++] = 'b', re[k++] = '$', re[k] = '\0';
  EXPECT(vt_regex_search(re, big, n, &st, &len) == 1 && st == n - VT_REGEX_MAX_ITEMS &&
             len == VT_REGEX_MAX_ITEMS,
         "a? x %d then b$: %zu %zu", VT_REGEX_MAX_ITEMS - 1, st, len);
  free(big);
  k -= 2; /* a? x (limit - 1), then two more: past the limit */
  re[k++] = 'a', re[k++] = '?', re[k++] = 'a', re[k++] = '?', re[k] = '\0';
  const char *why = vt_regex_check(re);
  EXPECT(why && strstr(why, "more than " VT_REGEX_MAX_ITEMS_TEXT " items"), "refused: %s",
         why ? why : "(accepted)");
}

/* Malformed templates: VT_EFORMAT and one message naming file and line. */
TEST(errors) {
  static const struct {
    const char *text, *want;
  } cases[] = {
      {"U00:%x[0,0]\nX01:%x[0,0]\n", "bad.tmpl:2: a template starts with U or B"},
      {"U00:%x[0]\n", "bad.tmpl:1: malformed macro"},
      {"U00:%x[a,0]\n", "bad.tmpl:1: malformed macro"},
      {"U00:%y[0,0]\n", "bad.tmpl:1: unknown macro"},
      {"U00:%t[0,0]\n", "bad.tmpl:1: malformed macro"},
      {"U00:%m[0,0,\"ab\n", "bad.tmpl:1: malformed macro"},
      {"\n\nU00:%m[0,0,\"*a\"]\n", "bad.tmpl:3: regex"},
      {"U00:%m[0,0,\"a**\"]\n", "bad.tmpl:1: regex"},
      {"# nothing\n\n", "bad.tmpl: no templates"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    vt_tmplset ts;
    char err[256] = "";
    vt_status st =
        vt_tmplset_parse(&ts, cases[i].text, strlen(cases[i].text), "bad.tmpl", err, sizeof err);
    EXPECT(st == VT_EFORMAT, "case %zu: status %d", i, st);
    EXPECT(strncmp(err, cases[i].want, strlen(cases[i].want)) == 0, "case %zu: '%s'", i, err);
    vt_tmplset_free(&ts);
  }
}

TEST_MAIN(CASE(crfpp), CASE(sentinels), CASE(wapiti), CASE(wapiti_dialect), CASE(regex),
          CASE(regex_order), CASE(regex_bounds), CASE(errors))
