/* perf/vt_bench.c: the decoding benchmark driver (not a test).
 *
 *   vt_bench [--rounds R] [--seconds S] [--csv FILE] [--algos a,b,...] [-k K] [--heuristic H]
 *            [--budget X] DATASET...
 *
 * A DATASET is a directory holding E.npy N.npy A.npy [S.npy F.npy R.npy] (a real lattice set, as
 * `vitesse lattice` writes), or `synth:L:N` for N seeded synthetic sentences over L labels (mean
 * length 23). Every implemented algorithm (or the --algos list) runs single-threaded, `viterbi`
 * at every SIMD level the CPU has; k-best algorithms run at k = 1 and k = K (default 5), and
 * iter-viterbi-astar at k = K also with --refine expand (row "iter-viterbi-astar/expand"). Each
 * configuration decodes for at most S seconds (default 1) per round; rounds interleave the
 * configurations so that machine noise hits them alike, and the median round is reported with
 * its ratios to viterbi-scalar, to the best SIMD viterbi of the same round and to the full decoder
 * of the same k (the SIMD viterbi for k = 1, kbest-viterbi for k > 1: "x full", the worst-case
 * guarantee), and the share of sentences the work budget (--budget X: vt_decode_opts.budget,
 * default 0 = the library's) handed to that full decoder ("fallback"). One CSV row per
 * configuration (appended to FILE, with the CPU model), one table on stdout. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, CLOCK_MONOTONIC */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/synth.h"
#include "io/lattice_file.h"
#include "vitesse.h"

typedef struct dataset {
  char name[256];
  int32_t L;
  int64_t n_sent;
  const int64_t *offset;
  const void *E;
  int is_f64;
  vt_trans *tr;
  vt_lattice_file lf;
  vt_synth syn;
} dataset;

typedef struct config {
  vt_decode_opts opts;
  vt_simd simd;
  double sps[64]; /* per round */
  double iters, active, pruned, fallback;
  int64_t sentences;
} config;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(const double *v, int n) {
  double tmp[64];
  memcpy(tmp, v, sizeof(double) * (size_t)n);
  qsort(tmp, (size_t)n, sizeof(double), cmp_double);
  return n % 2 ? tmp[n / 2] : 0.5 * (tmp[n / 2 - 1] + tmp[n / 2]);
}

static void cpu_model(char *buf, size_t n) {
  snprintf(buf, n, "unknown");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    if (!strncmp(line, "model name", 10)) {
      char *p = strchr(line, ':');
      if (p) {
        p += 2;
        p[strcspn(p, "\n")] = 0;
        snprintf(buf, n, "%s", p);
      }
      break;
    }
  }
  fclose(f);
}

static int dataset_open(dataset *d, const char *spec) {
  memset(d, 0, sizeof *d);
  char err[512];
  if (!strncmp(spec, "synth:", 6)) {
    vt_synth_opts so = {0, 0, 23.0, 1};
    long L = 0, n = 0;
    if (sscanf(spec + 6, "%ld:%ld", &L, &n) != 2 || L < 1 || n < 1) {
      fprintf(stderr, "vt_bench: bad synthetic spec '%s' (synth:L:N)\n", spec);
      return -1;
    }
    so.labels = (int32_t)L;
    so.sentences = n;
    if (vt_synth_make(&d->syn, &so) != VT_OK) return -1;
    size_t LL = (size_t)L * (size_t)L;
    double *A = malloc(LL * sizeof *A), *S = malloc((size_t)L * sizeof *S),
           *F = malloc((size_t)L * sizeof *F);
    if (!A || !S || !F) return -1;
    for (size_t i = 0; i < LL; i++) A[i] = d->syn.A[i];
    for (long y = 0; y < L; y++) {
      S[y] = d->syn.S[y];
      F[y] = d->syn.F[y];
    }
    vt_status st = vt_trans_create(&d->tr, (int32_t)L, A, S, F, d->syn.R);
    free(A);
    free(S);
    free(F);
    if (st != VT_OK) return -1;
    snprintf(d->name, sizeof d->name, "synthetic-%ld", L);
    d->L = (int32_t)L;
    d->n_sent = n;
    d->offset = d->syn.offset;
    d->E = d->syn.E;
    return 0;
  }
  char p[6][1024];
  const char *names[6] = {"E", "N", "A", "S", "F", "R"};
  const char *paths[6];
  for (int i = 0; i < 6; i++) {
    snprintf(p[i], sizeof p[i], "%s/%s.npy", spec, names[i]);
    FILE *f = fopen(p[i], "rb");
    paths[i] = f || i < 3 ? p[i] : NULL;
    if (f) fclose(f);
  }
  if (vt_lattice_file_load(&d->lf, paths[0], paths[1], paths[2], paths[3], paths[4], paths[5], err,
                           sizeof err) != VT_OK) {
    fprintf(stderr, "vt_bench: %s\n", err);
    return -1;
  }
  if (vt_trans_create(&d->tr, d->lf.L, d->lf.A, d->lf.S, d->lf.F, d->lf.R) != VT_OK) return -1;
  const char *base = strrchr(spec, '/');
  snprintf(d->name, sizeof d->name, "%s", base && base[1] ? base + 1 : spec);
  d->L = d->lf.L;
  d->n_sent = d->lf.n_sent;
  d->offset = d->lf.offset;
  d->E = d->lf.E.data;
  d->is_f64 = d->lf.E.dtype == VT_NPY_F64;
  return 0;
}

