/* engine/cli/decode_setup.c: the options of `vitesse decode` (decode_setup.h): parsed once here
 * for the `vitesse decode` command and for `vitesse-mpi decode`. */
#include <getopt.h>
#include <string.h>

#include "cli/decode_setup.h"

void vt_cli_decode_usage(FILE *f) {
  fputs(
      "usage: vitesse decode --emissions E.npy --lengths N.npy --transitions A.npy\n"
      "                      [--start S.npy] [--end F.npy] [--rank R.npy]\n"
      "                      [--algo NAME] [-k K] [--beam B] [-o OUT] [engine options]\n"
      "\n"
      "Decodes score lattices: E (sum T, L) float32/float64 emissions of the sentences one after\n"
      "the other, N (S,) int lengths, A (L, L) transitions A[prev][cur], optional S/F (L,) start\n"
      "and end scores, R (L,) the label order by decreasing prior.\n"
      "Output: one line per sentence and path: sentence<TAB>rank<TAB>score<TAB>labels.\n"
      "\n"
      "algorithms (--algo; default: the fastest exact one for L labels and -k, below):\n"
      "  viterbi         exact 1-best, SIMD kernels (VITESSE_SIMD=scalar|avx2|avx512 forces one)\n"
      "  viterbi-scalar  exact 1-best, the plain reference loop\n"
      "  kbest-viterbi   exact k-best (-k K), k best partial paths per node\n"
      "  staggered       exact 1-best: staggered decoding (Kaji et al. 2010) with pruning\n"
      "  staggered-col   exact 1-best: staggered decoding with column-wise expansion\n"
      "  astar           exact k-best A* (--heuristic naive|m0|m3|m6|m9)\n"
      "  iter-astar      exact 1-best iterative A*\n"
      "  viterbi-astar   exact k-best Viterbi A* (Huang et al. 2012, Algorithm 3)\n"
      "  iter-viterbi-astar  exact k-best iterative Viterbi A* (Algorithm 4; --refine)\n"
      "  carpediem       exact 1-best Carpediem (Esposito & Radicioni 2009), the papers'\n"
      "                  baseline: fast when node scores dominate, else slower than viterbi;\n"
      "                  --stats: active_labels_mean = nodes opened per position, cells =\n"
      "                  predecessors visited\n"
      "  beam            APPROXIMATE: beam of B states (--beam, default 1 = greedy); with -k,\n"
      "                  the k best of the final beam. The only decoder that may miss the "
      "optimum.\n"
      "options:\n"
      "  -o OUT          write to OUT atomically (default: stdout; an interrupted or failed\n"
      "                  run leaves OUT untouched)\n" VT_CLI_RESUME_USAGE
      "                  (and --posteriors P the same bytes, P.partial kept beside "
      "it)\n" VT_CLI_PROGRESS_USAGE
      "  --posteriors P.npy  also write every token's label marginals (forward-backward):\n"
      "                  float32 (sum T, L), rows in the order of E; 0 for every label of a\n"
      "                  sentence without a path (written atomically, like -o)\n"
      "  --logz          end each line with <TAB>logZ<TAB>prob: the sentence's log partition\n"
      "                  function and the path's probability exp(score - logZ)\n"
      "  --forbid-transitions FILE  lines \"PREV CUR\" of label indices never to follow each\n"
      "                  other (\"<s> CUR\": never first, \"PREV </s>\": never last); every\n"
      "                  decoder and the posteriors honour them (allowed labels per token: set\n"
      "                  their emissions to -inf in E)\n"
      "  --labels FILE   print label names instead of numbers: FILE has one name per line,\n"
      "                  label 0 first (the labels.txt that vitesse lattice writes)\n",
      f);
  fputs(vt_cli_decoder_usage, f);
  fputs(vt_cli_engine_usage, f);
}

enum { OPT_E = 256, OPT_N, OPT_A, OPT_S, OPT_F, OPT_R, OPT_POST, OPT_LOGZ, OPT_FORBID, OPT_LABELS };

void vt_cli_decode_init(vt_cli_decode *d) {
  memset(d, 0, sizeof *d);
  vt_conf_opts_init(&d->conf);
  vt_cli_decoder_init(&d->dec);
  vt_cli_engine_init(&d->run);
}

