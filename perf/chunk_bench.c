/* perf/chunk_bench.c: speed of the label-chunk decoders (results in perf/README.md).
 *
 *   chunk_bench corpus MODEL FILE [W...]   real lattices: a joint model (vitesse chunk-train) on
 *                                          a corpus, for each chunk bound W (0 = none): part
 *                                          scores, then each SIMD level and Algorithm 3.1 as
 *                                          printed; sentences/s, and agreement of the scores
 *   chunk_bench synth                      random lattices, c = 2, p = 5 and 45, n = 10..200:
 *                                          microseconds per sentence at each level
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "chunk/chunk_corpus_file.h"
#include "chunk/chunk_decode.h"
#include "chunk/chunk_eval.h"
#include "chunk/chunk_tag.h"
#include "models/chunk_model_file.h"

/* CPU time of this thread: the machine may be shared, and a busy neighbour then slows the
 * measured code less than it stretches wall time. */
static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* decoders: chunk-start lanes at scalar, avx2, avx512; POS-tag lanes (the best level);
 * Algorithm 3.1 as printed */
enum { N_DEC = 5, REF = 4, ROUNDS = 5 };

static int dec_ok(int d) { return d >= 3 || vt_simd_supported((vt_simd)d); }

static vt_status dec_run(int d, const vt_chunk_lattice *lat, vt_arena *ar, vt_chunk_out *o) {
  if (d == REF) return vt_chunk_decode_ref(lat, ar, o);
  if (d == 3) return vt_chunk_decode_tags(lat, vt_simd_active(), ar, o);
  return vt_chunk_decode_level(lat, (vt_simd)d, ar, o, 0);
}

static int bench_corpus(const char *model_path, const char *path, int nw, char **wv) {
  char err[512];
  vt_chunk_model m;
  memset(&m, 0, sizeof m);
  vt_chunk_corpus cp;
  memset(&cp, 0, sizeof cp);
  vt_chunk_read_opts ro;
  vt_chunk_read_opts_init(&ro);
  if (vt_chunk_model_load(&m, model_path, err, sizeof err) != VT_OK ||
      vt_chunk_corpus_read(&cp, &m, path, NULL, &ro, err, sizeof err) != VT_OK) {
    fprintf(stderr, "chunk_bench: %s\n", err);
    return 2;
  }
  vt_arena *ar;
  vt_arena_create(&ar, 0);
  const size_t mx = (size_t)cp.max_n + 1;
  int32_t *pos = malloc(mx * 4), *ctag = malloc(mx * 4);
  uint8_t *beg = malloc(mx);
  double *score = malloc((size_t)cp.n_sent * sizeof *score);
  printf("| W | build sent/s | scalar | avx2 | avx512 | by tag | alg-3.1 | POS | chunk acc | F1 |\n"
         "|---|---|---|---|---|---|---|---|---|---|\n");
  for (int wi = 0; wi < (nw ? nw : 1); wi++) {
    const int32_t W = nw ? atoi(wv[wi]) : 0;
    double rate[N_DEC + 1] = {0}; /* best of ROUNDS rounds, sentences/s */
    int64_t mismatch = 0;
    for (int d = -1; d < N_DEC; d++) {
      if (d >= 0 && !dec_ok(d)) continue;
      for (int round = 0; round < (d == REF ? 1 : ROUNDS); round++) {
        double secs = 0;
        int64_t sents = 0;
        for (int rep = 0; rep == 0 || (d != REF && secs < 0.2); rep++)
          for (int64_t s = 0; s < cp.n_sent; s++) {
            vt_chunk_x x;
            vt_chunk_corpus_x(&cp, s, &x);
            vt_chunk_lattice lat;
            vt_chunk_out o = {pos, ctag, beg, 0};
            vt_arena_reset(ar);
            double t0 = now();
            vt_chunk_lattice_build(&m, m.w, &x, W, ar, &lat);
            double t1 = now();
            if (d >= 0) dec_run(d, &lat, ar, &o);
            double t2 = now();
            secs += d < 0 ? t1 - t0 : t2 - t1;
            sents++;
            if (d == 0 && rep == 0 && round == 0) score[s] = o.score;
            if (d > 0 && rep == 0 && round == 0) mismatch += o.score != score[s];
          }
        if ((double)sents / secs > rate[d + 1]) rate[d + 1] = (double)sents / secs;
      }
    }
    vt_chunk_eval ev = {0};
    vt_chunk_corpus_eval(&m, &cp, W, &ev, NULL);
    printf("| %d | %.0f |", W, rate[0]);
    for (int d = 0; d < N_DEC; d++)
      if (dec_ok(d))
        printf(" %.0f |", rate[d + 1]);
      else
        printf(" - |");
    printf(" %.2f | %.2f | %.2f |%s\n", vt_chunk_eval_pos_acc(&ev), vt_chunk_eval_tag_acc(&ev),
           vt_chunk_eval_f1(&ev, 0, 0), mismatch ? " SCORES DIFFER" : "");
  }
  printf("(best of %d rounds of thread CPU time; decoders: sentences/s of decoding alone, lattices "
         "built "
         "beforehand; %lld sentences, "
         "%d POS tags, %d chunk tags)\n",
         ROUNDS, (long long)cp.n_sent, m.p, m.c);
  free(pos), free(ctag), free(beg), free(score);
  vt_arena_destroy(ar);
  vt_chunk_corpus_free(&cp);
  vt_chunk_model_free(&m);
  return 0;
}

