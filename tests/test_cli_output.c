/* tests/test_cli_output.c VITESSE: the `vitesse decode` output contract, end to end.
 * Writes its own lattice set (.npy) with empty sentences, sentences with no finite path and
 * ordinary ones; runs the CLI; checks the line format (sentence, rank, %.9g score recomputed
 * along the printed labels, labels), the empty-sentence and -inf lines, -k line counts and
 * order; and that the output is byte-identical for every algorithm across --threads 1, 2, 3 and
 * every SIMD level this CPU runs. */
#define _DEFAULT_SOURCE /* mkdtemp */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io/npy.h"
#include "test_util.h"

#define L 7
#define NS 60

static char dir[256], vitesse[1024];

/* The lattice set, written once by lattice_ready. */
static int32_t lens[NS];
static float *E, A[L * L], S[L], F[L];

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) n = 0;
  if (buf) buf[n] = 0;
  fclose(f);
  *len = (size_t)n;
  return buf;
}

/* Runs vitesse decode with extra arguments and environment; returns its exit status. */
static int run(const char *env, const char *args, const char *out) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd,
           "%s %s decode --emissions %s/E.npy --lengths %s/N.npy --transitions %s/A.npy "
           "--start %s/S.npy --end %s/F.npy %s -o %s 2>%s/stderr",
           env, vitesse, dir, dir, dir, dir, dir, args, out, dir);
  int st = system(cmd);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void cleanup(void) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  free(E);
}

/* Writes the lattice set into a fresh temporary directory on the first call (removed at exit);
 * returns 1 when it is there. */
static int lattice_ready(void) {
  static int state; /* 0: not yet, 1: ready, -1: failed */
  if (state) return state > 0;
  state = -1;
  EXPECT(test_argc >= 2, "usage: test_cli_output VITESSE");
  if (test_argc < 2) return 0;
  snprintf(vitesse, sizeof vitesse, "%s", test_argv[1]);
  snprintf(dir, sizeof dir, "/tmp/vt_cli_XXXXXX");
  const int made = mkdtemp(dir) != NULL;
  EXPECT(made, "mkdtemp %s", dir);
  if (!made) return 0;
  atexit(cleanup);

  /* The lattice set: sentence s has length s % 9 (so some are empty); every 7th sentence has a
   * forbidden emission column (no finite path). Small integer scores: many ties. */
  test_rng rng = {99};
  int64_t rows = 0;
  for (int s = 0; s < NS; s++) rows += lens[s] = s % 9;
  E = malloc(sizeof(float) * (size_t)rows * L);
  EXPECT(E != NULL, "out of memory");
  if (!E) return 0;
  int64_t r = 0;
  for (int s = 0; s < NS; s++)
    for (int t = 0; t < lens[s]; t++, r++)
      for (int y = 0; y < L; y++)
        E[r * L + y] =
            (s % 7 == 3 && t == lens[s] / 2) ? -INFINITY : (float)(test_int(&rng, 5) - 2);
  for (int i = 0; i < L * L; i++)
    A[i] = test_unit(&rng) < 0.2 ? -INFINITY : (float)(test_int(&rng, 5) - 2);
  for (int i = 0; i < L; i++) {
    S[i] = (float)(test_int(&rng, 3) - 1);
    F[i] = (float)(test_int(&rng, 3) - 1);
  }
  char path[512], err[512];
  int64_t shE[2] = {rows, L}, shN[1] = {NS}, shA[2] = {L, L}, shL[1] = {L};
  int bad = 0;
  snprintf(path, sizeof path, "%s/E.npy", dir);
  bad |= vt_npy_write(path, VT_NPY_F32, 2, shE, E, err, sizeof err);
  snprintf(path, sizeof path, "%s/N.npy", dir);
  bad |= vt_npy_write(path, VT_NPY_I32, 1, shN, lens, err, sizeof err);
  snprintf(path, sizeof path, "%s/A.npy", dir);
  bad |= vt_npy_write(path, VT_NPY_F32, 2, shA, A, err, sizeof err);
  snprintf(path, sizeof path, "%s/S.npy", dir);
  bad |= vt_npy_write(path, VT_NPY_F32, 1, shL, S, err, sizeof err);
  snprintf(path, sizeof path, "%s/F.npy", dir);
  bad |= vt_npy_write(path, VT_NPY_F32, 1, shL, F, err, sizeof err);
  EXPECT(!bad, "writing the lattice set: %s", err);
  if (bad) return 0;
  state = 1;
  return 1;
}

/* The k-best output: sentences and ranks in order, scores non-increasing and equal to the score
 * recomputed along the printed labels; the empty-sentence and -inf lines. */
