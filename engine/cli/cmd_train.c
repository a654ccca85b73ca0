/* engine/cli/cmd_train.c: `vitesse train`, an averaged perceptron from a column corpus. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chunk_cli.h"
#include "cli.h"
#include "model_file.h"
#include "text_cli.h"
#include "train.h"
#include "train_export.h"

static void train_usage(FILE *f) {
  fputs("usage: vitesse train --template T --train FILE [--dev FILE] [--epochs N]\n"
        "                     [--decoder ALGO] [--seed S] [--label-col C] [--min-count N]\n"
        "                     [corpus options] -o MODEL\n"
        "\n"
        "Trains an averaged perceptron (Collins 2002) on a column corpus (one token per line,\n"
        "a blank line between sentences; plain, .gz or - for stdin) with the feature templates\n"
        "of T (CRF++ U/B lines with %x[row,col]; Wapiti's %t, %m, %X, %T, %M), shuffling the\n"
        "sentences every epoch, and writes the binary model MODEL.\n"
        "options:\n"
        "  --template T    feature template file\n"
        "  --train FILE    training corpus\n"
        "  --dev FILE      development corpus: token accuracy printed after every epoch\n"
        "  --epochs N      passes over the training corpus (default 10)\n"
        "  --decoder ALGO  exact decoder used in training (default: staggered-col when this\n"
        "                  build has it, else viterbi); see vitesse decode --help\n"
        "  --seed S        seed of the per-epoch shuffles (default 1)\n"
        "  --label-col C   label column: 0-based index, last (default) or a CoNLL-U name\n"
        "  --min-count N   keep features seen at least N times in training (default 1)\n"
        "  --quiet         no per-epoch lines\n"
        "  --joint-chunk   train a joint POS + chunk model instead (Shimizu & Haas 2006;\n"
        "                  options: vitesse chunk-train --help)\n"
        "  -o MODEL        the model file to write (atomically)\n",
        f);
  fputs(VT_CORPUS_HELP, f);
}

enum {
  OPT_TEMPLATE = 256,
  OPT_TRAIN,
  OPT_DEV,
  OPT_EPOCHS,
  OPT_DECODER,
  OPT_SEED,
  OPT_LABEL,
  OPT_MINCOUNT,
  OPT_QUIET
};

/* Reads the whole file `path` (at most 64 MiB) into a NUL-terminated heap buffer. */
static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    vt_cli_error("%s: cannot open: %s", path, strerror(errno));
    return NULL;
  }
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  while (buf) {
    if (n + 1 >= cap) {
      char *nb = cap < (64u << 20) ? realloc(buf, cap * 2) : NULL;
      if (!nb) {
        vt_cli_error("%s: too large for a template file", path);
        free(buf);
        buf = NULL;
        break;
      }
      buf = nb;
      cap *= 2;
    }
    size_t r = fread(buf + n, 1, cap - n - 1, f);
    n += r;
    if (r == 0) {
      if (ferror(f)) {
        vt_cli_error("%s: read error", path);
        free(buf);
        buf = NULL;
      }
      break;
    }
  }
  fclose(f);
  if (buf) {
    buf[n] = 0;
    *len = n;
  }
  return buf;
}

typedef struct compile_ctx {
  vt_trainset *d;
  vt_tcorpus *c;
} compile_ctx;

static vt_status compile_batch(void *ctx, const vt_sentbatch *b, char *err, size_t errlen) {
  compile_ctx *x = ctx;
  return vt_trainset_compile(x->d, x->c, b, err, errlen);
}

/* Reads and compiles every sentence of `path`; returns a CLI exit status. */
static int compile_file(const char *path, const vt_conll_opts *ro, vt_trainset *d, vt_tcorpus *c) {
  char err[512];
  compile_ctx x = {d, c};
  vt_status st = vt_cli_corpus_each(path, ro, compile_batch, &x, err, sizeof err);
  if (st == VT_OK) return VT_EXIT_OK;
  vt_cli_error("%s", err);
  return st == VT_EFORMAT ? VT_EXIT_USAGE : VT_EXIT_FAIL;
}

