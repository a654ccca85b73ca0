/* engine/cli/cmd_decode.c: `vitesse decode`, score lattices from .npy files to paths. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "decoder_cli.h"
#include "engine_cli.h"
#include "lattice_file.h"
#include "outfile.h"
#include "run.h"

static void decode_usage(FILE *f) {
  fputs(
      "usage: vitesse decode --emissions E.npy --lengths N.npy --transitions A.npy\n"
      "                      [--start S.npy] [--end F.npy] [--rank R.npy]\n"
      "                      --algo NAME [-k K] [--beam B] [-o OUT] [engine options]\n"
      "\n"
      "Decodes score lattices: E (sum T, L) float32/float64 emissions of the sentences one after\n"
      "the other, N (S,) int lengths, A (L, L) transitions A[prev][cur], optional S/F (L,) start\n"
      "and end scores, R (L,) the label order by decreasing prior.\n"
      "Output: one line per sentence and path: sentence<TAB>rank<TAB>score<TAB>labels.\n"
      "\n"
      "algorithms:\n"
      "  viterbi         exact 1-best, SIMD kernels (VITESSE_SIMD=scalar|avx2|avx512 forces one)\n"
      "  viterbi-scalar  exact 1-best, the plain reference loop\n"
      "  kbest-viterbi   exact k-best (-k K), k best partial paths per node\n"
      "  staggered       exact 1-best: staggered decoding (Kaji et al. 2010) with pruning\n"
      "  staggered-col   exact 1-best: staggered decoding with column-wise expansion\n"
      "  astar           exact k-best A* (--heuristic naive|m0|m3|m6|m9)\n"
      "  iter-astar      exact 1-best iterative A*\n"
      "  viterbi-astar   exact k-best Viterbi A* (Huang et al. 2012, Algorithm 3)\n"
      "  iter-viterbi-astar  exact k-best iterative Viterbi A* (Algorithm 4; --refine)\n"
      "  beam            APPROXIMATE: beam of B states (--beam, default 1 = greedy); with -k,\n"
      "                  the k best of the final beam. The only decoder that may miss the optimum.\n"
      "options:\n"
      "  -o OUT          write to OUT atomically (default: stdout; an interrupted or failed\n"
      "                  run leaves OUT untouched)\n",
      f);
  fputs(vt_cli_decoder_usage, f);
  fputs(vt_cli_engine_usage, f);
}

enum { OPT_E = 256, OPT_N, OPT_A, OPT_S, OPT_F, OPT_R };

/* No --rank: orders labels by how often each is a column's emission argmax in this input, and
 * releases E's pages behind the pass (as the loader's scan does) so a large E is not left
 * resident. Returns a malloc'd rank array, or NULL (out of memory: identity order). */
static int32_t *rank_from_argmax(const vt_lattice_file *lf) {
  int32_t *rank = malloc((size_t)lf->L * sizeof *rank);
  int64_t *count = calloc((size_t)lf->L, sizeof *count);
  if (!rank || !count) goto fail;
  for (int64_t row = 0, done = 0; row < lf->n_rows; row++) {
    int32_t arg = 0;
    for (int32_t y = 1; y < lf->L; y++)
      if (vt_npy_get_f(&lf->E, row * lf->L + y) > vt_npy_get_f(&lf->E, row * lf->L + arg)) arg = y;
    count[arg]++;
    if ((row + 1) * lf->L - done >= ((int64_t)1 << 20) || row + 1 == lf->n_rows) {
      vt_npy_release(&lf->E, done, (row + 1) * lf->L - done);
      done = (row + 1) * lf->L;
    }
  }
  if (vt_rank_from_counts(count, lf->L, rank) != VT_OK) goto fail;
  free(count);
  return rank;
fail:
  free(rank);
  free(count);
  return NULL;
}