TEST(kbest_line_format) {
  REQUIRE(lattice_ready(), "the lattice set");
  char out[512];
  snprintf(out, sizeof out, "%s/kbest.txt", dir);
  EXPECT_EQ_INT(run("", "--algo kbest-viterbi -k 4 --threads 2", out), 0, "kbest run");
  size_t len;
  char *text = slurp(out, &len);
  EXPECT(text != NULL, "no output");
  int sent = -1, rank = -1, lines = 0;
  double prev = INFINITY;
  int64_t row0 = 0;
  for (char *line = text ? strtok(text, "\n") : NULL; line; line = strtok(NULL, "\n")) {
    lines++;
    int s, k, n = 0;
    char score[64];
    if (sscanf(line, "%d\t%d\t%63[^\t]\t%n", &s, &k, score, &n) < 3) {
      EXPECT(0, "bad line '%s'", line);
      continue;
    }
    if (s != sent) {
      EXPECT_EQ_INT(s, sent + 1, "sentences in order");
      EXPECT_EQ_INT(k, 0, "first rank");
      if (sent >= 0) row0 += lens[sent];
      sent = s;
      rank = 0;
      prev = INFINITY;
    } else {
      EXPECT_EQ_INT(k, rank + 1, "ranks in order");
      rank = k;
    }
    double sc = strtod(score, NULL);
    EXPECT(sc <= prev, "scores non-increasing at sentence %d", s);
    prev = sc;
    if (lens[s] == 0) {
      EXPECT(!strcmp(score, "0") && line[n] == 0, "empty sentence %d: '%s'", s, line);
    } else if (s % 7 == 3) {
      EXPECT(!strcmp(score, "-inf") && line[n] == 0, "infeasible sentence %d: '%s'", s, line);
    } else {
      /* Recompute the score along the printed labels, in double, left to right. */
      double v = 0;
      int y, yp = -1, t = 0;
      char *p = line + n;
      while (sscanf(p, "%d%n", &y, &n) == 1) {
        const float *e = E + (row0 + t) * L;
        v = t == 0 ? (double)S[y] + e[y] : (v + A[yp * L + y]) + e[y];
        yp = y;
        t++;
        p += n;
      }
      v += F[yp];
      char want[64];
      snprintf(want, sizeof want, "%.9g", v);
      EXPECT_EQ_INT(t, lens[s], "label count");
      EXPECT(!strcmp(score, want), "sentence %d: printed %s, recomputed %s", s, score, want);
    }
  }
  EXPECT_EQ_INT(sent, NS - 1, "every sentence printed");
  EXPECT(lines > NS, "k-best printed %d lines for %d sentences", lines, NS);
  free(text);
}

TEST(byte_identical_across_threads_and_simd) {
  REQUIRE(lattice_ready(), "the lattice set");
  /* Byte identity across threads and SIMD levels, for every algorithm. */
  static const char *algos[] = {"viterbi",
                                "viterbi-scalar",
                                "kbest-viterbi -k 3",
                                "beam --beam 2",
                                "beam --beam 3 -k 2",
                                "staggered",
                                "staggered-col",
                                "astar -k 3",
                                "iter-astar",
                                "viterbi-astar -k 3",
                                "iter-viterbi-astar -k 3",
                                "carpediem"};
  static const char *envs[] = {"VITESSE_SIMD=scalar", "VITESSE_SIMD=avx2", "VITESSE_SIMD=avx512"};
  for (size_t a = 0; a < sizeof algos / sizeof algos[0]; a++) {
    char name[64];
    snprintf(name, sizeof name, "%s", algos[a]);
    name[strcspn(name, " ")] = 0;
    vt_algo id;
    if (vt_algo_parse(name, &id) != VT_OK) continue; /* not implemented in this version */
    char ref[512], args[256], out[512];
    snprintf(ref, sizeof ref, "%s/ref.txt", dir);
    snprintf(args, sizeof args, "--algo %s --threads 1", algos[a]);
    EXPECT_EQ_INT(run(envs[0], args, ref), 0, algos[a]);
    size_t rl;
    char *rtext = slurp(ref, &rl);
    for (int th = 1; th <= 3; th++)
      for (int e = 0; e < 3; e++) {
        if (!vt_simd_supported((vt_simd)e)) continue;
        snprintf(args, sizeof args, "--algo %s --threads %d", algos[a], th);
        snprintf(out, sizeof out, "%s/o.txt", dir);
        EXPECT_EQ_INT(run(envs[e], args, out), 0, algos[a]);
        size_t ol;
        char *otext = slurp(out, &ol);
        EXPECT(rtext && otext && ol == rl && !memcmp(rtext, otext, rl),
               "%s: output differs with --threads %d %s", algos[a], th, envs[e]);
        free(otext);
      }
    free(rtext);
  }
}

TEST_MAIN(CASE(kbest_line_format), CASE(byte_identical_across_threads_and_simd))
