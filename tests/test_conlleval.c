/* tests/test_conlleval.c: conlleval's figures on small hand-worked examples (IOB2, IOB1, IOE1,
 * IOBES), compared with conlleval's report byte for byte. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "text/conlleval.h"

/* Evaluates "gold pred" pairs (a NULL gold is a sentence boundary) and compares the report. */
static void expect_report(const char *name, const char *const *pairs, const char *want) {
  vt_conlleval ev;
  vt_conlleval_init(&ev);
  for (const char *const *p = pairs; p[0] || p[1]; p += 2) {
    if (!p[0]) {
      vt_conlleval_boundary(&ev);
      continue;
    }
    vt_conlleval_token(&ev, p[0], strlen(p[0]), p[1], strlen(p[1]));
  }
  vt_conlleval_boundary(&ev);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  vt_conlleval_report(&ev, f);
  fclose(f);
  EXPECT(!strcmp(buf, want), "%s: report\n%s\nwant\n%s", name, buf, want);
  free(buf);
  vt_conlleval_free(&ev);
}

TEST(iob2) {
  /* IOB2. Gold chunks: [a b]NP [c]VP [d]NP [f]PP [g]NP (5). Guessed: [a b]NP [c]VP [d]NP (an
   * I-NP after B-VP starts a chunk) [f]NP [g]NP (5). Correct: ab, c, d, g (4): P = R = 80%.
   * Tags right: a b c e g = 5 of 7. NP: 3 correct of 4 guessed, 3 gold; PP: 0 of 0, 1 gold. */
  static const char *const iob2[] = {"B-NP", "B-NP", "I-NP", "I-NP", "B-VP", "B-VP", "B-NP", "I-NP",
                                     "O",    "O",    "B-PP", "B-NP", "B-NP", "B-NP", NULL,   NULL};
  expect_report("iob2", iob2,
                "processed 7 tokens with 5 phrases; found: 5 phrases; correct: 4.\n"
                "accuracy:  71.43%; precision:  80.00%; recall:  80.00%; FB1:  80.00\n"
                "               NP: precision:  75.00%; recall: 100.00%; FB1:  85.71  4\n"
                "               PP: precision:   0.00%; recall:   0.00%; FB1:   0.00  0\n"
                "               VP: precision: 100.00%; recall: 100.00%; FB1: 100.00  1\n");
}

TEST(iob1_across_boundary) {
  /* IOB1 across a boundary. Gold: [x y]NP | [z]NP [w]NP (B splits adjacent chunks). Guessed:
   * [x y]NP | [z w]NP. Correct: xy only: P = 1/2, R = 1/3. Tags right: 3 of 4. */
  static const char *const iob1[] = {"I-NP", "I-NP", "I-NP", "I-NP", NULL, "",
                                     "I-NP", "I-NP", "B-NP", "I-NP", NULL, NULL};
  expect_report("iob1", iob1,
                "processed 4 tokens with 3 phrases; found: 2 phrases; correct: 1.\n"
                "accuracy:  75.00%; precision:  50.00%; recall:  33.33%; FB1:  40.00\n"
                "               NP: precision:  50.00%; recall:  33.33%; FB1:  40.00  2\n");
}

TEST(ioe1) {
  /* IOE1. Gold: [w1 w2]NP (E before an adjacent NP) [w3]NP; guessed [w1 w2 w3]NP: none
   * correct. Tags right: w1 w3 w4 = 3 of 4. */
  static const char *const ioe1[] = {"I-NP", "I-NP", "E-NP", "I-NP", "I-NP",
                                     "I-NP", "O",    "O",    NULL,   NULL};
  expect_report("ioe1", ioe1,
                "processed 4 tokens with 2 phrases; found: 1 phrases; correct: 0.\n"
                "accuracy:  75.00%; precision:   0.00%; recall:   0.00%; FB1:   0.00\n"
                "               NP: precision:   0.00%; recall:   0.00%; FB1:   0.00  1\n");
}

TEST(iobes) {
  /* IOBES. Gold: [x1]PER [x2 x3]LOC [x4]LOC (S is a chunk; E then S splits). Guessed:
   * [x1]PER [x2 x3]LOC [x4]LOC (E then E also splits): all 3 correct, tags right 3 of 4. */
  static const char *const iobes[] = {"S-PER", "S-PER", "B-LOC", "B-LOC", "E-LOC",
                                      "E-LOC", "S-LOC", "E-LOC", NULL,    NULL};
  expect_report("iobes", iobes,
                "processed 4 tokens with 3 phrases; found: 3 phrases; correct: 3.\n"
                "accuracy:  75.00%; precision: 100.00%; recall: 100.00%; FB1: 100.00\n"
                "              LOC: precision: 100.00%; recall: 100.00%; FB1: 100.00  2\n"
                "              PER: precision: 100.00%; recall: 100.00%; FB1: 100.00  1\n");
}

TEST(no_chunks) {
  /* No chunks at all: conlleval prints only the counts and zeros. */
  static const char *const none[] = {"O", "O", "O", "O", NULL, NULL};
  expect_report("none", none,
                "processed 2 tokens with 0 phrases; found: 0 phrases; correct: 0.\n"
                "accuracy: 100.00%; precision:   0.00%; recall:   0.00%; FB1:   0.00\n");
}

TEST_MAIN(CASE(iob2), CASE(iob1_across_boundary), CASE(ioe1), CASE(iobes), CASE(no_chunks))
