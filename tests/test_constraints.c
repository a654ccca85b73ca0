/* tests/test_constraints.c: allowed labels and forbidden transitions. Every decoder (exact ones:
 * the k best allowed paths of a brute-force enumeration; beam: allowed paths only) and
 * vt_posteriors on small lattices with random allowed sets, some tokens with none (the sentence
 * has no path); on 300-label lattices with dictionary-like columns of 1 to 8 allowed labels every
 * exact decoder finds the reference score; and through the library: a tagger with a tag
 * dictionary and partial labels together, forbidden transitions (file, IOB2), the no-path case,
 * and bad files. */
#define _POSIX_C_SOURCE 200809L
#include <string.h>
#include <unistd.h>

#include "test_util.h"
#include "vitesse.h"

#define MAXT 6
#define MAXL 5
#define MAXP 15625

/* The finite scores of the paths through allowed labels only (ok[t*L+y]), best first; the
 * allowed-path marginals in long double into bm (zero when there is no path). */
static int enumerate(const double *A, const double *S, const double *F, const double *E,
                     const unsigned char *ok, int L, int T, double *out, long double *bm) {
  int32_t y[MAXT] = {0};
  int n = 0;
  static long double ps[MAXP];
  static int32_t paths[MAXP][MAXT];
  long double m = -INFINITY;
  for (;;) {
    int allowed = 1;
    for (int t = 0; t < T; t++) allowed &= ok[t * L + y[t]];
    double s = allowed ? test_path_score(A, S, F, E, L, T, y) : -INFINITY;
    if (s != -INFINITY) {
      ps[n] = s;
      memcpy(paths[n], y, sizeof y);
      if (s > m) m = s;
      out[n++] = s;
    }
    int t = T - 1;
    while (t >= 0 && ++y[t] == L) y[t--] = 0;
    if (t < 0) break;
  }
  for (int i = 0; i < T * L; i++) bm[i] = 0;
  long double z = 0;
  for (int p = 0; p < n; p++) z += expl(ps[p] - m);
  for (int p = 0; p < n; p++)
    for (int t = 0; t < T; t++) bm[t * L + paths[p][t]] += expl(ps[p] - m) / z;
  qsort(out, (size_t)n, sizeof *out, test_cmp_desc);
  return n;
}

/* Every algorithm with k = 1 and (k-best ones) k = 3 on one masked lattice. */
static void check_all(vt_trans *tr, vt_arena *ar, const double *A, const double *S, const double *F,
                      const double *Em, const unsigned char *ok, int L, int T, const double *bf,
                      int nbf, const char *ctx) {
  for (int a = 0; a < VT_ALGO_COUNT_; a++) {
    if (!vt_algo_available((vt_algo)a)) continue;
    for (int k = 1; k <= (vt_algo_kbest((vt_algo)a) ? 3 : 1); k += 2) {
      vt_decode_opts o;
      vt_decode_opts_init(&o);
      o.algo = (vt_algo)a;
      o.k = k;
      o.beam = a == VT_ALGO_BEAM ? L : 1;
      int32_t lab[3 * MAXT], n = -1;
      double sc[3];
      char c[160];
      snprintf(c, sizeof c, "%s %s k=%d", ctx, vt_algo_name((vt_algo)a), k);
      EXPECT_EQ_INT(vt_decode(tr, &o, ar, Em, T, lab, sc, &n, NULL), VT_OK, c);
      vt_arena_reset(ar);
      int want = nbf < k ? nbf : k, exact = vt_algo_exact((vt_algo)a) || k == 1;
      if (exact)
        EXPECT_EQ_INT(n, want, c);
      else
        EXPECT(n <= want, "%s: %d paths", c, n);
      for (int p = 0; p < n; p++) {
        int allowed = 1;
        for (int t = 0; t < T; t++) allowed &= ok[t * L + lab[p * T + t]];
        EXPECT(allowed, "%s: path %d has a disallowed label", c, p);
        if (exact) EXPECT_EQ_DBL(sc[p], bf[p], c);
      }
    }
  }
}

