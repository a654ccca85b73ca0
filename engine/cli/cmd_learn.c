/* engine/cli/cmd_learn.c: `vitesse learn`, crfsuite learn's command line (-a, -p NAME=VALUE, -m,
 * -g, -e, -x, -l, -L, -t, -H; data sets as arguments, each a group) training with vitesse's CRF
 * trainers (vt_train_items) and printing crfsuite's log (learn.h). The model is a CRFsuite model,
 * as crfsuite learn writes it. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/learn.h"
#include "cli/same_file.h"
#include "cli/text_cli.h"
#include "vitesse.h"

static void usage(FILE *f) {
  fputs("usage: vitesse learn [OPTIONS] [DATA1] [DATA2] ...\n"
        "Trains a CRF on CRFsuite item files with crfsuite learn's command line, options,\n"
        "parameters, defaults and log, and writes a CRFsuite model (crfsuite tag, vitesse tag,\n"
        "python-crfsuite read it).\n"
        "\n"
        "  DATA    item files (label TAB attr[:value] ..., a blank line after each sequence),\n"
        "          each a group (1..N) for -e and -x; '-' reads standard input\n"
        "\n"
        "options:\n"
        "  -t, --type=1d         the graphical model (only 1d, crfsuite's)\n"
        "  -a, --algorithm=NAME  lbfgs (default), l2sgd, ap (averaged-perceptron), pa\n"
        "                        (passive-aggressive) or arow\n"
        "  -p, --set=NAME=VALUE  set a parameter of the algorithm (crfsuite's names and\n"
        "                        defaults; -H lists them)\n"
        "  -m, --model=FILE      write the model to FILE (default: no model)\n"
        "  -g, --split=N         shuffle the instances (crfsuite's rand()) into N groups\n"
        "  -e, --holdout=M       train on the other groups, evaluate on group M after every\n"
        "                        iteration\n"
        "  -x, --cross-validate  N-fold cross validation: each group held out in turn\n"
        "  -l, --log-to-file     write the log to BASE_ALGORITHM[_PARAM...] instead of stdout\n"
        "  -L, --logbase=BASE    the base of that name (default log.crfsuite)\n"
        "      --threads=N       threads of the gradient (vitesse's; default one per core)\n"
        "  -h, --help            this help\n"
        "  -H, --help-parameters the parameters of the algorithm chosen with -a\n",
        f);
}

/* The timestamp lines of crfsuite's log. */
static void timestamp(FILE *f, const char *what) {
  char ts[80];
  const time_t now = time(NULL);
  strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
  fprintf(f, "%s time of the training: %s\n\n", what, ts);
}

/* Parses -a's NAME into *algo and its crfsuite name; 0 or -1 (printed). */
static int parse_algo(const char *arg, vt_learn_opts *o) {
  static const struct {
    const char *arg, *name;
    int algo;
  } names[] = {{"lbfgs", "lbfgs", VT_TRAIN_LBFGS},
               {"l2sgd", "l2sgd", VT_TRAIN_L2SGD},
               {"ap", "averaged-perceptron", VT_TRAIN_AP},
               {"averaged-perceptron", "averaged-perceptron", VT_TRAIN_AP},
               {"pa", "passive-aggressive", VT_TRAIN_PA},
               {"passive-aggressive", "passive-aggressive", VT_TRAIN_PA},
               {"arow", "arow", VT_TRAIN_AROW}};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (!strcmp(arg, names[i].arg)) {
      o->algo = names[i].algo;
      o->algo_name = names[i].name;
      return 0;
    }
  vt_cli_error("learn: unknown algorithm: %s (lbfgs, l2sgd, ap, pa or arow)", arg);
  return -1;
}

