/* engine/cli/cmd_crf_learn.c: `vitesse crf_learn`, CRF++'s crf_learn command line (its options,
 * defaults and log on standard output), training through vt_crfpp_learn and writing a CRF++
 * model that crf_test reads. */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/same_file.h"

static void crf_learn_usage(FILE *f) {
  fputs("usage: vitesse crf_learn [options] TEMPLATE TRAIN MODEL\n"
        "       vitesse crf_learn -C TEXT_MODEL MODEL\n"
        "\n"
        "CRF++'s crf_learn: trains a linear-chain CRF on the column corpus TRAIN (the label in\n"
        "the last column) with the CRF++ templates TEMPLATE, minimising CRF++'s objective (or by\n"
        "crf_learn's MIRA), and writes the CRF++ model MODEL that crf_test (and vitesse tag)\n"
        "read. One line per evaluation of the objective (per pass of MIRA) on standard output,\n"
        "as crf_learn prints it.\n"
        "options:\n"
        "  -f, --freq=INT       use features that occur no less than INT times (default 1)\n"
        "  -m, --maxiter=INT    evaluations of the objective (MIRA: passes) at most\n"
        "                       (default 100000)\n"
        "  -c, --cost=FLOAT     C: the regulariser is ||w||^2 / (2C), or |w|_1 / C; MIRA:\n"
        "                       the bound on a sentence's summed steps (default 1)\n"
        "  -e, --eta=FLOAT      stop once the objective's relative change stays below FLOAT\n"
        "                       for three evaluations (default 0.0001; MIRA: unused)\n"
        "  -C, --convert        convert the text model TEXT_MODEL to the binary MODEL\n"
        "  -t, --textmodel      also write the text model MODEL.txt\n"
        "  -a, --algorithm=A    CRF (or CRF-L2, the default), CRF-L1 or MIRA\n"
        "  -p, --thread=INT     threads of the gradient (default 0: one per core); MIRA and\n"
        "                       bigram templates with macros run on one\n"
        "  -H, --shrinking-size=INT  MIRA skips a sentence tagged right INT passes running\n"
        "                       (default 20)\n"
        "  -v, --version        show the version and exit\n"
        "  -h, --help           show this help and exit\n",
        f);
}

/* Parses a whole finite number; 0 or -1. */
static int parse_num(const char *s, double *out) {
  char *end;
  if (!*s) return -1;
  *out = strtod(s, &end);
  return *end || !isfinite(*out) ? -1 : 0;
}

static void on_start(void *ctx, const vt_crfpp_learn_report *r) {
  const vt_crfpp_learn_opts *o = ctx;
  long threads = r->threads;
  if (threads == 0) threads = sysconf(_SC_NPROCESSORS_ONLN);
  printf("Done!\n\n");
  printf("Number of sentences: %lld\n", (long long)r->sentences);
  printf("Number of features:  %lld\n", (long long)r->features);
  printf("Number of thread(s): %ld\n", threads);
  printf("Freq:                %d\n", o->freq);
  printf("eta:                 %.5f\n", o->eta);
  printf("C:                   %.5f\n", o->cost);
  printf("shrinking size:      %d\n", o->shrinking_size);
  fflush(stdout);
}

static int on_iteration(void *ctx, const vt_crfpp_iteration *it) {
  const vt_crfpp_learn_opts *o = ctx;
  if (o->algorithm == VT_CRFPP_MIRA)
    printf("iter=%d terr=%.5f serr=%.5f act=%lld uact=%lld obj=%.5f kkt=%.5f\n", it->iter, it->terr,
           it->serr, (long long)it->act, (long long)it->uact, it->obj, it->kkt);
  else
    printf("iter=%d terr=%.5f serr=%.5f act=%lld obj=%.5f diff=%.5f\n", it->iter, it->terr,
           it->serr, (long long)it->act, it->obj, it->diff);
  fflush(stdout);
  return 0;
}