TEST(every_decoder_small_brute_force) {
  test_rng rng = {2026};
  vt_arena *ar;
  REQUIRE(vt_arena_create(&ar, 0) == VT_OK, "arena");
  static double bf[MAXP];
  double A[MAXL * MAXL], S[MAXL], F[MAXL], E[MAXT * MAXL], Em[MAXT * MAXL], marg[MAXT * MAXL];
  long double bm[MAXT * MAXL];
  unsigned char ok[MAXT * MAXL];
  int none = 0, empty_token = 0;
  for (int mode = SCORE_REAL; mode <= SCORE_NEGINF; mode++)
    for (int L = 1; L <= MAXL; L++)
      for (int T = 1; T <= MAXT; T++)
        for (int rep = 0; rep < 8; rep++) {
          for (int i = 0; i < L * L; i++) A[i] = test_score(&rng, (score_mode)mode);
          for (int i = 0; i < L; i++) {
            S[i] = test_score(&rng, (score_mode)mode);
            F[i] = test_score(&rng, (score_mode)mode);
          }
          for (int t = 0; t < T; t++) {
            int none_here = test_int(&rng, 12) == 0; /* a token with no allowed label */
            empty_token += none_here;
            for (int y = 0; y < L; y++) {
              ok[t * L + y] = !none_here && test_int(&rng, 2);
              E[t * L + y] = test_score(&rng, (score_mode)mode);
              Em[t * L + y] = ok[t * L + y] ? E[t * L + y] : -INFINITY;
            }
          }
          vt_trans *tr;
          REQUIRE(vt_trans_create(&tr, L, A, S, F, NULL) == VT_OK, "trans");
          int nbf = enumerate(A, S, F, E, ok, L, T, bf, bm);
          none += nbf == 0;
          char c[64];
          snprintf(c, sizeof c, "mode=%d L=%d T=%d rep=%d", mode, L, T, rep);
          check_all(tr, ar, A, S, F, Em, ok, L, T, bf, nbf, c);
          double z;
          EXPECT_EQ_INT(vt_posteriors(tr, ar, Em, T, marg, &z), VT_OK, c);
          vt_arena_reset(ar);
          EXPECT((nbf == 0) == (z == -INFINITY), "%s: logz %g with %d paths", c, z, nbf);
          for (int i = 0; i < T * L; i++) {
            EXPECT(fabsl(marg[i] - bm[i]) < 1e-12, "%s: marg[%d] %.17g, brute force %.17Lg", c, i,
                   marg[i], bm[i]);
            if (!ok[i])
              EXPECT(marg[i] == 0.0, "%s: a disallowed label has marginal %g", c, marg[i]);
          }
          vt_trans_destroy(tr);
        }
  EXPECT(none > 50 && empty_token > 50, "no-path lattices %d, empty tokens %d", none, empty_token);
  vt_arena_destroy(ar);
}

/* 300 labels, columns of 1..8 allowed labels anywhere in the rank order (a dictionary), some
 * columns free: every exact decoder returns the reference's score through allowed labels. */
TEST(large_dictionary_masks_agree) {
  test_rng rng = {77};
  vt_lattices *lat;
  vt_trans *tr;
  const int L = 300;
  REQUIRE(vt_lattices_synth(&lat, L, 40, 20, 3) == VT_OK, "synth");
  REQUIRE(vt_lattices_synth_trans(lat, &tr) == VT_OK, "trans");
  vt_arena *ar;
  REQUIRE(vt_arena_create(&ar, 0) == VT_OK, "arena");
  for (int64_t s = 0; s < vt_lattices_sentences(lat); s++) {
    int32_t T;
    const float *Ef = vt_lattices_rows(lat, s, &T);
    double *E = malloc(sizeof(double) * ((size_t)T * L + 1));
    unsigned char *ok = calloc((size_t)T * L + 1, 1);
    for (int t = 0; t < T; t++) {
      int free_col = test_int(&rng, 4) == 0, n = 1 + test_int(&rng, 8);
      for (int y = 0; y < L; y++) ok[t * L + y] = (unsigned char)free_col;
      for (int i = 0; i < n; i++) ok[t * L + test_int(&rng, L)] = 1;
      for (int y = 0; y < L; y++) E[t * L + y] = ok[t * L + y] ? Ef[t * L + y] : -INFINITY;
    }
    vt_decode_opts o;
    vt_decode_opts_init(&o);
    o.algo = VT_ALGO_VITERBI_SCALAR;
    int32_t *lab = malloc(sizeof(int32_t) * 3 * ((size_t)T + 1)), n;
    double ref[3], sc[3];
    REQUIRE(vt_decode(tr, &o, ar, E, T, lab, ref, &n, NULL) == VT_OK, "reference");
    vt_arena_reset(ar);
    for (int a = 0; a < VT_ALGO_COUNT_; a++) {
      if (!vt_algo_available((vt_algo)a) || !vt_algo_exact((vt_algo)a)) continue;
      o.algo = (vt_algo)a;
      int32_t n2 = -1;
      EXPECT_EQ_INT(vt_decode(tr, &o, ar, E, T, lab, sc, &n2, NULL), VT_OK, "decode");
      vt_arena_reset(ar);
      EXPECT(n2 == n && (n == 0 || sc[0] == ref[0]), "sentence %lld %s: %d paths, %.17g vs %.17g",
             (long long)s, vt_algo_name((vt_algo)a), n2, n2 ? sc[0] : 0, n ? ref[0] : 0);
      int allowed = 1;
      for (int t = 0; t < T && n2; t++) allowed &= ok[t * L + lab[t]];
      EXPECT(allowed, "sentence %lld %s: a disallowed label", (long long)s,
             vt_algo_name((vt_algo)a));
    }
    free(E);
    free(ok);
    free(lab);
  }
  vt_arena_destroy(ar);
  vt_trans_destroy(tr);
  vt_lattices_close(lat);
}

