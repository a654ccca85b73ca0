/* tests/test_peer.c: CRF++ (binary and text) and Wapiti models, written here (tests/peer_write.h),
 * opened by content and tagged: 1-best labels equal the peer's scoring by brute force over every
 * path (ties: the peer's rule, lowest label index from the last position back), k-best equals the
 * k best scores exactly, a converted model tags identically, the cost factor scales, and damaged
 * or refused models fail with one line naming the file, never a crash.
 *
 * `test_peer --case write_seeds --write-seeds DIR` writes the fuzz seeds of fuzz_crfpp and
 * fuzz_wapiti into DIR/crfpp and DIR/wapiti (tests/fuzz/make_seeds.sh);
 * `test_peer --case write_fixtures --write-fixtures DIR` the models of tests/crfpp_fixtures. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "models/peer_model.h"
#include "peer_write.h"
#include "text/crfpp_search.h"
#include "vitesse.h"

enum { NSENT = 24, K = 6 };

static pw_sent sents[NSENT];
static char dir[64];

static void make_sents(void) {
  static const char *words[] = {"a", "b", "Cc", "dD"}, *tags[] = {"X", "Y"};
  uint64_t st = 7;
  for (int i = 0; i < NSENT; i++) {
    sents[i].T = 1 + (int)(pw_rand(&st) % 5);
    for (int t = 0; t < sents[i].T; t++) {
      sents[i].tok[t][0] = words[pw_rand(&st) % 4];
      sents[i].tok[t][1] = tags[pw_rand(&st) % 2];
    }
  }
}

static void cleanup(void) {
  char cmd[96];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

static void setup(void) {
  if (dir[0]) return;
  snprintf(dir, sizeof dir, "/tmp/vt_peer.XXXXXX");
  if (!mkdtemp(dir)) abort();
  atexit(cleanup);
  make_sents();
}

static void path_of(char *buf, size_t n, const char *name) { snprintf(buf, n, "%s/%s", dir, name); }

static const char *const CRFPP_TMPL[] = {"U00:%x[-1,0]",         "U01:%x[0,0]", "U02:%x[1,1]",
                                         "U03:%x[-2,0]/%x[2,1]", "U04:bias",    "B",
                                         "B05:%x[0,1]"};
static const char *const WAPITI_TMPL[] = {
    "u00:%x[-1,0]", "u01:%X[0,0]", "*02:%x[ 1,1]", "u03:%x[@1,0]/%x[@-1,1]",
    "u04:%x[-5,0]", "b",           "b05:%x[0,0]"};

static void model_init(pw_model *m, int wapiti, uint64_t seed, int zero) {
  memset(m, 0, sizeof *m);
  m->wapiti = wapiti;
  m->L = 3;
  const char *crfpp_labels[] = {"B-NP", "I-NP", "O"}, *wapiti_labels[] = {"O", "B-NP", "I-NP"};
  for (int y = 0; y < 3; y++) m->labels[y] = wapiti ? wapiti_labels[y] : crfpp_labels[y];
  m->n_tmpl = 7;
  for (int k = 0; k < 7; k++) m->tmpl[k] = wapiti ? WAPITI_TMPL[k] : CRFPP_TMPL[k];
  pw_build(m, sents, NSENT, seed, zero);
}

/* Every path's peer score, best first (paths[i] its labels, base-L digits). */
typedef struct brute {
  int n;
  double score[243];
  int path[243][PW_MAXT];
  int best; /* the index of the peer's 1-best (its tie rule) */
} brute;

static void brute_force(const pw_model *m, const pw_sent *s, brute *b) {
  pw_prep pp;
  pw_prepare(m, s, &pp);
  int n = 1;
  for (int t = 0; t < s->T; t++) n *= m->L;
  b->n = n;
  b->best = 0;
  for (int i = 0; i < n; i++) {
    int v = i;
    for (int t = 0; t < s->T; t++) b->path[i][t] = v % m->L, v /= m->L;
    b->score[i] = pw_score(m, s, &pp, b->path[i]);
    /* Viterbi's rule (strict > over ascending labels): the best score, then the lowest last
     * label, then the lowest label before it, ... */
    int j = b->best, better = b->score[i] > b->score[j];
    if (!better && b->score[i] == b->score[j])
      for (int t = s->T - 1; t >= 0; t--)
        if (b->path[i][t] != b->path[j][t]) {
          better = b->path[i][t] < b->path[j][t];
          break;
        }
    if (better) b->best = i;
  }
}