int vt_cli_decode_setup(vt_cli_decode *d, int argc, char **argv) {
  static const struct option longopts[] = {{"emissions", required_argument, 0, OPT_E},
                                           {"lengths", required_argument, 0, OPT_N},
                                           {"transitions", required_argument, 0, OPT_A},
                                           {"start", required_argument, 0, OPT_S},
                                           {"end", required_argument, 0, OPT_F},
                                           {"rank", required_argument, 0, OPT_R},
                                           {"posteriors", required_argument, 0, OPT_POST},
                                           {"logz", no_argument, 0, OPT_LOGZ},
                                           {"forbid-transitions", required_argument, 0, OPT_FORBID},
                                           {"labels", required_argument, 0, OPT_LABELS},
                                           VT_CLI_DECODER_LONGOPTS,
                                           VT_CLI_ENGINE_LONGOPTS,
                                           VT_CLI_RESUME_LONGOPT,
                                           VT_CLI_PROGRESS_LONGOPT,
                                           {"output", required_argument, 0, 'o'},
                                           {"help", no_argument, 0, 'h'},
                                           {0, 0, 0, 0}};
  const char **path = d->in_path; /* E N A S F R */
  int rc = VT_EXIT_USAGE;

  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, "k:o:h", longopts, NULL)) != -1) {
    int eo = vt_cli_engine_opt(&d->run, c, optarg);
    if (eo == 0) eo = vt_cli_decoder_opt(&d->dec, c, optarg);
    if (eo < 0) goto done;
    if (eo > 0) continue;
    switch (c) {
    case OPT_E:
    case OPT_N:
    case OPT_A:
    case OPT_S:
    case OPT_F:
    case OPT_R: path[c - OPT_E] = optarg; break;
    case 'o': d->out_path = optarg; break;
    case OPT_POST: d->post_path = optarg; break;
    case OPT_LOGZ: d->conf.logz = 1; break;
    case OPT_FORBID: d->forbid_path = optarg; break;
    case OPT_LABELS: d->labels_path = optarg; break;
    case 'h':
      vt_cli_decode_usage(stdout);
      rc = VT_EXIT_OK;
      goto done;
    default: vt_cli_bad_option("decode", "k:o:h", argv); goto done;
    }
  }
  if (optind < argc) {
    vt_cli_error("decode: unexpected argument '%s'", argv[optind]);
    goto done;
  }
  if (!path[0] || !path[1] || !path[2]) {
    vt_cli_error("decode: --emissions, --lengths and --transitions are required "
                 "(see vitesse decode --help)");
    goto done;
  }
  if (vt_cli_decoder_resolve(&d->dec, 0, &d->opts)) goto done;

  if (vt_lattices_open(&d->lat, path[0], path[1]) != VT_OK ||
      vt_trans_load(&d->trans, path[2], path[3], path[4], path[5], d->lat) != VT_OK ||
      (d->forbid_path && vt_trans_forbid_file(d->trans, d->forbid_path) != VT_OK)) {
    vt_cli_error("%s", vt_last_error());
    goto done;
  }
  if (!d->dec.algo) /* L's default */
    vt_cli_decoder_resolve(&d->dec, vt_lattices_labels(d->lat), &d->opts);
  if (d->labels_path && vt_cli_names_load(&d->names, d->labels_path, vt_lattices_labels(d->lat)))
    goto done;
  if (d->post_path && d->post_path[0] == '-' && d->post_path[1] == '\0') {
    vt_cli_error("decode: --posteriors needs a file (binary .npy), not stdout");
    goto done;
  }
  rc = -1;
done:
  return rc;
}

void vt_cli_decode_stats(const vt_cli_decode *d, const vt_run_report *rs, FILE *f) {
  double sps = rs->wall_seconds > 0 ? (double)rs->decode.sentences / rs->wall_seconds : 0;
  double nsent = (double)rs->decode.sentences;
  fprintf(f,
          "{\"algo\": \"%s\", \"simd\": \"%s\", \"k\": %lld, "
          "\"beam\": %lld, \"sentences\": %lld, \"tokens\": %lld, \"labels\": %d, "
          "\"cells\": %lld, \"decode_seconds\": %.6f, \"sentences_per_second\": %.1f, "
          "\"iterations_mean\": %.3f, \"active_labels_mean\": %.3f, "
          "\"pruned_fraction\": %.4f, \"pops_mean\": %.1f, \"fallbacks\": %lld, "
          "\"logz\": %s, \"posteriors\": %s, \"budget_fallbacks\": %lld, "
          "\"sparse_sentences\": %lld, ",
          vt_algo_name(d->opts.algo), vt_simd_name(vt_simd_active()), d->dec.k, d->dec.beam,
          (long long)rs->decode.sentences, (long long)rs->decode.tokens, vt_lattices_labels(d->lat),
          (long long)rs->decode.cells, rs->wall_seconds, sps,
          nsent ? (double)rs->decode.iterations / nsent : 0.0,
          rs->decode.tokens ? (double)rs->decode.active_labels / (double)rs->decode.tokens : 0.0,
          rs->decode.nodes ? (double)rs->decode.pruned / (double)rs->decode.nodes : 0.0,
          nsent ? (double)rs->decode.pops / nsent : 0.0, (long long)rs->decode.fallbacks,
          d->conf.logz ? "true" : "false", d->post_path ? "true" : "false",
          (long long)rs->decode.budget_fallbacks, (long long)rs->decode.sparse);
}

void vt_cli_decode_free(vt_cli_decode *d) {
  vt_trans_destroy(d->trans);
  vt_lattices_close(d->lat);
  vt_cli_names_free(&d->names);
  d->trans = NULL;
  d->lat = NULL;
}