int vt_cmd_train(int argc, char **argv) {
  if (vt_chunk_cli_wants_joint(argc, argv)) return vt_cmd_chunk_train(argc, argv);
  static const struct option longopts[] = {{"template", required_argument, 0, OPT_TEMPLATE},
                                           {"train", required_argument, 0, OPT_TRAIN},
                                           {"dev", required_argument, 0, OPT_DEV},
                                           {"epochs", required_argument, 0, OPT_EPOCHS},
                                           {"decoder", required_argument, 0, OPT_DECODER},
                                           {"seed", required_argument, 0, OPT_SEED},
                                           {"label-col", required_argument, 0, OPT_LABEL},
                                           {"min-count", required_argument, 0, OPT_MINCOUNT},
                                           {"quiet", no_argument, 0, OPT_QUIET},
                                           {"output", required_argument, 0, 'o'},
                                           {"help", no_argument, 0, 'h'},
                                           VT_CORPUS_LONGOPTS,
                                           {0, 0, 0, 0}};
  const char *tmpl_path = NULL, *train_path = NULL, *dev_path = NULL, *out_path = NULL;
  const char *decoder = NULL;
  long long epochs = 10, seed = 1, min_count = 1;
  int32_t label_col = -1;
  int quiet = 0, rc = VT_EXIT_USAGE;
  vt_conll_opts ro;
  vt_conll_opts_init(&ro);
  char *tmpl_text = NULL;
  size_t tmpl_len = 0;
  vt_tmplset ts;
  memset(&ts, 0, sizeof ts);
  vt_trainset d;
  memset(&d, 0, sizeof d);
  vt_tcorpus train, dev;
  memset(&train, 0, sizeof train);
  memset(&dev, 0, sizeof dev);
  vt_weights W;
  memset(&W, 0, sizeof W);
  vt_export x;
  memset(&x, 0, sizeof x);
  int32_t *rank = NULL;
  char err[512];

  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
    int h = vt_cli_corpus_opt(c, optarg, &ro);
    if (h < 0) goto done;
    if (h > 0) continue;
    switch (c) {
    case OPT_TEMPLATE: tmpl_path = optarg; break;
    case OPT_TRAIN: train_path = optarg; break;
    case OPT_DEV: dev_path = optarg; break;
    case OPT_DECODER: decoder = optarg; break;
    case OPT_QUIET: quiet = 1; break;
    case 'o': out_path = optarg; break;
    case OPT_EPOCHS:
      if (vt_cli_parse_int(optarg, 1, 100000, &epochs)) {
        vt_cli_error("--epochs: expected an integer in 1..100000, got '%s'", optarg);
        goto done;
      }
      break;
    case OPT_SEED:
      if (vt_cli_parse_int(optarg, 0, INT64_MAX, &seed)) {
        vt_cli_error("--seed: expected a non-negative integer, got '%s'", optarg);
        goto done;
      }
      break;
    case OPT_MINCOUNT:
      if (vt_cli_parse_int(optarg, 1, UINT32_MAX, &min_count)) {
        vt_cli_error("--min-count: expected a positive integer, got '%s'", optarg);
        goto done;
      }
      break;
    case OPT_LABEL:
      if (vt_cli_parse_col(optarg, &label_col)) {
        vt_cli_error("--label-col: expected a column index, last or a CoNLL-U name, got '%s'",
                     optarg);
        goto done;
      }
      break;
    case 'h':
      train_usage(stdout);
      rc = VT_EXIT_OK;
      goto done;
    default: train_usage(stderr); goto done;
    }
  }
  if (optind < argc) {
    vt_cli_error("train: unexpected argument '%s'", argv[optind]);
    goto done;
  }
  if (!tmpl_path || !train_path || !out_path) {
    vt_cli_error("train: --template, --train and -o are required (see vitesse train --help)");
    goto done;
  }
  vt_algo algo = vt_cli_default_algo();
  if (decoder) {
    vt_status pst = vt_algo_parse(decoder, &algo);
    if (pst != VT_OK) {
      vt_cli_error("--decoder: %s '%s'",
                   pst == VT_EUNSUPPORTED ? "not implemented in this version:"
                                          : "unknown algorithm",
                   decoder);
      goto done;
    }
    if (!vt_algo_exact(algo)) {
      vt_cli_error("--decoder: '%s' is approximate; training needs an exact decoder", decoder);
      goto done;
    }
  }

  if (!(tmpl_text = slurp(tmpl_path, &tmpl_len))) goto done;
  if (vt_tmplset_parse(&ts, tmpl_text, tmpl_len, tmpl_path, err, sizeof err) != VT_OK) {
    vt_cli_error("%s", err);
    goto done;
  }
  if (ts.n_b > 0 && !decoder) algo = VT_ALGO_VITERBI;
  rc = VT_EXIT_FAIL;
  if (vt_trainset_init(&d, &ts, label_col) != VT_OK) goto nomem;
  double t0 = vt_cli_now();
  if ((rc = compile_file(train_path, &ro, &d, &train)) != VT_EXIT_OK) goto done;
  rc = VT_EXIT_USAGE;
  if (train.n_sent == 0) {
    vt_cli_error("%s: no sentence to train on", train_path);
    goto done;
  }
  rc = VT_EXIT_FAIL;
  if (vt_trainset_freeze(&d, &train, (uint32_t)min_count) != VT_OK) goto nomem;
  if (dev_path && (rc = compile_file(dev_path, &ro, &d, &dev)) != VT_EXIT_OK) goto done;
  rc = VT_EXIT_FAIL;
  const int32_t L = d.labels.n;
  rank = malloc((size_t)L * sizeof *rank);
  if (!rank || vt_weights_init(&W, L, d.n_weights, d.bigram) != VT_OK) goto nomem;
  vt_export_rank(&d, rank);
  if (!quiet)
    fprintf(stderr,
            "vitesse train: %lld sentences, %lld tokens, %d labels, %d features "
            "(%d templates), decoder %s; read in %.2f s\n",
            (long long)train.n_sent, (long long)train.n_tok, L, d.n_weights, ts.n,
            vt_algo_name(algo), vt_cli_now() - t0);

  vt_perc_opts to = {(int32_t)epochs, (uint64_t)seed, algo, !quiet && isatty(2),
                      quiet ? NULL : stderr};
  vt_perc_report rep;
  vt_status st = vt_train_run(&W, &train, dev_path ? &dev : NULL, rank, ts.n_b > 0, &to, &rep, err,
                              sizeof err);
  if (st != VT_OK) {
    vt_cli_error("%s", err);
    rc = st == VT_EUNSUPPORTED ? VT_EXIT_USAGE : VT_EXIT_FAIL;
    goto done;
  }
  vt_textmodel_meta meta;
  memset(&meta, 0, sizeof meta);
  meta.label_col = label_col;
  meta.ncols = d.ncols;
  meta.epochs = (int32_t)epochs;
  meta.reader = vt_cli_reader_pack(&ro);
  meta.seed = (uint64_t)seed;
  meta.train_sentences = (uint64_t)train.n_sent;
  meta.train_tokens = (uint64_t)train.n_tok;
  snprintf(meta.decoder, sizeof meta.decoder, "%s", vt_algo_name(algo));
  st = vt_export_build(&x, &d, &W, tmpl_text, tmpl_len, &meta);
  if (st != VT_OK) {
    vt_cli_error("%s: %s", out_path, st == VT_EINVAL ? "model too large" : "out of memory");
    goto done;
  }
  if (vt_textmodel_write(out_path, &x.img, err, sizeof err) != VT_OK) {
    vt_cli_error("%s", err);
    goto done;
  }
  if (!quiet) {
    uint64_t bytes = x.img.recs_len + (uint64_t)L * L * 4;
    fprintf(stderr,
            "vitesse train: %d epochs in %.2f s (decoding %.2f s); model %s: %u "
            "features with non-zero weights, about %.1f MB\n",
            (int)epochs, rep.seconds, rep.decode_seconds, out_path, x.img.n_feat,
            (double)bytes / 1e6);
  }
  rc = VT_EXIT_OK;
  goto done;
nomem:
  vt_cli_error("train: out of memory");
  rc = VT_EXIT_FAIL;
done:
  vt_export_free(&x);
  vt_weights_free(&W);
  vt_tcorpus_free(&train);
  vt_tcorpus_free(&dev);
  vt_trainset_free(&d);
  vt_tmplset_free(&ts);
  free(tmpl_text);
  free(rank);
  return rc;
}