static int cmp_desc(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? 1 : x > y ? -1 : 0;
}

/* Tags s with m (k paths; k == 1: the default decoder) into labels / scores; returns n_paths. */
static int tag(const vt_model *m, const pw_sent *s, int k, int32_t *labels, double *scores) {
  vt_decode_opts o;
  vt_model_default_decoder(m, k, &o);
  vt_tagger *tg = NULL;
  if (vt_tagger_create(&tg, m, &o) != VT_OK) return -1;
  const char *cells[PW_MAXT * PW_NCOLS];
  for (int t = 0; t < s->T; t++)
    for (int c = 0; c < PW_NCOLS; c++) cells[t * PW_NCOLS + c] = s->tok[t][c];
  vt_tag_out out;
  memset(&out, 0, sizeof out);
  out.labels = labels;
  out.scores = scores;
  int n = vt_tagger_tag(tg, cells, s->T, PW_NCOLS, &out) == VT_OK ? out.n_paths : -1;
  vt_tagger_destroy(tg);
  return n;
}

/* Checks model file `path` (written from pm) against brute force: labels named in the peer's
 * order, 1-best labels and score, the K best scores; then its conversion tags identically. */
static void check_model(const pw_model *pm, const char *path) {
  vt_model *m = NULL;
  EXPECT_EQ_INT(vt_model_file_kind(path), VT_MODEL_TAGGER, path);
  REQUIRE(vt_model_open(&m, path) == VT_OK, "%s: %s", path, vt_last_error());
  for (int y = 0; y < pm->L; y++) EXPECT_EQ_STR(vt_model_label_name(m, y), pm->labels[y], path);
  char conv[96];
  snprintf(conv, sizeof conv, "%s.vt", path);
  vt_model *c = NULL;
  REQUIRE(vt_model_save(m, conv) == VT_OK && vt_model_open(&c, conv) == VT_OK, "%s: %s", conv,
          vt_last_error());
  for (int i = 0; i < NSENT; i++) {
    const pw_sent *s = &sents[i];
    brute b;
    brute_force(pm, s, &b);
    int32_t lab[K * PW_MAXT], lab2[K * PW_MAXT];
    double sc[K], sc2[K];
    EXPECT_EQ_INT(tag(m, s, 1, lab, sc), 1, "1-best");
    for (int t = 0; t < s->T; t++) EXPECT_EQ_INT(lab[t], b.path[b.best][t], "1-best label");
    EXPECT_EQ_DBL(sc[0], b.score[b.best], "1-best score");
    int k = tag(m, s, K, lab, sc);
    int want = b.n < K ? b.n : K;
    EXPECT_EQ_INT(k, want, "k-best paths");
    double all[243];
    memcpy(all, b.score, sizeof(double) * (size_t)b.n);
    qsort(all, (size_t)b.n, sizeof(double), cmp_desc);
    for (int p = 0; p < k && p < want; p++) {
      EXPECT_EQ_DBL(sc[p], all[p], "k-best score");
      int idx = 0; /* the path's own peer score */
      for (int t = s->T - 1; t >= 0; t--) idx = idx * pm->L + lab[p * s->T + t];
      EXPECT_EQ_DBL(sc[p], b.score[idx], "k-best path scored as the peer does");
      for (int q = 0; q < p; q++)
        EXPECT(memcmp(lab + p * s->T, lab + q * s->T, sizeof(int32_t) * (size_t)s->T),
               "k-best paths %d and %d are the same", p, q);
    }
    int k2 = tag(c, s, K, lab2, sc2);
    EXPECT(k2 == k && !memcmp(lab, lab2, sizeof(int32_t) * (size_t)(k * s->T)) &&
               !memcmp(sc, sc2, sizeof(double) * (size_t)k),
           "%s: the converted model tags sentence %d differently", conv, i);
  }
  vt_model_close(c);
  vt_model_close(m);
}

