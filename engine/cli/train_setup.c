/* engine/cli/train_setup.c: the options of `vitesse train` and its progress lines (train_setup.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "cli/train_setup.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/resume.h"
#include "cli/same_file.h"
#include "cli/signals.h"
#include "cli/text_cli.h"
#include "cli/train_unused.h"

void vt_cli_train_usage(FILE *f) {
  fputs(
      "usage: vitesse train --template T --train FILE [--dev FILE] [--epochs N]\n"
      "       vitesse train --algo lbfgs|l2sgd|ap|pa|arow --items FILE [--dev FILE] [CRF options]\n"
      "                     -o MODEL\n"
      "                     [--decoder ALGO] [--seed S] [--label-col C] [--min-count N]\n"
      "                     [--shards S | --minibatch B] [--threads N] [corpus options]\n"
      "                     -o MODEL\n"
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
      "  --decoder ALGO  exact decoder used in training (default: the fastest exact one\n"
      "                  for the label count L, as vitesse decode's default with -k 1:\n"
      "                  viterbi when L < 128, else iter-viterbi-astar; viterbi for\n"
      "                  observation-dependent bigram templates); see vitesse decode --help\n"
      "  --seed S        seed of the per-epoch shuffles (default 1)\n"
      "  --label-col C   label column: 0-based index, last (default) or a CoNLL-U name\n"
      "  --min-count N   keep features seen at least N times in training (default 1)\n"
      "  --shards S      train on S shards at once (parameter mixing): shard s holds the\n"
      "                  contiguous sentences [N*s/S, N*(s+1)/S) of the N, shuffles them\n"
      "                  every epoch (an order of its own drawn from --seed) and trains\n"
      "                  on them in rounds of max(1, 8/S) sentences, in parallel with\n"
      "                  the other shards from the same weights; after every round the\n"
      "                  weights add the sum of the shards' changes, exactly. As\n"
      "                  accurate as the sequential perceptron at 2-4 shards\n"
      "                  (perf/README.md). The model depends on S and --seed, never on\n"
      "                  --threads, and vitesse-mpi train writes the same bytes on any\n"
      "                  number of ranks. 1 (default): the sequential perceptron.\n"
      "                  Memory grows with S: each shard holds about 3.2 L^2 doubles\n"
      "                  (L labels), 4 bytes a feature and copies of the features it\n"
      "                  updates in a round\n"
      "  --minibatch B   train on several cores by mini-batches instead: every epoch takes\n"
      "                  the shuffled sentences B at a time, decodes a batch in parallel\n"
      "                  with the weights as it began and makes the updates one sentence\n"
      "                  after the other in order (overlapping the decoding); the model\n"
      "                  depends on B and --seed, never on --threads; memory: B emission\n"
      "                  tables of the longest sentence. 1 (default): sequential\n"
      "  --threads N     threads for the shards or batches (at most S or B; default: one\n"
      "                  per core)\n"
      "  --quiet         no per-epoch lines\n"
      "  --checkpoint CK keep the whole training state in the file CK, written atomically\n"
      "                  every epoch (the perceptron, ap, pa, arow, l2sgd) or 10 iterations\n"
      "                  (lbfgs), but no sooner than 50 times the last checkpoint's own\n"
      "                  writing time after it (at most about 2% of the time); when CK\n"
      "                  exists, the same command continues from it and writes the very\n"
      "                  model an uninterrupted run writes (any --threads); a CK of other\n"
      "                  inputs or options is refused. CK is removed once MODEL is written.\n"
      "                  SIGTERM or SIGINT: CK written as the epoch or iteration ends, exit\n"
      "                  128 + the signal, no model (the same command continues)\n"
      "  --checkpoint-every N  a checkpoint exactly every N epochs or iterations instead\n"
      "  --progress      a line on stderr for every epoch or iteration, for a job's log (also\n"
      "                  with --quiet): \"vitesse progress: epoch=N epochs=N errors=N\n"
      "                  sentences=N seconds=S\" (perceptron) or \"vitesse progress: iteration=N\n"
      "                  loss=X seconds=S\" (CRF)\n"
      "  --joint-chunk   train a joint POS + chunk model instead (Shimizu & Haas 2006;\n"
      "                  options: vitesse chunk-train --help)\n"
      "  -o MODEL        the model file to write (atomically)\n",
      f);
  fputs(vt_crf_help, f);
  fputs(VT_CORPUS_HELP, f);
}

/* A template file larger than this is refused. */
#define MAX_TEMPLATE_BYTES ((size_t)64 << 20)

