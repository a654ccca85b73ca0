/* tests/harness.h: the one harness every C test uses.
 *
 *   TEST(ties_keep_lowest_label) { EXPECT_EQ_INT(f(), 3, "what"); }
 *   TEST_MAIN(CASE(ties_keep_lowest_label), CASE(...))
 *
 * Each case runs in turn and is reported by name; every EXPECT counts as a check, and a case
 * with a failed check fails. `PROGRAM --list` lists the cases, `PROGRAM --case NAME` (or the
 * environment variable VT_TEST_CASE=NAME) runs only that one. Other arguments are left for the
 * cases in test_argc/test_argv. The program ends with the line "NAME: N passed, N failed" and
 * exits 1 when any case failed (or when --case named none). */
#ifndef VT_TESTS_HARNESS_H
#define VT_TESTS_HARNESS_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct test_case {
  const char *name;
  void (*fn)(void);
} test_case;

static int test_case_failures; /* failed checks in the running case */
static long long test_checks;  /* checks so far, all cases */
static int test_argc;          /* the arguments left after the harness's own */
static char **test_argv;

#define TEST(name) static void name(void)
#define CASE(name)                                                                                 \
  { #name, name }

#define EXPECT(cond, ...)                                                                          \
  do {                                                                                             \
    test_checks++;                                                                                 \
    if (!(cond)) {                                                                                 \
      test_case_failures++;                                                                        \
      fprintf(stderr, "%s:%d: FAILED %s: ", __FILE__, __LINE__, #cond);                            \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fputc('\n', stderr);                                                                         \
    }                                                                                              \
  } while (0)

#define EXPECT_EQ_INT(a, b, ctx)                                                                   \
  EXPECT((long long)(a) == (long long)(b), "%s: %lld != %lld", ctx, (long long)(a), (long long)(b))

/* Exact comparison of doubles (NaN equals NaN; -inf equals -inf). */
#define EXPECT_EQ_DBL(a, b, ctx)                                                                   \
  EXPECT((a) == (b) || (isnan(a) && isnan(b)), "%s: %.17g != %.17g", ctx, (double)(a), (double)(b))

#define EXPECT_EQ_STR(a, b, ctx)                                                                   \
  EXPECT(strcmp((a), (b)) == 0, "%s: \"%s\" != \"%s\"", ctx, (a), (b))

/* Stops the running case (after a failed check that later checks depend on). */
#define REQUIRE(cond, ...)                                                                         \
  do {                                                                                             \
    int test_ok_ = (cond);                                                                         \
    EXPECT(test_ok_, __VA_ARGS__);                                                                 \
    if (!test_ok_) return;                                                                         \
  } while (0)

static inline int test_run(int argc, char **argv, const test_case *cases, int n) {
  const char *only = getenv("VT_TEST_CASE");
  const char *prog = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
  test_argv = argv;
  test_argc = 1;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--list")) {
      for (int c = 0; c < n; c++) printf("%s\n", cases[c].name);
      return 0;
    }
    if (!strcmp(argv[i], "--case") && i + 1 < argc)
      only = argv[++i];
    else
      argv[test_argc++] = argv[i];
  }
  if (only && !*only) only = NULL;
  int passed = 0, failed = 0;
  for (int c = 0; c < n; c++) {
    if (only && strcmp(only, cases[c].name)) continue;
    test_case_failures = 0;
    long long before = test_checks;
    cases[c].fn();
    if (test_case_failures) {
      failed++;
      printf("FAIL %s (%d of %lld checks failed)\n", cases[c].name, test_case_failures,
             test_checks - before);
    } else {
      passed++;
      printf("ok   %s (%lld checks)\n", cases[c].name, test_checks - before);
    }
    fflush(stdout);
  }
  if (only && passed + failed == 0) {
    fprintf(stderr, "%s: no case named '%s' (see --list)\n", prog, only);
    return 1;
  }
  printf("%s: %d passed, %d failed\n", prog, passed, failed);
  return failed ? 1 : 0;
}

#define TEST_MAIN(...)                                                                             \
  int main(int argc, char **argv) {                                                                \
    static const test_case cases_[] = {__VA_ARGS__};                                               \
    return test_run(argc, argv, cases_, (int)(sizeof cases_ / sizeof cases_[0]));                  \
  }

#endif