TEST(crfpp_text_brute_force) {
  setup();
  pw_model m;
  char p[96];
  path_of(p, sizeof p, "crfpp.model.txt");
  model_init(&m, 0, 11, 0);
  REQUIRE(pw_write_crfpp_text(&m, p) == 0, "write %s", p);
  check_model(&m, p);
  free(m.w);
}

TEST(crfpp_binary_brute_force) {
  setup();
  pw_model m;
  char p[96];
  path_of(p, sizeof p, "crfpp.model");
  model_init(&m, 0, 12, 0);
  REQUIRE(pw_write_crfpp_binary(&m, p, 100) == 0, "write %s", p);
  check_model(&m, p);
  free(m.w);
}

TEST(wapiti_brute_force) {
  setup();
  pw_model m;
  char p[96];
  path_of(p, sizeof p, "wapiti.model");
  model_init(&m, 1, 13, 0);
  REQUIRE(pw_write_wapiti(&m, p) == 0, "write %s", p);
  check_model(&m, p);
  free(m.w);
}

/* Every weight 0: every path ties; each peer gives its label 0 everywhere (CRF++: the first in
 * byte order, Wapiti: the first seen), and so must we. */
TEST(all_ties_lowest_label) {
  setup();
  for (int fmt = 0; fmt < 3; fmt++) {
    pw_model m;
    char p[96];
    path_of(p, sizeof p, fmt == 0 ? "zero.crfpp.txt" : fmt == 1 ? "zero.crfpp" : "zero.wapiti");
    model_init(&m, fmt == 2, 1, 1);
    REQUIRE((fmt == 0   ? pw_write_crfpp_text(&m, p)
             : fmt == 1 ? pw_write_crfpp_binary(&m, p, 100)
                        : pw_write_wapiti(&m, p)) == 0,
            "write %s", p);
    check_model(&m, p);
    vt_model *vm = NULL;
    REQUIRE(vt_model_open(&vm, p) == VT_OK, "%s", vt_last_error());
    int32_t lab[K * PW_MAXT];
    double sc[K];
    REQUIRE(tag(vm, &sents[0], 1, lab, sc) == 1, "tag");
    for (int t = 0; t < sents[0].T; t++) EXPECT_EQ_INT(lab[t], 0, p);
    vt_model_close(vm);
    free(m.w);
  }
}

/* crf_test -c C: every score times C (exact here: weights k/8, C = 2). */
TEST(crfpp_cost_factor) {
  setup();
  pw_model m;
  char p[96];
  path_of(p, sizeof p, "cf.crfpp");
  model_init(&m, 0, 14, 0);
  REQUIRE(pw_write_crfpp_binary(&m, p, 100) == 0, "write");
  vt_model *vm = NULL;
  REQUIRE(vt_model_open_as(&vm, p, "crfpp", 2.0) == VT_OK, "%s", vt_last_error());
  for (int i = 0; i < NSENT; i++) {
    brute b;
    brute_force(&m, &sents[i], &b);
    int32_t lab[K * PW_MAXT];
    double sc[K];
    REQUIRE(tag(vm, &sents[i], 1, lab, sc) == 1, "tag");
    EXPECT_EQ_DBL(sc[0], 2.0 * b.score[b.best], "score times the cost factor");
  }
  vt_model_close(vm);
  EXPECT(vt_model_open_as(&vm, p, "crfpp", -1.0) == VT_EINVAL, "a negative cost factor");
  char w[96];
  path_of(w, sizeof w, "cf.wapiti");
  m.wapiti = 1;
  REQUIRE(pw_write_wapiti(&m, w) == 0, "write");
  EXPECT(vt_model_open_as(&vm, w, "auto", 2.0) == VT_EINVAL, "a cost factor for Wapiti");
  free(m.w);
}

/* Opening `path` fails with one line that starts with the path. */
static void expect_refused(const char *path, const char *format, const char *why) {
  vt_model *m = NULL;
  vt_status st = vt_model_open_as(&m, path, format, 0.0);
  EXPECT(st == VT_EFORMAT, "%s (%s): status %d", path, why, (int)st);
  if (st == VT_OK) {
    vt_model_close(m);
    return;
  }
  const char *e = vt_last_error();
  EXPECT(!strncmp(e, path, strlen(path)) && !strchr(e, '\n'), "%s: message '%s'", why, e);
  if (why[0] && !strstr(e, why)) fprintf(stderr, "note: %s: message '%s'\n", why, e);
}

