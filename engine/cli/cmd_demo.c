/* engine/cli/cmd_demo.c: `vitesse demo`, the main job on an embedded default: a seeded synthetic
 * lattice set shaped like a 300-label tagger, decoded by every algorithm, sentences/s each. */
#include <getopt.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "synth.h"

/* Counts sentences among the first `n` where `opts` finds the same best score as the reference
 * Viterbi (for exact decoders this must be all of them). */
static int64_t demo_agree(const vt_trans *trans, const vt_decode_opts *opts, const vt_synth *syn,
                          int64_t n, vt_arena *arena) {
  vt_decode_opts ref;
  vt_decode_opts_init(&ref);
  ref.algo = VT_ALGO_VITERBI_SCALAR;
  int32_t *lab = malloc((size_t)syn->L * 8 * (size_t)opts->k * sizeof(int32_t));
  int32_t *lref = malloc((size_t)syn->L * 8 * sizeof(int32_t));
  double *sc = malloc((size_t)opts->k * sizeof(double));
  int64_t agree = 0;
  for (int64_t s = 0; s < n && lab && lref && sc; s++) {
    const float *E = syn->E + syn->offset[s] * syn->L;
    int32_t T = syn->lengths[s], np = 0, npr = 0;
    double sref = 0;
    if (T > syn->L * 8) continue;
    vt_decode_f32(trans, opts, arena, E, T, lab, sc, &np, NULL);
    vt_arena_reset(arena);
    vt_decode_f32(trans, &ref, arena, E, T, lref, &sref, &npr, NULL);
    vt_arena_reset(arena);
    if ((np > 0) == (npr > 0) && (np == 0 || sc[0] == sref)) agree++;
  }
  free(lab);
  free(lref);
  free(sc);
  return agree;
}

int vt_cmd_demo(int argc, char **argv) {
  static const struct option longopts[] = {
      {"labels", required_argument, 0, 'L'},  {"sentences", required_argument, 0, 'n'},
      {"seconds", required_argument, 0, 't'}, {"threads", required_argument, 0, 'j'},
      {"help", no_argument, 0, 'h'},          {0, 0, 0, 0}};
  long long L = 300, n = 2000, seconds = 2, threads = 1;
  int rc = VT_EXIT_USAGE, c;
  vt_synth syn;
  memset(&syn, 0, sizeof syn);
  vt_trans *trans = NULL;
  vt_arena *arena = NULL;
  double *A = NULL, *S = NULL, *F = NULL;
  optind = 1;
  while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
    long long *dst = c == 'L'   ? &L
                     : c == 'n' ? &n
                     : c == 't' ? &seconds
                     : c == 'j' ? &threads
                                : NULL;
    if (dst) {
      if (vt_cli_parse_int(optarg, 1, c == 'L' ? 5000 : 10000000, dst)) {
        vt_cli_error("demo: bad number '%s'", optarg);
        goto done;
      }
    } else if (c == 'h') {
      puts("usage: vitesse demo [--labels 300] [--sentences 2000] [--seconds 2] [--threads 1]\n"
           "Generates a seeded synthetic lattice set shaped like a tagger's and decodes it with\n"
           "every algorithm, printing sentences/s (at most --seconds of decoding each).");
      rc = VT_EXIT_OK;
      goto done;
    } else {
      goto done;
    }
  }
  rc = VT_EXIT_FAIL;
  vt_synth_opts so = {(int32_t)L, n, 23.0, 1};
  if (vt_synth_make(&syn, &so) != VT_OK) goto oom;
  size_t LL = (size_t)L * (size_t)L;
  A = malloc(LL * sizeof *A);
  S = malloc((size_t)L * sizeof *S);
  F = malloc((size_t)L * sizeof *F);
  if (!A || !S || !F) goto oom;
  for (size_t i = 0; i < LL; i++) A[i] = syn.A[i];
  for (long long y = 0; y < L; y++) {
    S[y] = syn.S[y];
    F[y] = syn.F[y];
  }
  if (vt_trans_create(&trans, (int32_t)L, A, S, F, syn.R) != VT_OK) goto oom;
  if (vt_arena_create(&arena, 0) != VT_OK) goto oom;

  printf("vitesse %s demo: %lld synthetic sentences (seed 1), %lld labels, %lld tokens, "
         "%lld thread(s), SIMD %s\n",
         vt_version(), n, L, (long long)syn.n_rows, threads, vt_simd_name(vt_simd_active()));
  printf("%-20s %4s %10s %14s %12s  %s\n", "algorithm", "k", "sentences", "sentences/s", "x scalar",
         "best score = reference");
  vt_cli_source src = {syn.n_sent, syn.offset, syn.E, 0, syn.L, NULL};
  double scalar_sps = 0;
  /* The reference first (the speed-up column is against it), then every implemented algorithm. */
  for (int a = -1; a < VT_ALGO_COUNT_; a++) {
    vt_algo algo = a < 0 ? VT_ALGO_VITERBI_SCALAR : (vt_algo)a;
    if ((a >= 0 && algo == VT_ALGO_VITERBI_SCALAR) || !vt_algo_available(algo)) continue;
    vt_decode_opts opts;
    vt_decode_opts_init(&opts);
    opts.algo = algo;
    if (vt_algo_kbest(opts.algo)) opts.k = 5;
    if (opts.algo == VT_ALGO_BEAM) opts.beam = 8;
    /* astar with its best heuristic: the naive one holds most of a 300-label lattice in its
     * agenda (well under 1 sentence/s at k = 5), and the agreement check below is untimed. */
    if (opts.algo == VT_ALGO_ASTAR) opts.heuristic = VT_HEUR_M9;
    vt_cli_run_stats rs;
    if (vt_cli_run(trans, &opts, &src, (int)threads, NULL, (double)seconds, &rs) != VT_OK)
      goto done;
    double sps = rs.decode_seconds > 0 ? (double)rs.decode.sentences / rs.decode_seconds : 0;
    if (opts.algo == VT_ALGO_VITERBI_SCALAR) scalar_sps = sps;
    /* The first 200 sentences, or as many as the timed run got through (slow decoders). */
    int64_t check = n < 200 ? n : 200;
    if (rs.decode.sentences > 0 && rs.decode.sentences < check) check = rs.decode.sentences;
    int64_t agree = demo_agree(trans, &opts, &syn, check, arena);
    char name[64];
    snprintf(name, sizeof name, "%s%s", vt_algo_name(opts.algo),
             opts.algo == VT_ALGO_BEAM    ? " (B=8)"
             : opts.algo == VT_ALGO_ASTAR ? " (m9)"
                                          : "");
    printf("%-20s %4d %10lld %14.1f %11.1fx  %lld/%lld%s\n", name, opts.k,
           (long long)rs.decode.sentences, sps, scalar_sps > 0 ? sps / scalar_sps : 0,
           (long long)agree, (long long)check, vt_algo_exact(opts.algo) ? "" : " (approximate)");
    if (vt_algo_exact(opts.algo) && agree != check) {
      vt_cli_error("demo: exact decoder %s disagrees with the reference", name);
      goto done;
    }
  }
  rc = VT_EXIT_OK;
  goto done;
oom:
  vt_cli_error("demo: out of memory");
done:
  vt_arena_destroy(arena);
  vt_trans_destroy(trans);
  vt_synth_free(&syn);
  free(A);
  free(S);
  free(F);
  return rc;
}