/* ---- through the library: a toy tagger ------------------------------------------------------- */

static char dir[] = "/tmp/vt_test_constraints.XXXXXX";

static const char *tpath(const char *name) {
  static char buf[4][4096];
  static int next;
  char *p = buf[next++ % 4];
  snprintf(p, 4096, "%s/%s", dir, name);
  return p;
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (f) {
    fputs(text, f);
    fclose(f);
  }
}

static const char *const WORDS[5] = {"the", "dog", "runs", "big", "fast"};
static const char *const TAGS[5] = {"DT", "NN", "VB", "JJ", "RB"};
static const char *const CHUNKS[3] = {"B-NP", "I-NP", "O"};

/* Trains a toy model (label column 1) on words w with tags (w + prev) % 5 and chunks. */
static vt_status train_toy(const char *path, int chunks) {
  enum { N = 50, T = 6 };
  static const char *cells[N][3 * T];
  static vt_sentence_in s[N];
  uint32_t r = 11;
  for (int i = 0; i < N; i++) {
    int prev = 0;
    for (int t = 0; t < T; t++) {
      r = r * 1103515245u + 12345u;
      int w = (int)(r >> 16) % 5;
      cells[i][3 * t] = WORDS[w];
      cells[i][3 * t + 1] = TAGS[(w + prev) % 5];
      cells[i][3 * t + 2] = CHUNKS[w < 2 ? (t && prev < 2 ? 1 : 0) : 2];
      prev = w;
    }
    s[i] = (vt_sentence_in){cells[i], T, 3};
  }
  vt_train_opts o;
  vt_train_opts_init(&o);
  o.templates = "U00:%x[0,0]\nU01:%x[-1,0]\nB\n";
  o.epochs = 3;
  o.label_col = chunks ? 2 : 1;
  return vt_train_tagger_mem(&o, s, N, NULL, 0, path, NULL);
}

static int32_t label_of(const vt_model *m, const char *name) {
  vt_model_info info;
  vt_model_describe(m, &info);
  for (int32_t y = 0; y < info.labels; y++)
    if (strcmp(vt_model_label_name(m, y), name) == 0) return y;
  return -1;
}