static char *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  *n = 0;
  if (!f) return NULL;
  char *b = malloc(1 << 20);
  *n = fread(b, 1, 1 << 20, f);
  fclose(f);
  return b;
}

static void spit(const char *path, const char *b, size_t n) {
  unlink(path); /* a fresh file: truncating one in place is slow on some file systems */
  FILE *f = fopen(path, "wb");
  if (!f) abort();
  fwrite(b, 1, n, f);
  fclose(f);
}

/* Every truncation of each format is refused; every single-byte corruption opens or is refused
 * (never a crash; ASan / UBSan say the rest in the sanitizer build). */
TEST(damaged_models_refused) {
  setup();
  const char *names[3] = {"crfpp.model", "crfpp.model.txt", "wapiti.model"};
  const char *fmts[3] = {"crfpp", "crfpp", "wapiti"};
  for (int fmt = 0; fmt < 3; fmt++) {
    pw_model m;
    char p[96], q[96];
    path_of(p, sizeof p, names[fmt]);
    path_of(q, sizeof q, "damaged");
    model_init(&m, fmt == 2, 21, 0);
    REQUIRE((fmt == 0   ? pw_write_crfpp_binary(&m, p, 100)
             : fmt == 1 ? pw_write_crfpp_text(&m, p)
                        : pw_write_wapiti(&m, p)) == 0,
            "write");
    size_t n = 0;
    char *b = slurp(p, &n);
    REQUIRE(b != NULL, "read %s", p);
    /* text formats: a cut inside the last weight line may still parse: cut before it */
    size_t last = n;
    if (fmt) {
      last = n - 1;
      while (last > 0 && b[last - 1] != '\n') last--;
    }
    for (size_t cut = 0; cut < last; cut += cut < 256 ? 1 : 7) {
      spit(q, b, cut);
      expect_refused(q, fmts[fmt], "");
    }
    uint64_t st = 5;
    for (int i = 0; i < 150; i++) {
      char *c = malloc(n);
      memcpy(c, b, n);
      c[pw_rand(&st) % n] ^= (char)(1 + pw_rand(&st) % 255);
      spit(q, c, n);
      vt_model *vm = NULL;
      if (vt_model_open_as(&vm, q, fmts[fmt], 0.0) == VT_OK) {
        int32_t lab[K * PW_MAXT];
        double sc[K];
        tag(vm, &sents[1], K, lab, sc);
        vt_model_close(vm);
      }
      free(c);
    }
    free(b);
    free(m.w);
  }
}

TEST(wrong_version_refused) {
  setup();
  pw_model m;
  char p[96];
  path_of(p, sizeof p, "v200.crfpp");
  model_init(&m, 0, 3, 0);
  REQUIRE(pw_write_crfpp_binary(&m, p, 200) == 0, "write");
  expect_refused(p, "crfpp", "version 200");
  path_of(p, sizeof p, "v200.crfpp.txt");
  FILE *f = fopen(p, "w");
  fputs("version: 200\ncost-factor: 1\nmaxid: 3\nxsize: 1\n\nA\n\nU:%x[0,0]\n\n0 U:a\n\n0\n0\n0\n",
        f);
  fclose(f);
  expect_refused(p, "crfpp", "version 200");
  path_of(p, sizeof p, "maxent.wapiti");
  f = fopen(p, "w");
  fputs("#mdl#0#0\n#rdr#1/1/0\n7:u:%x[0,0],\n#qrk#1\n1:A,\n#qrk#0\n", f);
  fclose(f);
  expect_refused(p, "wapiti", "type 0");
  free(m.w);
}

/* CRF++ feature ids whose weight ranges overlap (crf_learn never writes them; a small file could
 * make thousands of strings share one L x L block, each built as its own copy): refused, in the
 * text and the binary format alike. */
