/* engine/cli/cmd_demo.c: `vitesse demo`, the main job on an embedded default: a seeded synthetic
 * lattice set shaped like a 300-label tagger, decoded by every algorithm, sentences/s each. */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

/* Counts sentences among the first `n` where `opts` finds the same best score as the reference
 * Viterbi (for exact decoders this must be all of them). */
static int64_t demo_agree(const vt_trans *trans, const vt_decode_opts *opts, const vt_lattices *syn,
                          int64_t n, vt_arena *arena) {
  const int32_t L = vt_lattices_labels(syn);
  vt_decode_opts ref;
  vt_decode_opts_init(&ref);
  ref.algo = VT_ALGO_VITERBI_SCALAR;
  int32_t *lab = malloc((size_t)L * 8 * (size_t)opts->k * sizeof(int32_t));
  int32_t *lref = malloc((size_t)L * 8 * sizeof(int32_t));
  double *sc = malloc((size_t)opts->k * sizeof(double));
  int64_t agree = 0;
  for (int64_t s = 0; s < n && lab && lref && sc; s++) {
    int32_t T, np = 0, npr = 0;
    const float *E = vt_lattices_rows(syn, s, &T);
    double sref = 0;
    if (T > L * 8) continue;
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

/* A timed run: the progress callback cancels the engine once its seconds are spent. */
typedef struct demo_timer {
  vt_engine *engine;
  double seconds;
} demo_timer;

static void stop_after(void *ctx, const vt_progress *p) {
  demo_timer *t = ctx;
  if (!p->final && p->elapsed >= t->seconds) vt_engine_cancel(t->engine);
}

int vt_cmd_demo(int argc, char **argv) {
  demo_timer timer = {NULL, 0};
  static const struct option longopts[] = {
      {"labels", required_argument, 0, 'L'},  {"sentences", required_argument, 0, 'n'},
      {"seconds", required_argument, 0, 't'}, {"threads", required_argument, 0, 'j'},
      {"help", no_argument, 0, 'h'},          {0, 0, 0, 0}};
  long long L = 300, n = 2000, seconds = 2, threads = 1;
  int rc = VT_EXIT_USAGE, c;
  vt_lattices *syn = NULL;
  vt_trans *trans = NULL;
  vt_arena *arena = NULL;
  vt_engine *eng = NULL;
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
      vt_cli_bad_option("demo", "h", argv);
      goto done;
    }
  }
  rc = VT_EXIT_FAIL;
  if (vt_lattices_synth(&syn, (int32_t)L, n, 23.0, 1) != VT_OK) goto oom;
  if (vt_lattices_synth_trans(syn, &trans) != VT_OK) goto oom;
  if (vt_arena_create(&arena, 0) != VT_OK) goto oom;
  /* Small batches let a timed run stop close to its budget. */
  vt_engine_opts eo;
  vt_engine_opts_init(&eo);
  eo.threads = (int)threads;
  eo.batch_tokens = 512;
  eo.progress = stop_after;
  eo.progress_ctx = &timer;
  if (vt_engine_create(&eng, &eo) != VT_OK) {
    vt_cli_error("%s", vt_last_error());
    goto done;
  }
  timer.engine = eng;
  timer.seconds = (double)seconds;
  int64_t n_rows = 0;
  for (int64_t s = 0; s < n; s++) {
    int32_t T;
    (void)vt_lattices_rows(syn, s, &T);
    n_rows += T;
  }

  printf("vitesse %s demo: %lld synthetic sentences (seed 1), %lld labels, %lld tokens, "
         "%lld thread(s), SIMD %s\n",
         vt_version(), n, L, (long long)n_rows, threads, vt_simd_name(vt_simd_active()));
  printf("%-20s %4s %10s %14s %12s  %s\n", "algorithm", "k", "sentences", "sentences/s", "x scalar",
         "best score = reference");
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
    vt_run_report rs;
    vt_status st = vt_engine_decode(eng, trans, &opts, syn, NULL, NULL, &rs);
    if (st != VT_OK && st != VT_ECANCELED) {
      vt_cli_error("%s", vt_last_error());
      goto done;
    }
    double sps = rs.wall_seconds > 0 ? (double)rs.decode.sentences / rs.wall_seconds : 0;
    if (opts.algo == VT_ALGO_VITERBI_SCALAR) scalar_sps = sps;
    /* The first 200 sentences, or as many as the timed run got through (slow decoders). */
    int64_t check = n < 200 ? n : 200;
    if (rs.decode.sentences > 0 && rs.decode.sentences < check) check = rs.decode.sentences;
    int64_t agree = demo_agree(trans, &opts, syn, check, arena);
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
  vt_engine_destroy(eng);
  vt_arena_destroy(arena);
  vt_trans_destroy(trans);
  vt_lattices_close(syn);
  return rc;
}