/* Parses the options; returns the index of the first data set, or -(exit status) - 1. */
static int parse(vt_learn_opts *o, int argc, char **argv) {
  static const char optstring[] = "+t:a:p:m:g:e:xlL:hH";
  enum { OPT_THREADS = 256 };
  static const struct option longopts[] = {{"type", required_argument, 0, 't'},
                                           {"algorithm", required_argument, 0, 'a'},
                                           {"set", required_argument, 0, 'p'},
                                           {"model", required_argument, 0, 'm'},
                                           {"split", required_argument, 0, 'g'},
                                           {"holdout", required_argument, 0, 'e'},
                                           {"cross-validate", no_argument, 0, 'x'},
                                           {"log-to-file", no_argument, 0, 'l'},
                                           {"logbase", required_argument, 0, 'L'},
                                           {"help", no_argument, 0, 'h'},
                                           {"help-parameters", no_argument, 0, 'H'},
                                           {"help-params", no_argument, 0, 'H'},
                                           {"threads", required_argument, 0, OPT_THREADS},
                                           {0, 0, 0, 0}};
  long long n;
  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, optstring, longopts, NULL)) != -1) {
    switch (c) {
    case 't':
      if (strcmp(optarg, "1d")) {
        vt_cli_error("learn: unknown graphical model: %s (only 1d)", optarg);
        return -VT_EXIT_USAGE - 1;
      }
      break;
    case 'a':
      if (parse_algo(optarg, o)) return -VT_EXIT_USAGE - 1;
      break;
    case 'p': {
      char **p = realloc(o->params, ((size_t)o->n_params + 1) * sizeof *p);
      if (!p) {
        vt_cli_error("out of memory");
        return -VT_EXIT_FAIL - 1;
      }
      o->params = p;
      o->params[o->n_params++] = optarg;
      break;
    }
    case 'm': o->model = optarg; break;
    case 'g':
    case 'e':
      if (vt_cli_parse_int(optarg, 1, INT32_MAX, &n)) {
        vt_cli_error("learn: -%c: expected a positive integer, got '%s'", c, optarg);
        return -VT_EXIT_USAGE - 1;
      }
      if (c == 'g')
        o->split = (int32_t)n;
      else
        o->holdout = (int32_t)n - 1;
      break;
    case 'x': o->cross_validation = 1; break;
    case 'l': o->logfile = 1; break;
    case 'L': o->logbase = optarg; break;
    case 'h': o->help = 1; break;
    case 'H': o->help_params = 1; break;
    case OPT_THREADS:
      if (vt_cli_parse_int(optarg, 0, 4096, &n)) {
        vt_cli_error("learn: --threads: expected an integer in 0..4096, got '%s'", optarg);
        return -VT_EXIT_USAGE - 1;
      }
      o->threads = (int32_t)n;
      break;
    default: vt_cli_bad_option("learn", optstring + 1, argv); return -VT_EXIT_USAGE - 1;
    }
  }
  return optind;
}

/* The -l log file's name: BASE_ALGORITHM_PARAM1_PARAM2... (crfsuite's); NULL: out of memory. */
static char *log_name(const vt_learn_opts *o) {
  size_t n = strlen(o->logbase) + strlen(o->algo_name) + 2;
  for (int i = 0; i < o->n_params; i++) n += strlen(o->params[i]) + 1;
  char *s = malloc(n);
  if (!s) return NULL;
  strcpy(s, o->logbase);
  strcat(s, "_");
  strcat(s, o->algo_name);
  for (int i = 0; i < o->n_params; i++) {
    strcat(s, "_");
    strcat(s, o->params[i]);
  }
  return s;
}

/* Scratch files of a run: the training and holdout parts (with -g or standard input) and the
 * model when none is kept. */
typedef struct scratch {
  char dir[4096];
  char train[4200], test[4200], model[4200];
  int made;
} scratch;

/* Makes the scratch directory once; 0 or -1 (printed). */
static int scratch_make(scratch *s) {
  if (s->made) return 0;
  const char *tmp = getenv("TMPDIR");
  snprintf(s->dir, sizeof s->dir, "%s/vitesse-learn-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(s->dir)) {
    vt_cli_error("learn: %s: cannot make a scratch directory: %s", s->dir, strerror(errno));
    return -1;
  }
  snprintf(s->train, sizeof s->train, "%s/train.items", s->dir);
  snprintf(s->test, sizeof s->test, "%s/holdout.items", s->dir);
  snprintf(s->model, sizeof s->model, "%s/model.crfsuite", s->dir);
  s->made = 1;
  return 0;
}

static void scratch_remove(scratch *s) {
  if (!s->made) return;
  unlink(s->train);
  unlink(s->test);
  unlink(s->model);
  rmdir(s->dir);
  s->made = 0;
}

/* Prints the library's failure `msg`; a message naming a line of a part written to scratch
 * names the data set and line it came from instead. */
static void print_failure(const vt_learn_data *d, int32_t holdout, const scratch *sc,
                          const char *msg) {
  for (int want = 0; sc->made && want < 2; want++) {
    const char *part = want ? sc->test : sc->train;
    const size_t n = strlen(part);
    char *end;
    if (strncmp(msg, part, n) || msg[n] != ':') continue;
    const unsigned long long line = strtoull(msg + n + 1, &end, 10);
    int32_t file;
    uint64_t orig;
    if (end == msg + n + 1 || *end != ':' ||
        vt_learn_data_where(d, holdout, want, line, &file, &orig))
      continue;
    const char *path = d->paths[file];
    vt_cli_error("%s:%llu%s", strcmp(path, "-") ? path : "standard input", (unsigned long long)orig,
                 end);
    return;
  }
  vt_cli_error("%s", msg);
}