TEST(overlapping_ids_refused) {
  setup();
  char p[96];
  path_of(p, sizeof p, "overlap.crfpp.txt");
  FILE *f = fopen(p, "w");
  REQUIRE(f != NULL, "write");
  /* Two labels: U strings take 2 weights; "U:b" at id 1 overlaps "U:a" at 0..1. */
  fputs("version: 100\ncost-factor: 1\nmaxid: 4\nxsize: 1\n\nA\nB\n\nU:%x[0,0]\n\n0 U:a\n"
        "1 U:b\n\n0.5\n0.25\n1\n2\n",
        f);
  fclose(f);
  expect_refused(p, "crfpp", "its weights overlap another feature's");
  path_of(p, sizeof p, "disjoint.crfpp.txt");
  f = fopen(p, "w");
  REQUIRE(f != NULL, "write");
  fputs("version: 100\ncost-factor: 1\nmaxid: 4\nxsize: 1\n\nA\nB\n\nU:%x[0,0]\n\n0 U:a\n"
        "2 U:b\n\n0.5\n0.25\n1\n2\n",
        f);
  fclose(f);
  vt_model *m = NULL;
  EXPECT(vt_model_open_as(&m, p, "crfpp", 0) == VT_OK, "disjoint ids: %s", vt_last_error());
  vt_model_close(m);
}

/* Templates the peers refuse (CRF++: other macros, rows beyond 8, columns past xsize, a type
 * other than U/B; Wapiti: another pattern type, a broken command). */
TEST(refused_templates) {
  setup();
  static const char *crfpp_bad[] = {"U01:%y[0,0]", "U01:%x[9,0]",  "U01:%x[0,2]",
                                    "X01:%x[0,0]", "U01:%x[ 0,0]", "U01:%x[0,0] "};
  for (size_t i = 0; i < sizeof crfpp_bad / sizeof *crfpp_bad; i++) {
    char p[96];
    path_of(p, sizeof p, "badtmpl.crfpp.txt");
    FILE *f = fopen(p, "w");
    fprintf(f, "version: 100\ncost-factor: 1\nmaxid: 1\nxsize: 2\n\nA\n\n%s\n\n0 U01:a\n\n0.5\n",
            crfpp_bad[i]);
    fclose(f);
    expect_refused(p, "crfpp", "template");
  }
  static const char *wapiti_bad[] = {"x01:%x[0,0]", "u01:%x[0,0", "u01:%q[0,0]",
                                     "u01:%t[0,0,\"a\""};
  for (size_t i = 0; i < sizeof wapiti_bad / sizeof *wapiti_bad; i++) {
    char p[96];
    path_of(p, sizeof p, "badtmpl.wapiti");
    FILE *f = fopen(p, "w");
    fprintf(f, "#mdl#2#0\n#rdr#1/1/0\n%zu:%s,\n#qrk#1\n1:A,\n#qrk#0\n", strlen(wapiti_bad[i]),
            wapiti_bad[i]);
    fclose(f);
    expect_refused(p, "wapiti", "");
  }
}

/* Content decides, not the name; a format named wrongly is refused. */
TEST(detection_by_content) {
  setup();
  pw_model m;
  char p[96];
  model_init(&m, 0, 4, 0);
  path_of(p, sizeof p, "noext1");
  REQUIRE(pw_write_crfpp_binary(&m, p, 100) == 0, "write");
  EXPECT_EQ_INT(vt_model_file_kind(p), VT_MODEL_TAGGER, "CRF++ binary");
  expect_refused(p, "wapiti", "Wapiti");
  path_of(p, sizeof p, "noext2");
  REQUIRE(pw_write_crfpp_text(&m, p) == 0, "write");
  EXPECT_EQ_INT(vt_model_file_kind(p), VT_MODEL_TAGGER, "CRF++ text");
  expect_refused(p, "wapiti", "Wapiti");
  m.wapiti = 1;
  path_of(p, sizeof p, "noext3");
  REQUIRE(pw_write_wapiti(&m, p) == 0, "write");
  EXPECT_EQ_INT(vt_model_file_kind(p), VT_MODEL_TAGGER, "Wapiti");
  expect_refused(p, "crfpp", "CRF++");
  expect_refused(p, "vitesse", "not a vitesse model");
  vt_model *vm = NULL;
  EXPECT(vt_model_open_as(&vm, p, "nosuch", 0.0) == VT_EINVAL, "unknown format name");
  free(m.w);
}

