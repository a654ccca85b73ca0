/* engine/cli/cmd_chunk_train.c: `vitesse chunk-train` (= `vitesse train --joint-chunk`), the
 * joint POS + chunk model of Shimizu & Haas (2006) trained by the averaged voted perceptron or
 * its max-margin update: parses the options, calls vt_train_joint and prints its progress. */
#include <string.h>

#include "cli/chunk_cli.h"
#include "cli/cli.h"
#include "cli/text_cli.h"
#include "vitesse.h"

static void usage(FILE *f) {
  fputs(
      "usage: vitesse chunk-train --train FILE [--test FILE] [--sentences N] [--epochs N]\n"
      "         [--update vp|mmvp] [--collapse none|paper] [--chunk-types NP,..|all]\n"
      "         [--features all|observed] [--max-chunk L] [--lex-warmup N] [--word-col C]\n"
      "         [--pos-col C] [--chunk-col C] [--seed S] [--shards S] [--threads N] [--quiet]\n"
      "         [corpus options] -o MODEL\n"
      "   (or: vitesse train --joint-chunk ...)\n"
      "\n"
      "Trains a joint POS-tagging and chunking model (Shimizu & Haas 2006: one exact decoder\n"
      "over label-chunk structures) from a column corpus such as CoNLL-2000 (word POS chunk),\n"
      "with the voted perceptron (averaged weights, Collins 2002).\n"
      "options:\n"
      "  --train FILE      training corpus (plain, .gz or - for stdin)\n"
      "  --test FILE       corpus evaluated after every epoch: POS accuracy, chunk-tag accuracy\n"
      "                    and chunk F1 (conlleval)\n"
      "  --sentences N     train on the first N sentences only (default: all)\n"
      "  --epochs N        passes over the training corpus (default 10)\n"
      "  --update U        vp: the perceptron update (Algorithm 4.2, default); mmvp: the\n"
      "                    max-margin update (Algorithm 4.3)\n"
      "  --collapse M      none (default) or paper: POS tags collapsed to NOUN VERB JADJ RBP\n"
      "                    OTHER (Table 3: NN* VB* JJ* RB* and the rest)\n"
      "  --chunk-types T   chunk types forming chunks, comma-separated (default NP); all = every\n"
      "                    type in the training corpus; other labels are outside (O)\n"
      "  --features F      all (default): every output for each observation seen in training\n"
      "                    (parts of at most 256 outputs); observed: only pairs in gold parts\n"
      "  --max-chunk L     longest chunk the decoder considers (default 0: no bound); longer\n"
      "                    gold chunks and O runs are cut; tag uses the same bound by default\n"
      "  --lex-warmup N    epochs that update only unlexicalized features (default 1)\n"
      "  --word-col C, --pos-col C, --chunk-col C   columns (defaults 0, 1, last)\n"
      "  --seed S          shuffle the sentences before every epoch, seeded with S (default 0:\n"
      "                    corpus order, as the paper)\n"
      "  --shards S        train on S shards at once (iterative parameter mixing, McDonald et\n"
      "                    al. 2010): every epoch deals the sentences to S shards that train\n"
      "                    in parallel from the same weights, then averages their weights; the\n"
      "                    model depends on S and --seed, never on --threads. 1 (default): the\n"
      "                    sequential perceptron. Memory: 3 doubles a weight per shard\n"
      "  --threads N       threads for the shards (at most S; default: one per core)\n"
      "  --quiet           no per-epoch lines\n"
      "  -o MODEL          the model file to write (atomically)\n",
      f);
  fputs(VT_CORPUS_HELP, f);
}

enum {
  OPT_TRAIN = 256,
  OPT_TEST,
  OPT_SENTENCES,
  OPT_EPOCHS,
  OPT_UPDATE,
  OPT_COLLAPSE,
  OPT_TYPES,
  OPT_FEATURES,
  OPT_MAXCHUNK,
  OPT_WARMUP,
  OPT_WORDCOL,
  OPT_POSCOL,
  OPT_CHUNKCOL,
  OPT_QUIET,
  OPT_JOINT,
  OPT_SEED,
  OPT_SHARDS,
  OPT_THREADS
};

