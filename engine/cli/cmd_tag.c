/* engine/cli/cmd_tag.c: `vitesse tag`, a column corpus in, the same lines with the predicted
 * label appended out.
 *
 * The corpus runs through the engine (engine/cli/tag_engine.c): the reader cuts batches of
 * whole sentences, workers tag them with vt_text_tag_batch, the writer writes them in input
 * order: the output is the same bytes for any thread count and batch size. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "chunk_cli.h"
#include "cli.h"
#include "decoder_cli.h"
#include "engine_cli.h"
#include "model_file.h"
#include "outfile.h"
#include "tag_engine.h"
#include "tagger.h"
#include "text_cli.h"

static void tag_usage(FILE *f) {
  fputs("usage: vitesse tag -m MODEL [--algo A] [decoder options] [engine options]\n"
        "                   [corpus options] [FILE...] [-o OUT]\n"
        "\n"
        "Tags column corpora (files, .gz, or standard input when no FILE or -): prints every\n"
        "input line, token lines followed by the predicted label as a last column, and a blank\n"
        "line after each sentence. With -k K, each sentence is printed once per path (K best),\n"
        "after a line \"# RANK SCORE\". Output order is input order, the same bytes for any\n"
        "--threads.\n"
        "options:\n"
        "  -m MODEL        model written by vitesse train\n"
        "  --algo A        any decoder of vitesse decode (see vitesse decode --help; default:\n"
        "                  staggered-col when this build has it, else viterbi; kbest-viterbi\n"
        "                  with -k > 1)\n"
        "  -o OUT          write to OUT atomically (default: stdout)\n",
        f);
  fputs(vt_cli_decoder_usage, f);
  fputs("The corpus options default to those the model was trained with. A joint POS + chunk\n"
        "model (vitesse train --joint-chunk) is tagged as vitesse chunk-tag does.\n",
        f);
  fputs(VT_CORPUS_HELP, f);
  fputs(vt_cli_engine_usage, f);
}

/* CPU time of the whole process (all threads), in seconds. */
static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int vt_cmd_tag(int argc, char **argv) {
  if (vt_chunk_cli_joint_model(argc, argv)) return vt_cmd_chunk_tag(argc, argv);
  static const struct option longopts[] = {{"model", required_argument, 0, 'm'},
                                           VT_CLI_DECODER_LONGOPTS,
                                           VT_CLI_ENGINE_LONGOPTS,
                                           {"output", required_argument, 0, 'o'},
                                           {"help", no_argument, 0, 'h'},
                                           VT_CORPUS_LONGOPTS,
                                           {0, 0, 0, 0}};
  const char *model_path = NULL, *out_path = NULL;
  vt_cli_decoder dec;
  vt_cli_decoder_init(&dec);
  int rc = VT_EXIT_USAGE, of_open = 0;
  vt_cli_batch run;
  vt_cli_batch_init(&run);
  vt_conll_opts ro;
  memset(&ro, 0, sizeof ro);
  vt_cli_reader reader;
  vt_cli_reader_init(&reader);
  vt_textmodel *m = NULL;
  vt_outfile of;
  memset(&of, 0, sizeof of);
  char err[512];

  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, "m:k:o:h", longopts, NULL)) != -1) {
    int eo = vt_cli_engine_opt(&run.eng, c, optarg);
    if (eo == 0) eo = vt_cli_decoder_opt(&dec, c, optarg);
    if (eo < 0) goto done;
    if (eo > 0) continue;
    int h = vt_cli_reader_opt(&reader, c, optarg);
    if (h < 0) goto done;
    if (h > 0) continue;
    switch (c) {
    case 'm': model_path = optarg; break;
    case 'o': out_path = optarg; break;
    case 'h':
      tag_usage(stdout);
      rc = VT_EXIT_OK;
      goto done;
    default: tag_usage(stderr); goto done;
    }
  }
  if (!model_path) {
    vt_cli_error("tag: -m MODEL is required (see vitesse tag --help)");
    goto done;
  }
  vt_decode_opts opts;
  if (vt_cli_decoder_resolve(&dec, vt_cli_default_algo(), &opts)) goto done;

  int st = vt_textmodel_load(&m, model_path, err, sizeof err);
  if (st != VT_OK) {
    vt_cli_error("%s", err);
    rc = st == VT_ENOMEM ? VT_EXIT_FAIL : VT_EXIT_USAGE;
    goto done;
  }
  if (m->obs_bigram && !dec.algo && opts.algo != VT_ALGO_KBEST_VITERBI) opts.algo = VT_ALGO_VITERBI;
  if (m->obs_bigram && !vt_obs_algo_supported(opts.algo)) {
    vt_cli_error("--algo %s: this model has observation-dependent bigram templates; use "
                 "viterbi, viterbi-scalar, kbest-viterbi or beam",
                 vt_algo_name(opts.algo));
    goto done;
  }
  vt_cli_reader_for_model(&reader, m->meta.reader, &ro);

  rc = VT_EXIT_FAIL;
  if (vt_cli_engine_plan(&run.eng, &run.topo, &run.plan) != 0) {
    rc = VT_EXIT_USAGE;
    goto done;
  }
  vt_cli_signals_install();
  if (vt_outfile_open(&of, out_path, err, sizeof err) != VT_OK) {
    vt_cli_error("%s", err);
    goto done;
  }
  of_open = 1;
  double t0 = vt_cli_now(), c0 = cpu_now();
  vt_cli_tag_totals tot;
  int werr = 0;
  st = vt_cli_tag_run(&run.eng, &run.topo, &run.plan, m, &opts, &ro, argv + optind, argc - optind,
                      of.fp, &vt_cli_stop, &tot, &run.ss, &werr, err, sizeof err);
  int end = vt_cli_output_end(&st, werr, !of.tmp, out_path);
  if (end >= 0) {
    rc = end;
    goto done;
  }
  if (st == VT_ECANCELED) {
    int sig = atomic_load(&vt_cli_stop);
    vt_cli_error("interrupted by %s: %lld sentences were tagged in order%s%s%s",
                 sig == SIGTERM ? "SIGTERM" : "SIGINT", (long long)tot.sentences,
                 of.tmp ? "; " : " and written", of.tmp ? out_path : "",
                 of.tmp ? " was not written" : "");
    rc = 128 + (sig ? sig : SIGINT);
    goto done;
  }
  if (st != VT_OK) {
    vt_cli_error("%s", err);
    rc = st == VT_EFORMAT || st == VT_EUNSUPPORTED || st == VT_EIO ? VT_EXIT_USAGE : VT_EXIT_FAIL;
    goto done;
  }
  if (vt_outfile_commit(&of, err, sizeof err) != VT_OK) {
    vt_cli_error("%s", err);
    rc = VT_EXIT_FAIL;
    goto done;
  }
  of_open = 0;
  double secs = vt_cli_now() - t0, cpu = cpu_now() - c0;
  if (run.eng.stats) {
    double ns = (double)tot.sentences;
    fprintf(stderr,
            "{\"algo\": \"%s\", \"simd\": \"%s\", \"k\": %lld, \"beam\": %lld, "
            "\"labels\": %d, \"sentences\": %lld, \"tokens\": %lld, \"seconds\": %.6f, "
            "\"setup_seconds\": %.6f, \"cpu_seconds\": %.6f, "
            "\"sentences_per_second\": %.1f, \"feature_seconds\": %.6f, "
            "\"decode_seconds\": %.6f, \"decode_sentences_per_second\": %.1f, "
            "\"unknown_feature_fraction\": %.4f, \"row_cache_hit_fraction\": %.4f, ",
            vt_algo_name(opts.algo), vt_simd_name(vt_simd_active()), dec.k, dec.beam, m->L,
            (long long)tot.sentences, (long long)tot.tokens, secs,
            secs > run.ss.wall_seconds ? secs - run.ss.wall_seconds : 0.0, cpu,
            run.ss.wall_seconds > 0 ? ns / run.ss.wall_seconds : 0.0, tot.tag.feature_seconds,
            tot.tag.decode_seconds, tot.tag.decode_seconds > 0 ? ns / tot.tag.decode_seconds : 0.0,
            tot.tag.lookups ? (double)tot.tag.unknown_features / (double)tot.tag.lookups : 0.0,
            tot.tokens ? (double)tot.tag.cache_hits / (double)tot.tokens : 0.0);
    vt_cli_engine_stats_json(stderr, &run.eng, &run.plan, &run.ss);
    fputs("}\n", stderr);
  }
  rc = VT_EXIT_OK;
done:
  if (of_open) vt_outfile_abort(&of);
  vt_cli_batch_free(&run);
  vt_textmodel_free(m);
  return rc;
}