/* The run whose callbacks' ctx (vt_train_opts.ctx, the CRF lines' vt_crf_print too) is its
 * `cp`. */
static vt_cli_train *train_of(void *ctx) {
  return (vt_cli_train *)((char *)ctx - offsetof(vt_cli_train, cp));
}

/* The corpus line, before the first epoch. */
static void on_start(void *vctx, const vt_train_report *r) {
  (void)vctx;
  fprintf(stderr,
          "vitesse train: %lld sentences, %lld tokens, %d labels, %d features "
          "(%d templates), decoder %s; read in %.2f s\n",
          (long long)r->sentences, (long long)r->tokens, r->labels, (int)r->features, r->templates,
          vt_algo_name(r->decoder), r->read_seconds);
}

/* The progress bar of a terminal. */
static void on_progress(void *vctx, int32_t epoch, int32_t epochs, int64_t done, int64_t n) {
  (void)vctx;
  const int width = 40;
  int fill = n ? (int)(done * width / n) : width;
  char bar[64];
  for (int i = 0; i < width; i++) bar[i] = i < fill ? '#' : '.';
  bar[width] = 0;
  fprintf(stderr, "\repoch %d/%d [%s] %3d%%", epoch, epochs, bar, n ? (int)(done * 100 / n) : 100);
  fflush(stderr);
}

/* One line per epoch (unless --quiet), and with --progress the line for a log. */
static int on_epoch(void *vctx, const vt_epoch_report *r) {
  const vt_cli_train *x = train_of(vctx);
  if (x->cp.progress)
    fprintf(stderr,
            "%svitesse progress: epoch=%d epochs=%d errors=%lld sentences=%lld seconds=%.3f\n",
            x->progress ? "\r\033[K" : "", r->epoch, r->epochs, (long long)r->mistakes,
            (long long)r->sentences, r->seconds);
  if (x->quiet) return 0;
  if (x->progress) fputs("\r\033[K", stderr);
  fprintf(stderr,
          "epoch %d/%d: %.2f s, train: %lld of %lld sentences wrong, token "
          "accuracy %.2f%%",
          r->epoch, r->epochs, r->seconds, (long long)r->mistakes, (long long)r->sentences,
          100.0 * r->train_accuracy);
  if (r->dev_accuracy >= 0) fprintf(stderr, "; dev token accuracy %.2f%%", 100.0 * r->dev_accuracy);
  fputc('\n', stderr);
  fflush(stderr);
  return 0;
}

/* The CRF line before the first iteration. */
static void crf_on_start(void *vctx, const vt_train_report *r) {
  (void)vctx;
  fprintf(stderr,
          "vitesse train: %lld sequences, %lld items, %d labels, %lld features; read in %.2f s\n",
          (long long)r->sentences, (long long)r->tokens, r->labels, (long long)r->features,
          r->read_seconds);
}

/* on_start of a CRF (ctx: the vt_crf_print): training's CPU clock starts, and the line before the
 * first iteration is printed unless --quiet. */
static void crf_items_start(void *ctx, const vt_train_report *r) {
  vt_crf_print *p = ctx;
  if (p->lines) crf_on_start(ctx, r);
  p->cpu = vt_cli_cpu_now();
}

static void crf_templates_start(void *ctx, const vt_train_report *r) {
  vt_crf_print *p = ctx;
  if (p->lines) on_start(ctx, r);
  p->cpu = vt_cli_cpu_now();
}