static void dataset_close(dataset *d) {
  vt_trans_destroy(d->tr);
  if (d->syn.E)
    vt_synth_free(&d->syn);
  else
    vt_lattice_file_free(&d->lf);
}

/* Decodes sentences in order for at most `budget` seconds; returns sentences/s. */
static double run_config(const dataset *d, config *c, vt_arena *ar, double budget, int32_t *lab,
                         double *sc) {
  vt_decode_stats st;
  memset(&st, 0, sizeof st);
  vt_simd_force(c->simd);
  double t0 = now(), el = 0;
  int64_t s = 0;
  for (; s < d->n_sent; s++) {
    int64_t row = d->offset[s];
    int32_t T = (int32_t)(d->offset[s + 1] - row), n;
    vt_status rc = d->is_f64 ? vt_decode(d->tr, &c->opts, ar, (const double *)d->E + row * d->L, T,
                                         lab, sc, &n, &st)
                             : vt_decode_f32(d->tr, &c->opts, ar, (const float *)d->E + row * d->L,
                                             T, lab, sc, &n, &st);
    vt_arena_reset(ar);
    if (rc != VT_OK) {
      fprintf(stderr, "vt_bench: %s failed: %s\n", vt_algo_name(c->opts.algo), vt_strerror(rc));
      exit(1);
    }
    el = now() - t0;
    if (el >= budget) {
      s++;
      break;
    }
  }
  c->sentences = s;
  c->iters = st.sentences ? (double)st.iterations / (double)st.sentences : 0;
  c->active = st.tokens ? (double)st.active_labels / (double)st.tokens : 0;
  c->pruned = st.nodes ? (double)st.pruned / (double)st.nodes : 0;
  c->fallback = st.sentences ? (double)st.budget_fallbacks / (double)st.sentences : 0;
  return el > 0 ? (double)s / el : 0;
}

static int algo_listed(const char *list, const char *name) {
  if (!list) return 1;
  size_t n = strlen(name);
  for (const char *p = list; (p = strstr(p, name)); p += n)
    if ((p == list || p[-1] == ',') && (p[n] == 0 || p[n] == ',')) return 1;
  return 0;
}