TEST(tagger_dictionary_partial_forbidden) {
  REQUIRE(mkdtemp(dir) != NULL, "mkdtemp");
  REQUIRE(train_toy(tpath("pos.model"), 0) == VT_OK, "train: %s", vt_last_error());
  vt_model *m;
  REQUIRE(vt_model_open(&m, tpath("pos.model")) == VT_OK, "open");
  const int32_t L = 5, dt = label_of(m, "DT"), nn = label_of(m, "NN"), jj = label_of(m, "JJ");
  REQUIRE(dt >= 0 && nn >= 0 && jj >= 0, "labels");
  /* dog: NN or JJ only; column 1 holds partial labels */
  write_file(tpath("dict"), "dog NN JJ\n\nthe\tDT\n");
  vt_constraints *c;
  REQUIRE(vt_constraints_create(&c, m) == VT_OK, "create");
  EXPECT_EQ_INT(vt_constraints_load_dict(c, tpath("dict")), VT_OK, vt_last_error());
  EXPECT_EQ_INT(vt_constraints_columns(c, 0, 1), VT_OK, "columns");
  vt_tagger *t;
  REQUIRE(vt_tagger_create(&t, m, NULL) == VT_OK, "tagger");
  REQUIRE(vt_tagger_constrain(t, c) == VT_OK, "constrain");
  /* the dog runs dog: "runs" fixed to JJ by its partial label, the last dog fixed to DT (over
   * the dictionary) */
  const char *cells[8] = {"the", "_", "dog", "", "runs", "JJ", "dog", "DT"};
  int32_t lab[4];
  double sc, marg[4 * 5];
  vt_tag_out out = {.labels = lab, .scores = &sc, .marg = marg};
  EXPECT_EQ_INT(vt_tagger_tag(t, cells, 4, 2, &out), VT_OK, vt_last_error());
  EXPECT(out.n_paths == 1 && lab[0] == dt && (lab[1] == nn || lab[1] == jj) && lab[2] == jj &&
             lab[3] == dt,
         "labels %d %d %d %d", lab[0], lab[1], lab[2], lab[3]);
  for (int y = 0; y < L; y++) {
    EXPECT(y == dt || marg[y] == 0, "the: label %d has %g", y, marg[y]);
    EXPECT(y == nn || y == jj || marg[5 + y] == 0, "dog: label %d has %g", y, marg[5 + y]);
    EXPECT(y == jj || marg[10 + y] == 0, "runs: label %d has %g", y, marg[10 + y]);
  }
  EXPECT(fabs(marg[dt] - 1) < 1e-12 && fabs(marg[10 + jj] - 1) < 1e-12, "fixed labels' marginals");
  EXPECT(fabs(marg[5 + nn] + marg[5 + jj] - 1) < 1e-12, "dog: %g + %g", marg[5 + nn], marg[5 + jj]);
  EXPECT(exp(sc - out.logz) <= 1 && exp(sc - out.logz) > 0, "probability %g", exp(sc - out.logz));

  /* forbid JJ -> DT: runs (JJ) then dog (DT) has no path */
  write_file(tpath("forbid"), "# runs is JJ, dog DT\nJJ DT\n<s> VB\nVB </s>\n");
  EXPECT_EQ_INT(vt_model_forbid_file(m, tpath("forbid")), VT_OK, vt_last_error());
  vt_tagger_destroy(t);
  REQUIRE(vt_tagger_create(&t, m, NULL) == VT_OK, "tagger");
  REQUIRE(vt_tagger_constrain(t, c) == VT_OK, "constrain");
  EXPECT_EQ_INT(vt_tagger_tag(t, cells, 4, 2, &out), VT_OK, vt_last_error());
  EXPECT(out.n_paths == 0 && out.logz == -INFINITY, "no path: %d paths, logz %g", out.n_paths,
         out.logz);
  for (int i = 0; i < 20; i++) EXPECT(marg[i] == 0, "no path: marg[%d] %g", i, marg[i]);
  /* every decoder agrees there is no path */
  for (int a = 0; a < VT_ALGO_COUNT_; a++) {
    if (!vt_algo_available((vt_algo)a) || vt_model_check_decoder(m, &(vt_decode_opts){
                                                                        .algo = (vt_algo)a,
                                                                        .k = 1,
                                                                        .beam = 5,
                                                                        .heuristic = VT_HEUR_M9,
                                                                    }) != VT_OK)
      continue;
    vt_decode_opts o;
    vt_decode_opts_init(&o);
    o.algo = (vt_algo)a;
    o.beam = 5;
    vt_tagger *t2;
    REQUIRE(vt_tagger_create(&t2, m, &o) == VT_OK, "tagger %s", vt_algo_name((vt_algo)a));
    vt_tagger_constrain(t2, c);
    vt_tag_out o2 = {.labels = lab, .scores = &sc};
    EXPECT_EQ_INT(vt_tagger_tag(t2, cells, 4, 2, &o2), VT_OK, vt_algo_name((vt_algo)a));
    EXPECT(o2.n_paths == 0, "%s: %d paths", vt_algo_name((vt_algo)a), o2.n_paths);
    vt_tagger_destroy(t2);
  }
  /* a partial label the model lacks */
  const char *bad[2] = {"the", "XX"};
  EXPECT_EQ_INT(vt_tagger_tag(t, bad, 1, 2, &out), VT_EFORMAT, "unknown partial label");
  EXPECT(strstr(vt_last_error(), "partial label") != NULL, "message: %s", vt_last_error());
  vt_tagger_destroy(t);

  /* bad files: one line naming file and line; nothing changed */
  write_file(tpath("bad1"), "big JJ\nbig2 NN XX\n");
  EXPECT_EQ_INT(vt_constraints_load_dict(c, tpath("bad1")), VT_EFORMAT, "unknown label");
  EXPECT(strstr(vt_last_error(), "bad1:2: 'XX' is not a label") != NULL, "%s", vt_last_error());
  write_file(tpath("bad2"), "fast RB\nfast JJ\n");
  EXPECT_EQ_INT(vt_constraints_load_dict(c, tpath("bad2")), VT_EFORMAT, "twice");
  EXPECT(strstr(vt_last_error(), "bad2:2:") != NULL, "%s", vt_last_error());
  write_file(tpath("bad3"), "runs\n");
  EXPECT_EQ_INT(vt_constraints_load_dict(c, tpath("bad3")), VT_EFORMAT, "no labels");
  EXPECT(strstr(vt_last_error(), "bad3:1:") != NULL, "%s", vt_last_error());
  EXPECT_EQ_INT(vt_constraints_load_dict(c, tpath("missing")), VT_EIO, "missing file");
  write_file(tpath("bad4"), "DT NN VB\n");
  EXPECT_EQ_INT(vt_model_forbid_file(m, tpath("bad4")), VT_EFORMAT, "three fields");
  EXPECT(strstr(vt_last_error(), "bad4:1:") != NULL, "%s", vt_last_error());
  write_file(tpath("bad5"), "DT QQ\n");
  EXPECT_EQ_INT(vt_model_forbid_file(m, tpath("bad5")), VT_EFORMAT, "unknown label");
  EXPECT(strstr(vt_last_error(), "bad5:1: 'QQ'") != NULL, "%s", vt_last_error());
  int32_t p = 7, q = 0;
  EXPECT_EQ_INT(vt_model_forbid(m, 1, &p, &q), VT_EINVAL, "label out of range");
  int32_t w = 9;
  EXPECT_EQ_INT(vt_constraints_add_word(c, "x", &w, 1), VT_EINVAL, "add_word out of range");
  EXPECT_EQ_INT(vt_constraints_add_word(c, "x", &dt, 1), VT_OK, "add_word");
  EXPECT_EQ_INT(vt_constraints_add_word(c, "x", &dt, 1), VT_EINVAL, "add_word twice");
  vt_constraints_destroy(c);
  vt_model_close(m);
}