/* Opens the --log file ("-": standard output) and sets whether iteration lines are printed; a
 * run that may continue from a checkpoint (`resume`) keeps the log's lines, which on_resume cuts
 * to the checkpoint's. 0, or -1 (printed). */
static int crf_log_open(const vt_crf_cli *crf, vt_crf_print *cp, int quiet, int resume) {
  cp->lines = !quiet;
  if (!crf->log_path) return 0;
  if (!strcmp(crf->log_path, "-")) {
    cp->log = stdout;
    return 0;
  }
  if (resume && (cp->log = fopen(crf->log_path, "r+")) && fseeko(cp->log, 0, SEEK_END) == 0)
    return 0;
  if (cp->log) fclose(cp->log);
  if (!(cp->log = fopen(crf->log_path, "w"))) {
    vt_cli_error("%s: cannot create the log: %s", crf->log_path, strerror(errno));
    return -1;
  }
  return 0;
}

/* Closes the log (standard output is flushed, not closed); 0, or -1 when a write failed. */
static int crf_log_close(vt_crf_print *cp) {
  if (!cp->log) return 0;
  int bad = cp->log_fail || ferror(cp->log);
  if (cp->log == stdout)
    bad |= fflush(stdout) != 0;
  else
    bad |= fclose(cp->log) != 0;
  cp->log = NULL;
  return bad ? -1 : 0;
}

/* The checks of a CRF trained from item files. Returns -1 or the exit status (printed). */
static int items_check(vt_cli_train *t) {
  if (t->to.algorithm == VT_TRAIN_PERCEPTRON) {
    vt_cli_error("train: --items trains a CRF: add --algo lbfgs, l2sgd, ap, pa or arow");
    return VT_EXIT_USAGE;
  }
  t->to.online_epsilon = t->crf.epsilon_set ? t->to.epsilon : 0;
  if (t->tmpl_path || t->train_path) {
    vt_cli_error("train: --items FILE or --template T --train FILE, not both");
    return VT_EXIT_USAGE;
  }
  if (!t->out_path) {
    vt_cli_error("train: -o MODEL is required (see vitesse train --help)");
    return VT_EXIT_USAGE;
  }
  return -1;
}

/* The checks of training over templates, and the template file read. Returns -1 or the exit
 * status (printed). */
static int templates_check(vt_cli_train *t, const char *decoder, long long shards,
                           long long minibatch) {
  vt_train_opts *to = &t->to;
  if (to->algorithm == VT_TRAIN_PA || to->algorithm == VT_TRAIN_AROW) {
    vt_cli_error("train: --algo pa and arow train from --items");
    return VT_EXIT_USAGE;
  }
  if (to->algorithm == VT_TRAIN_AP)
    to->algorithm = VT_TRAIN_PERCEPTRON; /* over templates: the same */
  if (t->crf.crf_option && to->algorithm == VT_TRAIN_PERCEPTRON) {
    vt_cli_error("train: the CRF options need --algo lbfgs or l2sgd");
    return VT_EXIT_USAGE;
  }
  if (!t->tmpl_path || !t->train_path || !t->out_path) {
    vt_cli_error("train: --template, --train and -o are required (see vitesse train --help)");
    return VT_EXIT_USAGE;
  }
  if (shards > 1 && minibatch > 1) {
    vt_cli_error("train: --shards and --minibatch are two ways to train on several cores: "
                 "choose one");
    return VT_EXIT_USAGE;
  }
  if (decoder) {
    vt_status pst = vt_algo_parse(decoder, &to->decoder);
    if (pst != VT_OK) {
      vt_cli_error("--decoder: %s '%s'",
                   pst == VT_EUNSUPPORTED ? "not implemented in this version:"
                                          : "unknown algorithm",
                   decoder);
      return VT_EXIT_USAGE;
    }
    if (!vt_algo_exact(to->decoder)) {
      vt_cli_error("--decoder: '%s' is approximate; training needs an exact decoder", decoder);
      return VT_EXIT_USAGE;
    }
    to->decoder_set = 1;
  }
  size_t tmpl_len = 0;
  if (!(t->tmpl_text =
            vt_cli_read_file(t->tmpl_path, MAX_TEMPLATE_BYTES, "a template file", &tmpl_len)))
    return VT_EXIT_USAGE;
  to->templates = t->tmpl_text;
  to->templates_len = tmpl_len;
  to->templates_name = t->tmpl_path;
  return -1;
}