/* One line per epoch (with the test corpus's figures when it was given). */
static int on_epoch(void *vctx, const vt_epoch_report *r) {
  (void)vctx;
  fprintf(stderr, "epoch %d: %lld/%lld sentences wrong, %lld updates, %.2f s (total %.2f s)",
          r->epoch, (long long)r->mistakes, (long long)r->sentences, (long long)r->updates,
          r->seconds, r->total_seconds);
  if (r->dev_f1 >= 0)
    fprintf(stderr, "; test POS %.2f%% chunk-tags %.2f%% F1 %.2f (%.0f sentences/s)", r->dev_pos,
            r->dev_chunk_tags, r->dev_f1,
            r->dev_seconds > 0 ? (double)r->dev_sentences / r->dev_seconds : 0.0);
  fputc('\n', stderr);
  return 0;
}

/* The corpus line, before the first epoch. */
static void on_start(void *vctx, const vt_train_report *r) {
  (void)vctx;
  fprintf(stderr,
          "chunk-train: %lld sentences, %lld tokens, %d POS tags, %d chunk tags, "
          "%lld weights%s\n",
          (long long)r->sentences, (long long)r->tokens, r->labels, r->chunk_labels,
          (long long)r->features, r->chunks_cut ? " (some gold chunks cut by --max-chunk)" : "");
}

static int parse_col(const char *opt, const char *arg, int32_t *col) {
  if (vt_cli_parse_col(arg, col) == 0) return 0;
  vt_cli_error("%s: expected a 0-based column, last or a CoNLL-U name, got '%s'", opt, arg);
  return -1;
}

