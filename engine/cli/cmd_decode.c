/* engine/cli/cmd_decode.c: `vitesse decode`, score lattices from .npy files to paths. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "decoder_cli.h"
#include "engine_cli.h"
#include "label_names.h"

static void decode_usage(FILE *f) {
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
      "                  predecessors scanned\n"
      "  beam            APPROXIMATE: beam of B states (--beam, default 1 = greedy); with -k,\n"
      "                  the k best of the final beam. The only decoder that may miss the "
      "optimum.\n"
      "options:\n"
      "  -o OUT          write to OUT atomically (default: stdout; an interrupted or failed\n"
      "                  run leaves OUT untouched)\n"
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

int vt_cmd_decode(int argc, char **argv) {
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
                                           {"output", required_argument, 0, 'o'},
                                           {"help", no_argument, 0, 'h'},
                                           {0, 0, 0, 0}};
  const char *path[6] = {0}; /* E N A S F R */
  const char *out_path = NULL, *post_path = NULL, *forbid_path = NULL;
  vt_conf_opts conf;
  vt_conf_opts_init(&conf);
  const char *labels_path = NULL;
  vt_cli_names names;
  memset(&names, 0, sizeof names);
  vt_cli_decoder dec;
  vt_cli_decoder_init(&dec);
  int rc = VT_EXIT_USAGE;
  vt_cli_engine run;
  vt_cli_engine_init(&run);
  vt_engine *eng = NULL;
  vt_lattices *lat = NULL;
  vt_trans *trans = NULL;
  vt_output *of = NULL, *pf = NULL;

  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, "k:o:h", longopts, NULL)) != -1) {
    int eo = vt_cli_engine_opt(&run, c, optarg);
    if (eo == 0) eo = vt_cli_decoder_opt(&dec, c, optarg);
    if (eo < 0) goto done;
    if (eo > 0) continue;
    switch (c) {
    case OPT_E:
    case OPT_N:
    case OPT_A:
    case OPT_S:
    case OPT_F:
    case OPT_R: path[c - OPT_E] = optarg; break;
    case 'o': out_path = optarg; break;
    case OPT_POST: post_path = optarg; break;
    case OPT_LOGZ: conf.logz = 1; break;
    case OPT_FORBID: forbid_path = optarg; break;
    case OPT_LABELS: labels_path = optarg; break;
    case 'h':
      decode_usage(stdout);
      rc = VT_EXIT_OK;
      goto done;
    default: decode_usage(stderr); goto done;
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
  vt_decode_opts opts;
  if (vt_cli_decoder_resolve(&dec, 0, &opts)) goto done;

  if (vt_lattices_open(&lat, path[0], path[1]) != VT_OK ||
      vt_trans_load(&trans, path[2], path[3], path[4], path[5], lat) != VT_OK ||
      (forbid_path && vt_trans_forbid_file(trans, forbid_path) != VT_OK)) {
    vt_cli_error("%s", vt_last_error());
    goto done;
  }
  if (!dec.algo) vt_cli_decoder_resolve(&dec, vt_lattices_labels(lat), &opts); /* L's default */
  if (labels_path && vt_cli_names_load(&names, labels_path, vt_lattices_labels(lat))) goto done;
  const int64_t n_sent = vt_lattices_sentences(lat);
  if (vt_cli_engine_start(&run, n_sent, &eng) != 0) goto done;
  /* The signal handlers are in place before the temp file exists: a ^C now still cleans up. */
  if (vt_output_open(&of, out_path) != VT_OK) {
    vt_cli_error("%s", vt_last_error());
    goto done;
  }
  vt_cli_signals_temp(vt_output_temp_path(of)); /* a second ^C removes it */
  if (post_path) {
    if (post_path[0] == '-' && post_path[1] == '\0') {
      vt_cli_error("decode: --posteriors needs a file (binary .npy), not stdout");
      goto done;
    }
    if (vt_output_open(&pf, post_path) != VT_OK) {
      vt_cli_error("%s", vt_last_error());
      goto done;
    }
    vt_cli_signals_temp_extra(vt_output_temp_path(pf)); /* a second ^C removes it too */
    conf.post_sink = vt_sink_file;
    conf.post_ctx = vt_output_file(pf);
  }
  vt_run_report rs;
  rc = VT_EXIT_FAIL;
  names.sink = vt_sink_file;
  names.sink_ctx = vt_output_file(of);
  vt_status st =
      labels_path
          ? vt_engine_decode_conf(eng, trans, &opts, &conf, lat, vt_cli_names_sink, &names, &rs)
          : vt_engine_decode_conf(eng, trans, &opts, &conf, lat, vt_sink_file, names.sink_ctx, &rs);
  int end = vt_cli_output_end(&st, rs.write_errno, !vt_output_is_atomic(of), out_path);
  if (end >= 0) {
    rc = end;
    goto done;
  }
  if (st == VT_ECANCELED) {
    int sig = atomic_load(&vt_cli_stop);
    if (vt_output_is_atomic(of))
      vt_cli_error("interrupted by %s: %lld of %lld sentences were decoded in order; %s was "
                   "not written",
                   sig == SIGTERM ? "SIGTERM" : "SIGINT", (long long)rs.sentences,
                   (long long)n_sent, out_path);
    else
      vt_cli_error("interrupted by %s: the first %lld of %lld sentences were written",
                   sig == SIGTERM ? "SIGTERM" : "SIGINT", (long long)rs.sentences,
                   (long long)n_sent);
    rc = 128 + (sig ? sig : SIGINT);
    goto done;
  }
  if (st != VT_OK) {
    vt_cli_error("%s", vt_last_error());
    goto done;
  }
  vt_cli_signals_temp(NULL);
  if (pf) {
    st = vt_output_commit(pf);
    pf = NULL;
    if (st != VT_OK) {
      vt_cli_error("%s", vt_last_error());
      goto done;
    }
  }
  st = vt_output_commit(of);
  of = NULL;
  if (st != VT_OK) {
    vt_cli_error("%s", vt_last_error());
    goto done;
  }
  if (run.stats) {
    double sps = rs.wall_seconds > 0 ? (double)rs.decode.sentences / rs.wall_seconds : 0;
    double nsent = (double)rs.decode.sentences;
    fprintf(stderr,
            "{\"algo\": \"%s\", \"simd\": \"%s\", \"k\": %lld, "
            "\"beam\": %lld, \"sentences\": %lld, \"tokens\": %lld, \"labels\": %d, "
            "\"cells\": %lld, \"decode_seconds\": %.6f, \"sentences_per_second\": %.1f, "
            "\"iterations_mean\": %.3f, \"active_labels_mean\": %.3f, "
            "\"pruned_fraction\": %.4f, \"pops_mean\": %.1f, \"fallbacks\": %lld, "
            "\"logz\": %s, \"posteriors\": %s, \"budget_fallbacks\": %lld, "
            "\"sparse_sentences\": %lld, ",
            vt_algo_name(opts.algo), vt_simd_name(vt_simd_active()), dec.k, dec.beam,
            (long long)rs.decode.sentences, (long long)rs.decode.tokens, vt_lattices_labels(lat),
            (long long)rs.decode.cells, rs.wall_seconds, sps,
            nsent ? (double)rs.decode.iterations / nsent : 0.0,
            rs.decode.tokens ? (double)rs.decode.active_labels / (double)rs.decode.tokens : 0.0,
            rs.decode.nodes ? (double)rs.decode.pruned / (double)rs.decode.nodes : 0.0,
            nsent ? (double)rs.decode.pops / nsent : 0.0, (long long)rs.decode.fallbacks,
            conf.logz ? "true" : "false", post_path ? "true" : "false",
            (long long)rs.decode.budget_fallbacks, (long long)rs.decode.sparse);
    vt_engine_stats_json(eng, stderr);
    fputs("}\n", stderr);
  }
  rc = VT_EXIT_OK;
done:
  vt_cli_signals_temp(NULL);
  vt_output_abort(pf);
  vt_output_abort(of);
  vt_cli_engine_stop(eng);
  vt_trans_destroy(trans);
  vt_lattices_close(lat);
  vt_cli_names_free(&names);
  return rc;
}