/* No output of the run (-o, --log) is one of its inputs or the other output; 0 or -1 (printed). */
static int files_apart(const vt_cli_train *t) {
  const vt_cli_file outs[3] = {
      {t->out_path, "-o"}, {t->crf.log_path, "--log"}, {t->to.checkpoint, "--checkpoint"}};
  const vt_cli_file ins[5] = {{t->crf.items, "--items"},
                              {t->train_path, "--train"},
                              {t->tmpl_path, "--template"},
                              {t->dev_path, "--dev"},
                              {t->to.init_model, "--init"}};
  return vt_cli_outputs_apart("train", outs, 3, ins, 5);
}

/* --checkpoint CK: the identity of the input files (sizes, modification times, hashes), which
 * the library keeps in CK beside the options it compares itself; 0 or -1 (printed). */
static int ckpt_inputs(vt_cli_train *t) {
  if (!t->to.checkpoint) return 0;
  const vt_cli_file files[5] = {{t->crf.items, "--items"},
                                {t->train_path, "--train"},
                                {t->tmpl_path, "--template"},
                                {t->dev_path, "--dev"},
                                {t->to.init_model, "--init"}};
  if (!(t->ckpt_id = vt_cli_inputs_id("train", files, 5))) return -1;
  t->to.checkpoint_id = t->ckpt_id;
  return 0;
}

/* The model is written beside -o under a name of this process's and renamed into place by
 * vt_cli_train_finish once everything else (the log) succeeded; 0 or -1 (printed). */
static int stage_model(vt_cli_train *t) {
  if (!t->out_path || !strcmp(t->out_path, "-")) return 0;
  /* Only a file, or a name yet to be one: a device or a pipe is written in place, and a
   * symbolic link's target replaced (io/outfile), by the trainer itself; a rename over them
   * would replace the device or the link. */
  struct stat sb;
  if (lstat(t->out_path, &sb) == 0 && !S_ISREG(sb.st_mode)) return 0;
  const size_t n = strlen(t->out_path) + 48;
  if (!(t->stage_path = malloc(n))) {
    vt_cli_error("out of memory");
    return -1;
  }
  snprintf(t->stage_path, n, "%s.vt-stage-%ld", t->out_path, (long)getpid());
  return 0;
}