/* |a - b| <= tol, or a failure naming `what`. */
#define NEAR(a, b, tol, what)                                                                      \
  EXPECT(fabs((a) - (b)) <= (tol), "%s: %.17g vs %.17g", what, (double)(a), (double)(b))

/* crf_test's own search (engine/text/crfpp_search.h) over a CRF++ model against brute force:
 * its 1-best is the peer's (ties: lowest label from the last token back), its k best are the k
 * best scores, best first and distinct, its path probabilities and marginals are the brute-force
 * ones (and sum to 1 over every path). Weights in eighths: the float and double sums agree. */
TEST(crfpp_search_brute_force) {
  setup();
  for (int zero = 0; zero < 2; zero++) {
    pw_model pm;
    char p[96];
    path_of(p, sizeof p, zero ? "search0.crfpp" : "search.crfpp");
    model_init(&pm, 0, 21, zero);
    REQUIRE(pw_write_crfpp_binary(&pm, p, 100) == 0, "write %s", p);
    size_t n = 0;
    char *bytes = slurp(p, &n), err[256];
    vt_textmodel *m = NULL;
    REQUIRE(bytes &&
                vt_peer_load_mem(&m, VT_PEER_CRFPP, bytes, n, p, 0.0, err, sizeof err) == VT_OK,
            "%s", err);
    vt_arena *arena = NULL;
    REQUIRE(vt_arena_create(&arena, 1 << 16) == VT_OK, "arena");
    for (int i = 0; i < NSENT; i++) {
      const pw_sent *s = &sents[i];
      brute b;
      brute_force(&pm, s, &b);
      char base[PW_MAXT * PW_NCOLS * 8];
      uint32_t fields[2 * PW_MAXT * PW_NCOLS], at = 0;
      for (int t = 0; t < s->T; t++)
        for (int c = 0; c < PW_NCOLS; c++) {
          uint32_t len = (uint32_t)strlen(s->tok[t][c]);
          memcpy(base + at, s->tok[t][c], len);
          fields[2 * (t * PW_NCOLS + c)] = at;
          fields[2 * (t * PW_NCOLS + c) + 1] = len;
          at += len;
        }
      const vt_tokens tk = {s->T, PW_NCOLS, base, fields};
      double all[243], logz = -INFINITY;
      memcpy(all, b.score, sizeof(double) * (size_t)b.n);
      qsort(all, (size_t)b.n, sizeof(double), cmp_desc);
      for (int x = 0; x < b.n; x++) logz = fmax(logz, b.score[x]);
      double sum = 0.0;
      for (int x = 0; x < b.n; x++) sum += exp(b.score[x] - logz);
      logz += log(sum);
      int32_t lab[243 * PW_MAXT];
      double prob[243], marg[PW_MAXT * PW_MAXL];
      int32_t np = 0;
      vt_arena_reset(arena);
      REQUIRE(vt_crfpp_search(m, &tk, 1, arena, lab, &np, prob, marg) == VT_OK, "search");
      EXPECT_EQ_INT(np, 1, "1-best");
      for (int t = 0; t < s->T; t++) EXPECT_EQ_INT(lab[t], b.path[b.best][t], "1-best label");
      NEAR(prob[0], exp(b.score[b.best] - logz), 1e-12, "1-best probability");
      for (int t = 0; t < s->T; t++)
        for (int y = 0; y < pm.L; y++) {
          double want = 0.0;
          for (int x = 0; x < b.n; x++)
            if (b.path[x][t] == y) want += exp(b.score[x] - logz);
          NEAR(marg[t * pm.L + y], want, 1e-12, "marginal");
        }
      vt_arena_reset(arena);
      REQUIRE(vt_crfpp_search(m, &tk, b.n + 2, arena, lab, &np, prob, NULL) == VT_OK, "n-best");
      EXPECT_EQ_INT(np, b.n, "every path, then no more");
      double total = 0.0;
      for (int x = 0; x < np; x++) {
        int idx = 0;
        for (int t = s->T - 1; t >= 0; t--) idx = idx * pm.L + lab[x * s->T + t];
        EXPECT(b.score[idx] == all[x], "sentence %d, path %d: score %g, the %d-th best is %g", i, x,
               b.score[idx], x, all[x]);
        NEAR(prob[x], exp(all[x] - logz), 1e-12, "path probability");
        for (int q = 0; q < x; q++)
          EXPECT(memcmp(lab + x * s->T, lab + q * s->T, sizeof(int32_t) * (size_t)s->T),
                 "paths %d and %d are the same", x, q);
        total += prob[x];
      }
      NEAR(total, 1.0, 1e-9, "the probabilities of every path sum to 1");
    }
    vt_arena_destroy(arena);
    vt_textmodel_free(m);
    free(bytes);
    free(pm.w);
  }
}