/* One training run: holdout group `holdout` (-1: none), the model to `model` (NULL: none).
 * Returns the exit status. */
static int run(const vt_learn_opts *lo, vt_train_opts to, const vt_learn_data *d, int32_t holdout,
               const char *model, FILE *log, scratch *sc) {
  const char **train = malloc(((size_t)d->n_files + 1) * sizeof *train);
  const char *dev = NULL;
  int n_train = 0, rc = VT_EXIT_OK;
  vt_learn_log g;
  memset(&g, 0, sizeof g);
  if (!train) {
    vt_cli_error("out of memory");
    return VT_EXIT_FAIL;
  }
  int64_t n_seq = 0;
  for (int32_t k = 0; k < d->groups; k++) n_seq += k == holdout ? 0 : d->group_seqs[k];
  if (n_seq == 0) {
    vt_cli_error("learn: no instance to train on (the groups: %d, held out: %d)", d->groups,
                 holdout + 1);
    rc = VT_EXIT_USAGE;
    goto out;
  }
  if (lo->split > 0 || d->stdin_used) { /* the groups are not the files: write them out */
    if (scratch_make(sc) || vt_learn_data_write(d, holdout, sc->train, sc->test)) {
      rc = VT_EXIT_FAIL;
      goto out;
    }
    train[n_train++] = sc->train;
    dev = holdout >= 0 ? sc->test : NULL;
  } else {
    for (int32_t k = 0; k < d->n_files; k++)
      if (k != holdout) train[n_train++] = d->paths[k];
    dev = holdout >= 0 ? d->paths[holdout] : NULL;
    if (holdout >= 0) to.crfsuite_learn |= VT_TRAIN_DEV_BEFORE(holdout); /* crfsuite's labels */
  }
  if (!model) {
    if (scratch_make(sc)) {
      rc = VT_EXIT_FAIL;
      goto out;
    }
    model = sc->model;
  }
  g.out = log;
  g.lo = lo;
  g.to = &to;
  g.d = d;
  g.holdout = holdout;
  to.on_start = vt_learn_log_start;
  to.on_iteration = vt_learn_log_iteration;
  to.ctx = &g;
  to.crfsuite_learn |= VT_TRAIN_CALIBRATION_TRIALS | VT_TRAIN_DEV_LABELS;
  vt_train_report rep;
  const vt_status st = vt_train_items(&to, train, n_train, &dev, dev ? 1 : 0, model, &rep);
  if (st != VT_OK) {
    fflush(log);
    print_failure(d, holdout, sc, vt_last_error());
    rc =
        st == VT_EFORMAT || st == VT_EUNSUPPORTED || st == VT_EINVAL ? VT_EXIT_USAGE : VT_EXIT_FAIL;
    goto out;
  }
  if (g.failed) {
    vt_cli_error("learn: out of memory");
    rc = VT_EXIT_FAIL;
    goto out;
  }
  vt_learn_log_end(&g, &rep);
  if (model != sc->model) {
    fprintf(log, "Storing the model\n");
    fprintf(log, "Number of active features: %lld (%lld)\n", (long long)rep.model_features,
            (long long)rep.features);
    fprintf(log, "Number of active labels: %d (%d)\n", rep.labels, rep.labels);
    fprintf(log, "\n");
  }
out:
  if (sc->made) unlink(sc->model);
  vt_learn_log_free(&g);
  free(train);
  return rc;
}