int vt_cli_train_setup(vt_cli_train *t, int argc, char **argv) {
  static const struct option longopts[] = {
      {"template", required_argument, 0, VT_TRAIN_OPT_TEMPLATE},
      {"train", required_argument, 0, VT_TRAIN_OPT_TRAIN},
      {"dev", required_argument, 0, VT_TRAIN_OPT_DEV},
      {"epochs", required_argument, 0, VT_TRAIN_OPT_EPOCHS},
      {"decoder", required_argument, 0, VT_TRAIN_OPT_DECODER},
      {"seed", required_argument, 0, VT_TRAIN_OPT_SEED},
      {"label-col", required_argument, 0, VT_TRAIN_OPT_LABEL},
      {"min-count", required_argument, 0, VT_TRAIN_OPT_MINCOUNT},
      {"quiet", no_argument, 0, VT_TRAIN_OPT_QUIET},
      {"progress", no_argument, 0, VT_TRAIN_OPT_PROGRESS},
      {"shards", required_argument, 0, VT_TRAIN_OPT_SHARDS},
      {"threads", required_argument, 0, VT_TRAIN_OPT_THREADS},
      {"minibatch", required_argument, 0, VT_TRAIN_OPT_MINIBATCH},
      {"checkpoint", required_argument, 0, VT_TRAIN_OPT_CHECKPOINT},
      {"checkpoint-every", required_argument, 0, VT_TRAIN_OPT_CHECKPOINT_EVERY},
      {"output", required_argument, 0, 'o'},
      {"help", no_argument, 0, 'h'},
      VT_CORPUS_LONGOPTS,
      VT_CRF_LONGOPTS,
      {0, 0, 0, 0}};
  const char *decoder = NULL;
  long long epochs = 10, seed = 1, min_count = 1, shards = 1, threads = 0, minibatch = 1;
  long long ck_every = 0;
  int32_t label_col = -1;
  vt_train_opts *to = &t->to;
  vt_cli_seen seen;
  memset(&seen, 0, sizeof seen);
  memset(t, 0, sizeof *t);
  vt_train_opts_init(to);

  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
    vt_cli_seen_add(&seen, c);
    int h = vt_cli_corpus_opt(c, optarg, &to->reader);
    if (h == 0) h = vt_crf_cli_opt(c, optarg, to, &t->crf);
    if (h < 0) return VT_EXIT_USAGE;
    if (h > 0) continue;
    switch (c) {
    case VT_TRAIN_OPT_TEMPLATE: t->tmpl_path = optarg; break;
    case VT_TRAIN_OPT_TRAIN: t->train_path = optarg; break;
    case VT_TRAIN_OPT_DEV: t->dev_path = optarg; break;
    case VT_TRAIN_OPT_DECODER: decoder = optarg; break;
    case VT_TRAIN_OPT_QUIET: t->quiet = 1; break;
    case VT_TRAIN_OPT_PROGRESS: t->cp.progress = 1; break;
    case 'o': t->out_path = optarg; break;
    case VT_TRAIN_OPT_CHECKPOINT: to->checkpoint = optarg; break;
    case VT_TRAIN_OPT_CHECKPOINT_EVERY:
      if (vt_cli_parse_int(optarg, 1, 1000000000, &ck_every)) {
        vt_cli_error("--checkpoint-every: expected an integer in 1..1000000000, got '%s'", optarg);
        return VT_EXIT_USAGE;
      }
      break;
    case VT_TRAIN_OPT_EPOCHS:
      if (vt_cli_parse_int(optarg, 1, 100000, &epochs)) {
        vt_cli_error("--epochs: expected an integer in 1..100000, got '%s'", optarg);
        return VT_EXIT_USAGE;
      }
      break;
    case VT_TRAIN_OPT_SEED:
      if (vt_cli_parse_int(optarg, 0, INT64_MAX, &seed)) {
        vt_cli_error("--seed: expected a non-negative integer, got '%s'", optarg);
        return VT_EXIT_USAGE;
      }
      break;
    case VT_TRAIN_OPT_SHARDS:
      if (vt_cli_parse_int(optarg, 1, VT_TRAIN_SHARDS_MAX, &shards)) {
        vt_cli_error("--shards: expected an integer in 1..%d, got '%s'", VT_TRAIN_SHARDS_MAX,
                     optarg);
        return VT_EXIT_USAGE;
      }
      break;
    case VT_TRAIN_OPT_MINIBATCH:
      if (vt_cli_parse_int(optarg, 1, VT_TRAIN_MINIBATCH_MAX, &minibatch)) {
        vt_cli_error("--minibatch: expected an integer in 1..%d, got '%s'", VT_TRAIN_MINIBATCH_MAX,
                     optarg);
        return VT_EXIT_USAGE;
      }
      break;
    case VT_TRAIN_OPT_THREADS:
      if (vt_cli_parse_int(optarg, 0, 4096, &threads)) { /* 0: one per core */
        vt_cli_error("--threads: expected an integer in 0..4096, got '%s'", optarg);
        return VT_EXIT_USAGE;
      }
      break;
    case VT_TRAIN_OPT_MINCOUNT:
      if (vt_cli_parse_int(optarg, 1, UINT32_MAX, &min_count)) {
        vt_cli_error("--min-count: expected a positive integer, got '%s'", optarg);
        return VT_EXIT_USAGE;
      }
      break;
    case VT_TRAIN_OPT_LABEL:
      if (vt_cli_parse_col(optarg, &label_col)) {
        vt_cli_error("--label-col: expected a column index, last or a CoNLL-U name, got '%s'",
                     optarg);
        return VT_EXIT_USAGE;
      }
      break;
    case 'h': vt_cli_train_usage(stdout); return VT_EXIT_OK;
    default: vt_cli_bad_option("train", "o:h", argv); return VT_EXIT_USAGE;
    }
  }
  if (optind < argc) {
    vt_cli_error("train: unexpected argument '%s'", argv[optind]);
    return VT_EXIT_USAGE;
  }
  to->threads = (int32_t)threads;
  to->seed = (uint64_t)seed;
  if (ck_every && !to->checkpoint) {
    vt_cli_error("train: --checkpoint-every needs --checkpoint CK");
    return VT_EXIT_USAGE;
  }
  to->checkpoint_every = (int32_t)ck_every;
  int rc = t->crf.items ? items_check(t) : templates_check(t, decoder, shards, minibatch);
  if (rc >= 0) return rc;
  if (vt_cli_train_unused(&seen, t->crf.items != NULL, to->algorithm, longopts) || files_apart(t))
    return VT_EXIT_USAGE;
  if (stage_model(t)) return VT_EXIT_FAIL;
  if (ckpt_inputs(t)) return VT_EXIT_USAGE;
  if (t->crf.items) return -1;
  to->epochs = (int32_t)epochs;
  to->label_col = label_col;
  to->min_count = (uint32_t)min_count;
  to->shards = (int32_t)shards;
  to->minibatch = (int32_t)minibatch;
  return -1;
}