/* IOB2: B-NP, I-NP, O: start -> I-NP and O -> I-NP are forbidden, and tagging never outputs
 * them even where the unconstrained model would. */
TEST(bio_transitions) {
  REQUIRE(train_toy(tpath("chunk.model"), 1) == VT_OK, "train: %s", vt_last_error());
  vt_model *m;
  REQUIRE(vt_model_open(&m, tpath("chunk.model")) == VT_OK, "open");
  int32_t n = -1;
  EXPECT_EQ_INT(vt_model_forbid_bio(m, &n), VT_OK, vt_last_error());
  EXPECT_EQ_INT(n, 2, "forbidden: <s> -> I-NP, O -> I-NP");
  const int32_t in = label_of(m, "I-NP"), o = label_of(m, "O");
  vt_tagger *t;
  REQUIRE(vt_tagger_create(&t, m, NULL) == VT_OK, "tagger");
  test_rng r = {5};
  for (int s = 0; s < 200; s++) {
    const char *cells[6];
    int32_t lab[6];
    double sc;
    for (int i = 0; i < 6; i++) cells[i] = WORDS[test_int(&r, 5)];
    vt_tag_out out = {.labels = lab, .scores = &sc};
    EXPECT_EQ_INT(vt_tagger_tag(t, cells, 6, 1, &out), VT_OK, "tag");
    EXPECT(lab[0] != in, "sentence %d starts with I-NP", s);
    for (int i = 1; i < 6; i++) EXPECT(!(lab[i] == in && lab[i - 1] == o), "O -> I-NP at %d", i);
  }
  vt_tagger_destroy(t);
  vt_model_close(m);
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  EXPECT(system(cmd) == 0, "cleanup");
}

TEST_MAIN(CASE(every_decoder_small_brute_force), CASE(large_dictionary_masks_agree),
          CASE(tagger_dictionary_partial_forbidden), CASE(bio_transitions))