/* Not a check: with --write-seeds DIR, the fuzz seeds (valid and damaged models). */
TEST(write_seeds) {
  const char *out = NULL;
  for (int i = 1; i + 1 < test_argc; i++)
    if (!strcmp(test_argv[i], "--write-seeds")) out = test_argv[i + 1];
  if (!out) return;
  setup();
  char d[256], p[320];
  for (int fmt = 0; fmt < 2; fmt++) {
    snprintf(d, sizeof d, "%s/%s", out, fmt ? "wapiti" : "crfpp");
    mkdir(d, 0755);
    pw_model m;
    model_init(&m, fmt, 31, 0);
    if (fmt == 0) {
      snprintf(p, sizeof p, "%s/good.model", d);
      pw_write_crfpp_binary(&m, p, 100);
      snprintf(p, sizeof p, "%s/good.model.txt", d);
      pw_write_crfpp_text(&m, p);
      snprintf(p, sizeof p, "%s/bad_version.model", d);
      pw_write_crfpp_binary(&m, p, 200);
    } else {
      snprintf(p, sizeof p, "%s/good.model", d);
      pw_write_wapiti(&m, p);
    }
    snprintf(p, sizeof p, "%s/good.model", d);
    size_t n = 0;
    char *b = slurp(p, &n);
    snprintf(p, sizeof p, "%s/bad_truncated.model", d);
    if (b) spit(p, b, n / 2);
    free(b);
    free(m.w);
  }
  EXPECT(1, "seeds written");
}

/* Not a check: with --write-fixtures DIR, the CRF++ models whose crf_test outputs are kept as
 * fixtures (tests/crfpp_fixtures/README.md): ties.model (weights in eighths: many exact ties)
 * with an observation-dependent bigram template, and fine.model (5 labels, float weights: sums
 * that round; the label bigram only). */
TEST(write_fixtures) {
  const char *out = NULL;
  for (int i = 1; i + 1 < test_argc; i++)
    if (!strcmp(test_argv[i], "--write-fixtures")) out = test_argv[i + 1];
  if (!out) return;
  setup();
  char p[320];
  pw_model m;
  model_init(&m, 0, 31, PW_EIGHTHS);
  snprintf(p, sizeof p, "%s/ties.model", out);
  EXPECT(pw_write_crfpp_binary(&m, p, 100) == 0, "ties.model written");
  free(m.w);
  memset(&m, 0, sizeof m);
  m.L = 5;
  const char *labels[] = {"B-NP", "I-NP", "O", "B-VP", "I-VP"};
  for (int y = 0; y < 5; y++) m.labels[y] = labels[y];
  m.n_tmpl = 6; /* no observation-dependent bigram: the engine's own marginals apply too */
  for (int k = 0; k < 6; k++) m.tmpl[k] = CRFPP_TMPL[k];
  pw_build(&m, sents, NSENT, 77, PW_FINE);
  snprintf(p, sizeof p, "%s/fine.model", out);
  EXPECT(pw_write_crfpp_binary(&m, p, 100) == 0, "fine.model written");
  free(m.w);
}

TEST_MAIN(CASE(overlapping_ids_refused), CASE(crfpp_text_brute_force),
          CASE(crfpp_binary_brute_force), CASE(wapiti_brute_force), CASE(all_ties_lowest_label),
          CASE(crfpp_cost_factor), CASE(damaged_models_refused), CASE(wrong_version_refused),
          CASE(refused_templates), CASE(detection_by_content), CASE(write_seeds),
          CASE(crfpp_search_brute_force), CASE(write_fixtures))