int vt_cmd_chunk_train(int argc, char **argv) {
  static const struct option longopts[] = {{"train", required_argument, 0, OPT_TRAIN},
                                           {"test", required_argument, 0, OPT_TEST},
                                           {"sentences", required_argument, 0, OPT_SENTENCES},
                                           {"epochs", required_argument, 0, OPT_EPOCHS},
                                           {"update", required_argument, 0, OPT_UPDATE},
                                           {"collapse", required_argument, 0, OPT_COLLAPSE},
                                           {"chunk-types", required_argument, 0, OPT_TYPES},
                                           {"features", required_argument, 0, OPT_FEATURES},
                                           {"max-chunk", required_argument, 0, OPT_MAXCHUNK},
                                           {"lex-warmup", required_argument, 0, OPT_WARMUP},
                                           {"word-col", required_argument, 0, OPT_WORDCOL},
                                           {"pos-col", required_argument, 0, OPT_POSCOL},
                                           {"chunk-col", required_argument, 0, OPT_CHUNKCOL},
                                           {"seed", required_argument, 0, OPT_SEED},
                                           {"shards", required_argument, 0, OPT_SHARDS},
                                           {"threads", required_argument, 0, OPT_THREADS},
                                           {"quiet", no_argument, 0, OPT_QUIET},
                                           {"joint-chunk", no_argument, 0, OPT_JOINT},
                                           {"output", required_argument, 0, 'o'},
                                           {"help", no_argument, 0, 'h'},
                                           VT_CORPUS_LONGOPTS,
                                           {0, 0, 0, 0}};
  const char *train_path = NULL, *test_path = NULL, *out_path = NULL;
  int rc = VT_EXIT_USAGE, c, quiet = 0;
  long long v;
  vt_train_opts to;
  vt_train_opts_init(&to);
  to.seed = 0; /* corpus order, as the paper */
  to.chunk_types = "NP";
  optind = 1;
  while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
    int h = vt_cli_corpus_opt(c, optarg, &to.reader);
    if (h < 0) goto done;
    if (h > 0) continue;
    switch (c) {
    case OPT_TRAIN: train_path = optarg; break;
    case OPT_TEST: test_path = optarg; break;
    case 'o': out_path = optarg; break;
    case OPT_TYPES: to.chunk_types = optarg; break;
    case OPT_QUIET: quiet = 1; break;
    case OPT_JOINT: break;
    case OPT_UPDATE:
      if (!strcmp(optarg, "vp") || !strcmp(optarg, "perceptron"))
        to.margin = 0;
      else if (!strcmp(optarg, "mmvp") || !strcmp(optarg, "margin"))
        to.margin = 1;
      else {
        vt_cli_error("--update: expected vp or mmvp, got '%s'", optarg);
        goto done;
      }
      break;
    case OPT_COLLAPSE:
      if (!strcmp(optarg, "none"))
        to.collapse = 0;
      else if (!strcmp(optarg, "paper"))
        to.collapse = 1;
      else {
        vt_cli_error("--collapse: expected none or paper, got '%s'", optarg);
        goto done;
      }
      break;
    case OPT_FEATURES:
      if (!strcmp(optarg, "all"))
        to.observed_only = 0;
      else if (!strcmp(optarg, "observed"))
        to.observed_only = 1;
      else {
        vt_cli_error("--features: expected all or observed, got '%s'", optarg);
        goto done;
      }
      break;
    case OPT_SENTENCES:
    case OPT_EPOCHS:
    case OPT_MAXCHUNK:
    case OPT_WARMUP:
      if (vt_cli_parse_int(optarg, c == OPT_SENTENCES || c == OPT_EPOCHS ? 1 : 0, 1000000000, &v)) {
        vt_cli_error("%s: expected a %s integer, got '%s'", argv[optind - 1],
                     c == OPT_SENTENCES || c == OPT_EPOCHS ? "positive" : "non-negative", optarg);
        goto done;
      }
      if (c == OPT_SENTENCES)
        to.max_sentences = v;
      else if (c == OPT_EPOCHS)
        to.epochs = (int32_t)v;
      else if (c == OPT_MAXCHUNK)
        to.max_chunk = (int32_t)v;
      else
        to.lex_warmup = (int32_t)v;
      break;
    case OPT_SEED:
      if (vt_cli_parse_int(optarg, 0, INT64_MAX, &v)) {
        vt_cli_error("--seed: expected a non-negative integer, got '%s'", optarg);
        goto done;
      }
      to.seed = (uint64_t)v;
      break;
    case OPT_SHARDS:
      if (vt_cli_parse_int(optarg, 1, VT_TRAIN_SHARDS_MAX, &v)) {
        vt_cli_error("--shards: expected an integer in 1..%d, got '%s'", VT_TRAIN_SHARDS_MAX,
                     optarg);
        goto done;
      }
      to.shards = (int32_t)v;
      break;
    case OPT_THREADS:
      if (vt_cli_parse_int(optarg, 0, 4096, &v)) { /* 0: one per core */
        vt_cli_error("--threads: expected an integer in 0..4096, got '%s'", optarg);
        goto done;
      }
      to.threads = (int32_t)v;
      break;
    case OPT_WORDCOL:
      if (parse_col("--word-col", optarg, &to.word_col)) goto done;
      break;
    case OPT_POSCOL:
      if (parse_col("--pos-col", optarg, &to.pos_col)) goto done;
      break;
    case OPT_CHUNKCOL:
      if (parse_col("--chunk-col", optarg, &to.chunk_col)) goto done;
      break;
    case 'h':
      usage(stdout);
      rc = VT_EXIT_OK;
      goto done;
    default: vt_cli_bad_option("chunk-train", "o:h", argv); goto done;
    }
  }
  if (!train_path || !out_path || optind != argc) {
    vt_cli_error("chunk-train: --train FILE and -o MODEL are required, and nothing else "
                 "(see vitesse chunk-train --help)");
    goto done;
  }
  if (!quiet) {
    to.on_start = on_start;
    to.on_epoch = on_epoch;
  }
  vt_train_report rep;
  vt_status st = vt_train_joint(&to, train_path, test_path, out_path, &rep);
  if (st != VT_OK) {
    vt_cli_error("%s", vt_last_error());
    /* bad input (options, corpora) is a usage error; later failures are the run's */
    rc = st != VT_ENOMEM && !rep.input_ok ? VT_EXIT_USAGE : VT_EXIT_FAIL;
    goto done;
  }
  rc = VT_EXIT_OK;
done:
  return rc;
}

int vt_chunk_cli_wants_joint(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--joint-chunk")) return 1;
  return 0;
}