int vt_cmd_crf_learn(int argc, char **argv) {
  static const struct option longopts[] = {{"freq", required_argument, 0, 'f'},
                                           {"maxiter", required_argument, 0, 'm'},
                                           {"cost", required_argument, 0, 'c'},
                                           {"eta", required_argument, 0, 'e'},
                                           {"convert", no_argument, 0, 'C'},
                                           {"textmodel", no_argument, 0, 't'},
                                           {"algorithm", required_argument, 0, 'a'},
                                           {"thread", required_argument, 0, 'p'},
                                           {"shrinking-size", required_argument, 0, 'H'},
                                           {"version", no_argument, 0, 'v'},
                                           {"help", no_argument, 0, 'h'},
                                           {0, 0, 0, 0}};
  static const char optstring[] = "+f:m:c:e:Cta:p:H:vh";
  vt_crfpp_learn_opts o;
  vt_crfpp_learn_opts_init(&o);
  int convert = 0, c;
  long long n;
  double v;
  optind = 1;
  while ((c = getopt_long(argc, argv, optstring, longopts, NULL)) != -1) {
    switch (c) {
    case 'f':
    case 'm':
    case 'p':
    case 'H':
      if (vt_cli_parse_int(optarg, c == 'H' ? 1 : 0, c == 'p' || c == 'H' ? 1024 : INT32_MAX, &n)) {
        vt_cli_error("crf_learn: -%c: expected an integer in %d..%d, got '%s'", c, c == 'H' ? 1 : 0,
                     c == 'p' || c == 'H' ? 1024 : INT32_MAX, optarg);
        return VT_EXIT_USAGE;
      }
      if (c == 'f') o.freq = (int32_t)n;
      if (c == 'm') o.maxiter = (int32_t)n;
      if (c == 'p') o.threads = (int32_t)n;
      if (c == 'H') o.shrinking_size = (int32_t)n;
      break;
    case 'c':
    case 'e':
      if (parse_num(optarg, &v) || !(v > 0)) {
        vt_cli_error("crf_learn: -%c: expected a positive number, got '%s'", c, optarg);
        return VT_EXIT_USAGE;
      }
      if (c == 'c')
        o.cost = v;
      else
        o.eta = v;
      break;
    case 'C': convert = 1; break;
    case 't': o.text_model = 1; break;
    case 'a':
      if (!strcasecmp(optarg, "CRF") || !strcasecmp(optarg, "CRF-L2")) {
        o.algorithm = VT_CRFPP_L2;
      } else if (!strcasecmp(optarg, "CRF-L1")) {
        o.algorithm = VT_CRFPP_L1;
      } else if (!strcasecmp(optarg, "MIRA")) {
        o.algorithm = VT_CRFPP_MIRA;
      } else {
        vt_cli_error("crf_learn: -a: expected CRF, CRF-L2, CRF-L1 or MIRA, got '%s'", optarg);
        return VT_EXIT_USAGE;
      }
      break;
    case 'v': printf("vitesse crf_learn %s (CRF++ 0.58's crf_learn)\n", vt_version()); return 0;
    case 'h': crf_learn_usage(stdout); return VT_EXIT_OK;
    default: vt_cli_bad_option("crf_learn", optstring, argv); return VT_EXIT_USAGE;
    }
  }
  const int rest = argc - optind;
  if (convert ? rest != 2 : rest != 3) {
    vt_cli_error("crf_learn: expected %s, got %d file name(s) (see vitesse crf_learn --help)",
                 convert ? "TEXT_MODEL MODEL" : "TEMPLATE TRAIN MODEL", rest);
    return VT_EXIT_USAGE;
  }
  char **file = argv + optind;
  if (convert) {
    const vt_cli_file outs[1] = {{file[1], "the model"}};
    const vt_cli_file ins[1] = {{file[0], "the text model"}};
    if (vt_cli_outputs_apart("crf_learn", outs, 1, ins, 1)) return VT_EXIT_USAGE;
    if (vt_crfpp_convert(file[0], file[1]) != VT_OK) {
      vt_cli_error("crf_learn: %s", vt_last_error());
      return VT_EXIT_USAGE;
    }
    return VT_EXIT_OK;
  }
  char *txt = malloc(strlen(file[2]) + 5);
  if (!txt) {
    vt_cli_error("crf_learn: out of memory");
    return VT_EXIT_FAIL;
  }
  sprintf(txt, "%s.txt", file[2]);
  const vt_cli_file outs[2] = {{file[2], "the model"}, {o.text_model ? txt : NULL, "-t"}};
  const vt_cli_file ins[2] = {{file[0], "the template"}, {file[1], "the training data"}};
  if (vt_cli_outputs_apart("crf_learn", outs, 2, ins, 2)) {
    free(txt);
    return VT_EXIT_USAGE;
  }
  free(txt);
  printf("vitesse crf_learn %s: CRF++'s crf_learn\n", vt_version());
  printf("reading training data: ");
  fflush(stdout);
  o.on_start = on_start;
  o.on_iteration = on_iteration;
  o.ctx = &o;
  const double c0 = vt_cli_cpu_now();
  vt_crfpp_learn_report r;
  vt_status st = vt_crfpp_learn(file[0], file[1], file[2], &o, &r);
  if (st != VT_OK) {
    fflush(stdout);
    vt_cli_error("crf_learn: %s", vt_last_error());
    return st == VT_ENOMEM ? VT_EXIT_FAIL : VT_EXIT_USAGE;
  }
  printf("\nDone!%.2f s (CPU; %d iterations, %s)\n", vt_cli_cpu_now() - c0, r.iterations, r.stop);
  return VT_EXIT_OK;
}