static uint64_t rng_state = 12345;
static double rnd(void) {
  uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return (double)((z ^ (z >> 31)) >> 11) * (1.0 / 9007199254740992.0) - 0.5;
}

static int bench_synth(void) {
  static const int ns[] = {10, 25, 50, 100, 200}, ps[] = {5, 45};
  vt_arena *ar;
  vt_arena_create(&ar, 0);
  printf("| p | n | W | scalar us | avx2 us | avx512 us | by tag us | alg-3.1 us |\n"
         "|---|---|---|---|---|---|---|---|\n");
  for (size_t pi = 0; pi < 2; pi++)
    for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++)
      for (int bounded = 0; bounded < 2; bounded++) {
        const int n = ns[ni], p = ps[pi], c = 2, W = bounded ? (n < 8 ? n : 8) : n;
        if (bounded && W == n) continue;
        double *node = malloc(sizeof(double) * (size_t)(n * c * p));
        double *trans = malloc(sizeof(double) * (size_t)(n * c * p * p));
        double *ct = malloc(sizeof(double) * (size_t)(n * c * c));
        double *left = malloc(sizeof(double) * (size_t)(n * c)),
               *right = malloc(sizeof(double) * (size_t)(n * c));
        for (int i = 0; i < n * c * p; i++) node[i] = rnd();
        for (int i = 0; i < n * c * p * p; i++) trans[i] = rnd();
        for (int i = 0; i < n * c * c; i++) ct[i] = rnd();
        for (int i = 0; i < n * c; i++) left[i] = rnd(), right[i] = rnd();
        vt_chunk_lattice lat = {n, c, p, W, node, trans, ct, NULL, left, right};
        int32_t *pos = malloc(sizeof(int32_t) * (size_t)n),
                *tag = malloc(sizeof(int32_t) * (size_t)n);
        uint8_t *beg = malloc((size_t)n);
        vt_chunk_out o = {pos, tag, beg, 0};
        printf("| %d | %d | %d |", p, n, W);
        for (int d = 0; d < N_DEC; d++) {
          if (!dec_ok(d) || (d == REF && (double)n * W * p * p > 3e6)) {
            printf(" - |");
            continue;
          }
          double best = 1e300;
          for (int round = 0; round < ROUNDS; round++) {
            int64_t reps = 0;
            double t0 = now(), t = 0;
            while (t < 0.05) {
              vt_arena_reset(ar);
              dec_run(d, &lat, ar, &o);
              reps++;
              t = now() - t0;
            }
            if (t / (double)reps < best) best = t / (double)reps;
          }
          printf(" %.2f |", 1e6 * best);
        }
        printf("\n");
        free(node), free(trans), free(ct), free(left), free(right), free(pos), free(tag), free(beg);
      }
  vt_arena_destroy(ar);
  return 0;
}

int main(int argc, char **argv) {
  if (argc >= 4 && !strcmp(argv[1], "corpus"))
    return bench_corpus(argv[2], argv[3], argc - 4, argv + 4);
  if (argc == 2 && !strcmp(argv[1], "synth")) return bench_synth();
  fprintf(stderr, "usage: chunk_bench corpus MODEL FILE [W...] | chunk_bench synth\n");
  return 2;
}