int main(int argc, char **argv) {
  int rounds = 3, kbig = 5;
  vt_heuristic heur = VT_HEUR_NAIVE; /* for astar: naive, m0, m3, m6 or m9 */
  double budget = 1.0, work_budget = 0;
  const char *csv = NULL, *algos = NULL;
  int first = 1;
  for (; first < argc && argv[first][0] == '-'; first++) {
    if (!strcmp(argv[first], "--rounds") && first + 1 < argc)
      rounds = atoi(argv[++first]);
    else if (!strcmp(argv[first], "--seconds") && first + 1 < argc)
      budget = atof(argv[++first]);
    else if (!strcmp(argv[first], "--csv") && first + 1 < argc)
      csv = argv[++first];
    else if (!strcmp(argv[first], "--algos") && first + 1 < argc)
      algos = argv[++first];
    else if (!strcmp(argv[first], "--budget") && first + 1 < argc)
      work_budget = atof(argv[++first]);
    else if (!strcmp(argv[first], "-k") && first + 1 < argc)
      kbig = atoi(argv[++first]);
    else if (!strcmp(argv[first], "--heuristic") && first + 1 < argc) {
      const char *h = argv[++first];
      heur = !strcmp(h, "naive") ? VT_HEUR_NAIVE : h[0] == 'm' ? (vt_heuristic)atoi(h + 1) : heur;
    } else {
      fprintf(stderr, "usage: vt_bench [--rounds R] [--seconds S] [--csv FILE] [--algos a,b] "
                      "[--heuristic naive|m0|m3|m6|m9] [--budget X] "
                      "[-k K] DATASET...\n");
      return 2;
    }
  }
  if (rounds < 1 || rounds > 64 || kbig < 1 || first == argc) {
    fprintf(stderr, "vt_bench: need 1..64 rounds, k >= 1 and at least one dataset\n");
    return 2;
  }
  char cpu[256];
  cpu_model(cpu, sizeof cpu);
  FILE *out = csv ? fopen(csv, "a") : NULL;
  if (csv && !out) {
    fprintf(stderr, "vt_bench: cannot open %s\n", csv);
    return 2;
  }
  printf("cpu: %s; one thread; median of %d rounds of <= %.1f s per configuration\n", cpu, rounds,
         budget);
  vt_simd best_simd = vt_simd_active();
  for (int a = first; a < argc; a++) {
    dataset d;
    if (dataset_open(&d, argv[a]) != 0) return 1;
    config cfg[64];
    int nc = 0;
    for (int al = 0; al < VT_ALGO_COUNT_; al++) {
      vt_algo algo = (vt_algo)al;
      if (!vt_algo_available(algo) || !algo_listed(algos, vt_algo_name(algo))) continue;
      /* kk: 0 = k 1, 1 = k K, 2 = k K with --refine expand (iter-viterbi-astar only). */
      const int nk = algo == VT_ALGO_ITER_VITERBI_ASTAR ? 3 : vt_algo_kbest(algo) ? 2 : 1;
      for (int kk = 0; kk < nk; kk++) {
        for (int lv = VT_SIMD_SCALAR; lv <= VT_SIMD_AVX512; lv++) {
          int want =
              algo == VT_ALGO_VITERBI ? vt_simd_supported((vt_simd)lv) : lv == (int)best_simd;
          if (!want || nc == 64) continue;
          config *c = &cfg[nc++];
          memset(c, 0, sizeof *c);
          vt_decode_opts_init(&c->opts);
          c->opts.algo = algo;
          c->opts.k = kk ? kbig : 1;
          c->opts.heuristic = heur;
          c->opts.beam = algo == VT_ALGO_BEAM ? (kk ? kbig : 1) : 1;
          c->opts.refine = kk == 2 ? VT_REFINE_EXPAND : VT_REFINE_SPLIT;
          c->opts.budget = work_budget;
          c->simd = (vt_simd)lv;
        }
      }
    }
    int32_t maxT = 0;
    for (int64_t s = 0; s < d.n_sent; s++)
      if (d.offset[s + 1] - d.offset[s] > maxT) maxT = (int32_t)(d.offset[s + 1] - d.offset[s]);
    int32_t *lab = malloc(sizeof(int32_t) * ((size_t)maxT + 1) * (size_t)kbig);
    double *sc = malloc(sizeof(double) * (size_t)kbig);
    vt_arena *ar;
    if (!lab || !sc || vt_arena_create(&ar, 0) != VT_OK) return 1;
    for (int r = 0; r < rounds; r++)
      for (int i = 0; i < nc; i++) cfg[i].sps[r] = run_config(&d, &cfg[i], ar, budget, lab, sc);
    /* Ratios per round, then medians: noise that hits one round hits both sides of a ratio. */
    printf("\n%s: %d labels, %lld sentences\n", d.name, d.L, (long long)d.n_sent);
    printf("%-25s %4s %-7s %12s %10s %10s %7s %8s %7s %7s %8s\n", "algorithm", "k", "simd",
           "sentences/s", "x scalar", "x viterbi", "iters", "active", "pruned", "x full",
           "fallback");
    for (int i = 0; i < nc; i++) {
      double rs[64], rv[64], rf[64];
      for (int r = 0; r < rounds; r++) {
        double sc_ref = 0, vit = 0, full = 0;
        for (int j = 0; j < nc; j++) {
          if (cfg[j].opts.algo == VT_ALGO_VITERBI_SCALAR) sc_ref = cfg[j].sps[r];
          if (cfg[j].opts.algo == VT_ALGO_VITERBI && cfg[j].simd == best_simd) vit = cfg[j].sps[r];
          if (cfg[j].opts.algo == VT_ALGO_KBEST_VITERBI && cfg[j].opts.k == cfg[i].opts.k)
            full = cfg[j].sps[r];
        }
        if (cfg[i].opts.k == 1) full = vit;
        rs[r] = sc_ref > 0 ? cfg[i].sps[r] / sc_ref : 0;
        rv[r] = vit > 0 ? cfg[i].sps[r] / vit : 0;
        rf[r] = full > 0 ? cfg[i].sps[r] / full : 0;
      }
      config *c = &cfg[i];
      double sps = median(c->sps, rounds), xs = median(rs, rounds), xv = median(rv, rounds);
      double xf = median(rf, rounds);
      char name[64];
      snprintf(name, sizeof name, "%s%s", vt_algo_name(c->opts.algo),
               c->opts.refine == VT_REFINE_EXPAND ? "/expand" : "");
      printf("%-25s %4d %-7s %12.1f %10.2f %10.2f %7.2f %8.1f %7.3f %7.2f %8.3f\n", name, c->opts.k,
             vt_simd_name(c->simd), sps, xs, xv, c->iters, c->active, c->pruned, xf, c->fallback);
      if (out)
        fprintf(out, "\"%s\",%s,%d,%s,%d,%s,%lld,%.2f,%.3f,%.3f,%.3f,%.2f,%.4f,%.3f,%.4f\n", cpu,
                d.name, d.L, name, c->opts.k, vt_simd_name(c->simd), (long long)c->sentences, sps,
                xs, xv, c->iters, c->active, c->pruned, xf, c->fallback);
    }
    vt_arena_destroy(ar);
    free(lab);
    free(sc);
    dataset_close(&d);
  }
  if (out) fclose(out);
  return 0;
}