int vt_cmd_decode(int argc, char **argv) {
  static const struct option longopts[] = {
      {"emissions", required_argument, 0, OPT_E}, {"lengths", required_argument, 0, OPT_N},
      {"transitions", required_argument, 0, OPT_A}, {"start", required_argument, 0, OPT_S},
      {"end", required_argument, 0, OPT_F},       {"rank", required_argument, 0, OPT_R},
      VT_CLI_DECODER_LONGOPTS,                    VT_CLI_ENGINE_LONGOPTS,
      {"output", required_argument, 0, 'o'},      {"help", no_argument, 0, 'h'},
      {0, 0, 0, 0}};
  const char *path[6] = {0}; /* E N A S F R */
  const char *out_path = NULL;
  vt_cli_decoder dec;
  vt_cli_decoder_init(&dec);
  int rc = VT_EXIT_USAGE;
  vt_cli_batch run;
  vt_cli_batch_init(&run);
  vt_lattice_file lf;
  memset(&lf, 0, sizeof lf);
  vt_trans *trans = NULL;
  vt_outfile of;
  memset(&of, 0, sizeof of);
  int of_open = 0;
  char err[512];

  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, "k:o:h", longopts, NULL)) != -1) {
    int eo = vt_cli_engine_opt(&run.eng, c, optarg);
    if (eo == 0) eo = vt_cli_decoder_opt(&dec, c, optarg);
    if (eo < 0) goto done;
    if (eo > 0) continue;
    switch (c) {
    case OPT_E: case OPT_N: case OPT_A: case OPT_S: case OPT_F: case OPT_R:
      path[c - OPT_E] = optarg;
      break;
    case 'o': out_path = optarg; break;
    case 'h': decode_usage(stdout); rc = VT_EXIT_OK; goto done;
    default: decode_usage(stderr); goto done;
    }
  }
  if (optind < argc) {
    vt_cli_error("decode: unexpected argument '%s'", argv[optind]);
    goto done;
  }
  if (!path[0] || !path[1] || !path[2] || !dec.algo) {
    vt_cli_error("decode: --emissions, --lengths, --transitions and --algo are required "
                 "(see vitesse decode --help)");
    goto done;
  }
  vt_decode_opts opts;
  if (vt_cli_decoder_resolve(&dec, VT_ALGO_VITERBI, &opts)) goto done;

  int st = vt_lattice_file_load(&lf, path[0], path[1], path[2], path[3], path[4], path[5], err,
                                sizeof err);
  if (st != VT_OK) {
    vt_cli_error("%s", err);
    goto done;
  }
  if (!lf.R) lf.R = rank_from_argmax(&lf);
  st = vt_trans_create(&trans, lf.L, lf.A, lf.S, lf.F, lf.R);
  if (st != VT_OK) {
    vt_cli_error("%s: %s", path[2], vt_strerror(st));
    goto done;
  }
  if (vt_cli_engine_plan(&run.eng, &run.topo, &run.plan) != 0) goto done;
  vt_cli_signals_install(); /* before the temp file exists: a ^C now still cleans up */
  if (vt_outfile_open(&of, out_path, err, sizeof err) != VT_OK) {
    vt_cli_error("%s", err);
    goto done;
  }
  of_open = 1;
  vt_cli_source src = {lf.n_sent, lf.offset, lf.E.data, lf.E.dtype == VT_NPY_F64, lf.L, &lf.E};
  vt_cli_run_stats rs;
  int werr = 0;
  rc = VT_EXIT_FAIL;
  st = vt_cli_decode_run(&run.eng, &run.topo, &run.plan, trans, &opts, &src, of.fp, 0,
                         &vt_cli_stop, &rs, &run.ss, &werr);
  int end = vt_cli_output_end(&st, werr, !of.tmp, out_path);
  if (end >= 0) {
    rc = end;
    goto done;
  }
  if (st == VT_ECANCELED) {
    int sig = atomic_load(&vt_cli_stop);
    if (of.tmp)
      vt_cli_error("interrupted by %s: %lld of %lld sentences were decoded in order; %s was "
                   "not written", sig == SIGTERM ? "SIGTERM" : "SIGINT",
                   (long long)rs.sentences_done, (long long)lf.n_sent, out_path);
    else
      vt_cli_error("interrupted by %s: the first %lld of %lld sentences were written",
                   sig == SIGTERM ? "SIGTERM" : "SIGINT", (long long)rs.sentences_done,
                   (long long)lf.n_sent);
    rc = 128 + (sig ? sig : SIGINT);
    goto done;
  }
  if (st != VT_OK) goto done;
  if (vt_outfile_commit(&of, err, sizeof err) != VT_OK) {
    vt_cli_error("%s", err);
    goto done;
  }
  of_open = 0;
  if (run.eng.stats) {
    double sps = rs.decode_seconds > 0 ? (double)rs.decode.sentences / rs.decode_seconds : 0;
    double nsent = (double)rs.decode.sentences;
    fprintf(stderr,
            "{\"algo\": \"%s\", \"simd\": \"%s\", \"k\": %lld, "
            "\"beam\": %lld, \"sentences\": %lld, \"tokens\": %lld, \"labels\": %d, "
            "\"cells\": %lld, \"decode_seconds\": %.6f, \"sentences_per_second\": %.1f, "
            "\"iterations_mean\": %.3f, \"active_labels_mean\": %.3f, "
            "\"pruned_fraction\": %.4f, \"pops_mean\": %.1f, \"fallbacks\": %lld, ",
            dec.algo, vt_simd_name(vt_simd_active()), dec.k, dec.beam,
            (long long)rs.decode.sentences, (long long)rs.decode.tokens, lf.L,
            (long long)rs.decode.cells, rs.decode_seconds, sps,
            nsent ? (double)rs.decode.iterations / nsent : 0.0,
            rs.decode.tokens ? (double)rs.decode.active_labels / (double)rs.decode.tokens : 0.0,
            rs.decode.nodes ? (double)rs.decode.pruned / (double)rs.decode.nodes : 0.0,
            nsent ? (double)rs.decode.pops / nsent : 0.0, (long long)rs.decode.fallbacks);
    vt_cli_engine_stats_json(stderr, &run.eng, &run.plan, &run.ss);
    fputs("}\n", stderr);
  }
  rc = VT_EXIT_OK;
done:
  if (of_open) vt_outfile_abort(&of);
  vt_cli_batch_free(&run);
  vt_trans_destroy(trans);
  vt_lattice_file_free(&lf);
  return rc;
}