/* The place a checkpoint keeps: the --log file's length once flushed (-1: no log file). */
static int64_t ckpt_mark(void *ctx) {
  vt_cli_train *t = train_of(ctx);
  FILE *log = t->cp.log;
  fflush(stderr);
  if (!log || fflush(log) != 0 || log == stdout) return -1;
  return (int64_t)ftello(log);
}

/* Training continues from a checkpoint: the log is cut where it was then; a line says so. */
static void ckpt_resume(void *ctx, int64_t mark, int64_t done) {
  vt_cli_train *t = train_of(ctx);
  FILE *log = t->cp.log;
  if (log && log != stdout && fflush(log) == 0 &&
      (ftruncate(fileno(log), (off_t)(mark > 0 ? mark : 0)) != 0 ||
       fseeko(log, (off_t)(mark > 0 ? mark : 0), SEEK_SET) != 0)) {
    t->cp.log_fail = 1;
    t->cp.log_errno = errno;
  }
  if (!t->quiet)
    fprintf(stderr, "vitesse train: continuing from %s after %s %lld\n", t->to.checkpoint,
            t->crf.items || t->to.algorithm == VT_TRAIN_LBFGS ? "iteration" : "epoch",
            (long long)done);
}

/* Whether a SIGINT or SIGTERM asked the run to stop (vitesse train installs the handlers). */
static int ckpt_cancel(void *ctx) {
  (void)ctx;
  return atomic_load(&vt_cli_stop) != 0;
}

int vt_cli_train_callbacks(vt_cli_train *t) {
  vt_train_opts *to = &t->to;
  if (to->checkpoint) {
    to->on_checkpoint = ckpt_mark;
    to->on_resume = ckpt_resume;
    to->on_cancel = ckpt_cancel;
  }
  if (t->crf.items || to->algorithm != VT_TRAIN_PERCEPTRON) { /* iterations, not epochs */
    if (crf_log_open(&t->crf, &t->cp, t->quiet, to->checkpoint && !access(to->checkpoint, F_OK)))
      return VT_EXIT_FAIL;
    to->on_iteration = vt_crf_cli_on_iteration;
    to->ctx = &t->cp;
    to->on_start = t->crf.items ? crf_items_start : crf_templates_start;
    if (!t->quiet) to->crfsuite_learn |= VT_TRAIN_CALIBRATION_TRIALS; /* l2sgd's trials */
    return -1;
  }
  t->progress = !t->quiet && isatty(2);
  to->ctx = &t->cp;
  if (!t->quiet) to->on_start = on_start;
  if (!t->quiet || t->cp.progress) {
    to->on_epoch = on_epoch;
  }
  if (t->progress) to->on_progress = on_progress;
  return -1;
}