/* Everything after the options: the data read, the runs. Returns the exit status. */
static int learn(const vt_learn_opts *lo, const vt_train_opts *to, char **files, int n_files) {
  vt_learn_data d;
  memset(&d, 0, sizeof d);
  scratch sc;
  memset(&sc, 0, sizeof sc);
  FILE *log = stdout;
  char *log_path = NULL;
  int rc = VT_EXIT_USAGE;
  vt_cli_file outs[2] = {{lo->model, "-m"}, {NULL, "-l"}};
  vt_cli_file *ins = calloc((size_t)n_files, sizeof *ins);
  if (!ins) goto nomem;
  for (int i = 0; i < n_files; i++) ins[i] = (vt_cli_file){files[i], "a data set"};
  if (lo->logfile) {
    if (!(log_path = log_name(lo))) goto nomem;
    outs[1].path = log_path;
  }
  if (vt_cli_outputs_apart("learn", outs, 2, ins, n_files)) goto out;
  if (lo->model && !strcmp(lo->model, "-")) {
    vt_cli_error("learn: -m -: the log is on standard output; name a model file");
    goto out;
  }
  if (lo->cross_validation && (lo->split == 0 ? n_files : lo->split) < 2) {
    vt_cli_error("learn: -x needs at least two groups (several data sets, or -g N)");
    goto out;
  }
  if (lo->split == 0 && lo->holdout >= n_files) { /* known before anything is printed */
    vt_cli_error("learn: -e %d: there are %d groups", lo->holdout + 1, n_files);
    goto out;
  }
  if (lo->split > 0 && lo->holdout >= lo->split) {
    vt_cli_error("learn: -e %d: there are %d groups (-g %d)", lo->holdout + 1, lo->split,
                 lo->split);
    goto out;
  }
  if (log_path && !(log = fopen(log_path, "w"))) {
    vt_cli_error("learn: %s: cannot create the log: %s", log_path, strerror(errno));
    log = stdout;
    rc = VT_EXIT_FAIL;
    goto out;
  }
  timestamp(log, "Start");
  if (vt_learn_data_read(&d, (const char *const *)files, n_files, log)) goto out;
  if (lo->split > 0)
    vt_learn_data_split(&d, lo->split);
  else if (!d.stdin_used)
    vt_learn_data_release_text(&d); /* the library reads the files: no second copy in memory */
  if (lo->holdout >= d.groups) {
    vt_cli_error("learn: -e %d: there are %d groups", lo->holdout + 1, d.groups);
    goto out;
  }
  if (lo->cross_validation && d.groups < 2) {
    vt_cli_error("learn: -x needs at least two groups (several data sets, or -g N)");
    goto out;
  }
  fprintf(log, "Statistics the data set(s)\n");
  fprintf(log, "Number of data sets (groups): %d\n", d.groups);
  fprintf(log, "Number of instances: %lld\n", (long long)d.n_seqs);
  fprintf(log, "Number of items: %lld\n", (long long)d.items);
  fprintf(log, "Number of attributes: %d\n", d.n_attrs);
  fprintf(log, "Number of labels: %d\n", d.labels.n);
  fprintf(log, "\n");
  fflush(log);
  if (lo->cross_validation) {
    for (int32_t k = 0; k < d.groups; k++) {
      fprintf(log, "===== Cross validation (%d/%d) =====\n", k + 1, d.groups);
      if ((rc = run(lo, *to, &d, k, NULL, log, &sc)) != VT_EXIT_OK) goto out;
      fprintf(log, "\n");
    }
  } else {
    const char *model = lo->model && *lo->model ? lo->model : NULL;
    if ((rc = run(lo, *to, &d, lo->holdout, model, log, &sc)) != VT_EXIT_OK) goto out;
  }
  timestamp(log, "End");
  rc = VT_EXIT_OK;
  goto out;
nomem:
  vt_cli_error("out of memory");
  rc = VT_EXIT_FAIL;
out:
  if (log != stdout && fclose(log) != 0 && rc == VT_EXIT_OK) {
    vt_cli_error("learn: %s: cannot write the log: %s", log_path, strerror(errno));
    rc = VT_EXIT_USAGE;
  } else if (log == stdout && fflush(stdout) != 0 && rc == VT_EXIT_OK) {
    vt_cli_error("learn: standard output: cannot write the log: %s", strerror(errno));
    rc = VT_EXIT_USAGE;
  }
  scratch_remove(&sc);
  vt_learn_data_free(&d);
  free(ins);
  free(log_path);
  return rc;
}

int vt_cmd_learn(int argc, char **argv) {
  vt_learn_opts lo;
  memset(&lo, 0, sizeof lo);
  lo.algo = VT_TRAIN_LBFGS;
  lo.algo_name = "lbfgs";
  lo.logbase = "log.crfsuite";
  lo.holdout = -1;
  int rc = VT_EXIT_OK;
  const int first = parse(&lo, argc, argv);
  if (first < 0) {
    rc = -first - 1;
    goto out;
  }
  if (lo.help) {
    usage(stdout);
    goto out;
  }
  vt_train_opts to;
  vt_train_opts_init(&to);
  vt_learn_params_defaults(&to, lo.algo);
  to.threads = lo.threads;
  if (lo.help_params) {
    vt_learn_params_help(stdout, lo.algo, lo.algo_name);
    goto out;
  }
  for (int i = 0; i < lo.n_params; i++)
    if (vt_learn_param_set(&to, lo.algo, lo.params[i])) {
      rc = VT_EXIT_USAGE;
      goto out;
    }
  if (first >= argc) {
    vt_cli_error("learn: no data set (see vitesse learn --help)");
    rc = VT_EXIT_USAGE;
    goto out;
  }
  rc = learn(&lo, &to, argv + first, argc - first);
out:
  free(lo.params);
  return rc;
}