int vt_cli_train_finish(vt_cli_train *t, vt_status st, const vt_train_report *rep) {
  int rc = VT_EXIT_OK;
  const char *stop = st == VT_OK && rep->stop_reason ? rep->stop_reason : "done";
  if (st == VT_OK) vt_crf_cli_log_stop(&t->cp, stop, rep->epochs);
  if (crf_log_close(&t->cp) && st == VT_OK) {
    vt_cli_error("%s: cannot write the log: %s; no model written", t->crf.log_path,
                 t->cp.log_errno ? strerror(t->cp.log_errno) : "write error");
    rc = VT_EXIT_USAGE;
  } else if (st == VT_ECANCELED && atomic_load(&vt_cli_stop)) {
    const int sig = atomic_load(&vt_cli_stop);
    vt_cli_error(
        "interrupted by %s: %s, and the same command continues from there (no model written)",
        vt_cli_signal_name(sig), vt_last_error());
    rc = 128 + sig;
  } else if (st != VT_OK) {
    vt_cli_error("%s", vt_last_error());
    rc =
        st == VT_EFORMAT || st == VT_EUNSUPPORTED || st == VT_EINVAL ? VT_EXIT_USAGE : VT_EXIT_FAIL;
  } else if (t->quiet) {
  } else if (t->crf.items) {
    fprintf(stderr,
            "vitesse train: %d iterations in %.2f s, stopped: %s; model %s: %lld features with "
            "non-zero weights\n",
            rep->epochs, rep->train_seconds, stop, t->out_path, (long long)rep->model_features);
  } else if (t->to.algorithm != VT_TRAIN_PERCEPTRON) {
    /* The weights the last iteration left non-zero (its "active"), the feature strings that hold
     * them, and the file's own size. */
    struct stat sb;
    const char *written = vt_cli_train_model_path(t);
    fprintf(stderr,
            "vitesse train: %d iterations in %.2f s, stopped: %s; train token accuracy %.2f%%; "
            "model %s: %lld non-zero weights over %lld feature strings",
            rep->epochs, rep->train_seconds, stop, 100 * rep->train_accuracy, t->out_path,
            (long long)t->cp.last_active, (long long)rep->model_features);
    if (strcmp(written, "-") && !stat(written, &sb))
      fprintf(stderr, ", %.1f MB", (double)sb.st_size / 1e6);
    fputc('\n', stderr);
  } else {
    fprintf(stderr,
            "vitesse train: %d epochs in %.2f s (decoding %.2f s); model %s: %lld "
            "features with non-zero weights, about %.1f MB\n",
            rep->epochs, rep->train_seconds, rep->decode_seconds, t->out_path,
            (long long)rep->model_features, (double)rep->model_bytes / 1e6);
  }
  if (rc == VT_EXIT_OK && t->stage_path && rename(t->stage_path, t->out_path) != 0) {
    vt_cli_error("%s: cannot write the model: %s", t->out_path, strerror(errno));
    rc = VT_EXIT_USAGE;
  }
  /* The model is in place: its checkpoint is done with (a kill just before only retrains). */
  if (rc == VT_EXIT_OK && t->to.checkpoint) unlink(t->to.checkpoint);
  return rc;
}

const char *vt_cli_train_model_path(const vt_cli_train *t) {
  return t->stage_path ? t->stage_path : t->out_path;
}

void vt_cli_train_free(vt_cli_train *t) {
  crf_log_close(&t->cp);
  if (t->stage_path) unlink(t->stage_path); /* gone once renamed into place */
  free(t->stage_path);
  free(t->tmpl_text);
  free(t->ckpt_id);
  memset(t, 0, sizeof *t);
}
