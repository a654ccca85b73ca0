/* tests/test_train_part.c: vt_train_tagger_part and vt_train_items_part, the processes of the job
 * played by POSIX threads of this program joined by tests/comm_threads.h (so that the sanitizer
 * builds see the whole path: compiling each part, merging the dictionaries, moving sentences,
 * the CRF feature set, the exact sums). A file cut into 1, 2 or 3 parts at blank lines (as
 * `vitesse-mpi train` cuts) gives the model file vt_train_tagger / vt_train_items write from the
 * whole file, byte for byte: the perceptron by shards (with a process holding no shard), L-BFGS
 * over templates (16 gradient batches, --min-count) and over items (values, --min-freq). A bad
 * line in a later part fails every process: that process with the single process's message
 * (its line counted from the file's start), the others with VT_ECANCELED, and no model. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "comm_threads.h"
#include "test_util.h"
#include "vitesse.h"

static char dir[] = "/tmp/vt_test_train_part.XXXXXX";
static int failures;

#define CHECK(c, ...)                                                                              \
  do {                                                                                             \
    if (!(c)) {                                                                                    \
      fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                                              \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fputc('\n', stderr);                                                                         \
      failures++;                                                                                  \
    }                                                                                              \
  } while (0)

static void remove_dir(void) {
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

/* n sentences "word feature label" (items: "label TAB w=.. TAB x=.. TAB v:value"), malloc'd. */
static char *corpus(int n, uint64_t seed, int items, size_t *len) {
  static const char *const labels[] = {"NN", "VB", "DT", "JJ", "B-NP", "I-NP", "O"};
  size_t cap = (size_t)n * 10 * 48 + 64, at = 0;
  char *b = malloc(cap);
  test_rng r = {seed};
  for (int s = 0; b && s < n; s++) {
    int T = 1 + test_int(&r, 9), prev = 9;
    for (int t = 0; t < T; t++) {
      int w = test_int(&r, 40);
      const char *y = labels[(w * 5 + prev * 3) % 7];
      at += (size_t)(items ? snprintf(b + at, cap - at, "%s\tw=%d\tx=%d\tv:%g\n", y, w, w % 3,
                                      0.5 + 0.25 * (w % 4))
                           : snprintf(b + at, cap - at, "w%d x%d %s\n", w, w % 3, y));
      prev = w;
    }
    b[at++] = '\n';
  }
  *len = at;
  return b;
}

/* One process's part and where its thread puts the outcome. */
typedef struct proc {
  vt_comm_threads *g;
  int rank;
  int items;
  const vt_train_opts *o;
  vt_train_part part;
  const char *out;
  vt_status st;
  char msg[512];
} proc;

static void *proc_run(void *arg) {
  proc *p = arg;
  vt_train_comm c;
  vt_comm_threads_member(p->g, p->rank, &c);
  const char *out = p->rank == 0 ? p->out : NULL;
  p->st = p->items ? vt_train_items_part(p->o, &c, &p->part, NULL, out, NULL)
                   : vt_train_tagger_part(p->o, &c, &p->part, NULL, out, NULL);
  snprintf(p->msg, sizeof p->msg, "%s", p->st == VT_OK ? "" : vt_last_error());
  return NULL;
}

/* Cuts text into P parts at blank lines (empty ones for items) and trains them on P threads
 * into `out`. Fills st and msg of each process (procs: P of them). */
static void train_parts(const vt_train_opts *o, int items, const char *name, const char *text,
                        size_t len, int P, const char *out, proc *procs) {
  vt_comm_threads *g = vt_comm_threads_create(P);
  pthread_t th[4];
  size_t from = 0;
  int64_t lines = 0;
  for (int r = 0; r < P; r++) {
    size_t to = len * (size_t)(r + 1) / (size_t)P;
    while (to < len && !(to >= 2 && text[to - 1] == '\n' && text[to - 2] == '\n')) to++;
    if (to < from) to = from;
    procs[r] = (proc){g, r, items, o, {name, text + from, to - from, lines, VT_SEP_AUTO}, out,
                      VT_OK, ""};
    for (size_t i = from; i < to; i++) lines += text[i] == '\n';
    from = to;
  }
  for (int r = 0; r < P; r++) pthread_create(&th[r], NULL, proc_run, &procs[r]);
  for (int r = 0; r < P; r++) pthread_join(th[r], NULL);
  vt_comm_threads_destroy(g);
}

static int same_file(const char *a, const char *b) {
  size_t na, nb;
  unsigned char *x = test_slurp(a, &na), *y = test_slurp(b, &nb);
  int same = x && y && na == nb && memcmp(x, y, na) == 0;
  free(x);
  free(y);
  return same;
}

/* Trains `text` on one process (the file `path`) and on 1..3, every model the same bytes. */
static void check_same(const char *what, const vt_train_opts *o, int items, const char *text,
                       size_t len) {
  char path[400], ref[400], out[400];
  snprintf(path, sizeof path, "%s/%s.txt", dir, what);
  snprintf(ref, sizeof ref, "%s/%s.ref", dir, what);
  snprintf(out, sizeof out, "%s/%s.out", dir, what);
  FILE *f = fopen(path, "w");
  CHECK(f && fwrite(text, 1, len, f) == len && fclose(f) == 0, "%s: cannot write", what);
  const char *const files[1] = {path};
  vt_status st = items ? vt_train_items(o, files, 1, NULL, 0, ref, NULL)
                       : vt_train_tagger(o, files, 1, NULL, 0, ref, NULL);
  CHECK(st == VT_OK, "%s: one process: %s", what, vt_last_error());
  for (int P = 1; P <= 3; P++) {
    proc procs[4];
    unlink(out);
    train_parts(o, items, path, text, len, P, out, procs);
    for (int r = 0; r < P; r++)
      CHECK(procs[r].st == VT_OK, "%s: P=%d rank %d: %s", what, P, r, procs[r].msg);
    CHECK(same_file(ref, out), "%s: P=%d: the model differs from one process's", what, P);
  }
}

int main(void) {
  if (!mkdtemp(dir)) return 1;
  atexit(remove_dir);
  static const char tmpl[] = "U00:%x[0,0]\nU01:%x[-1,0]/%x[0,0]\nU02:%x[0,1]\nU03:%x[1,0]\nB\n";
  vt_train_opts o;
  size_t len;

  /* The perceptron by 2 shards (3 processes: one holds none) and by 5. */
  char *text = corpus(600, 7, 0, &len);
  vt_train_opts_init(&o);
  o.templates = tmpl;
  o.epochs = 3;
  o.threads = 1;
  o.shards = 2;
  check_same("shards2", &o, 0, text, len);
  o.shards = 5;
  o.threads = 2;
  check_same("shards5", &o, 0, text, len);
  free(text);

  /* L-BFGS over templates: about 20k tokens, 16 batches; features cut by --min-count. */
  text = corpus(4000, 9, 0, &len);
  vt_train_opts_init(&o);
  o.templates = tmpl;
  o.algorithm = VT_TRAIN_LBFGS;
  o.max_iterations = 6;
  o.min_count = 2;
  o.threads = 2;
  check_same("lbfgs", &o, 0, text, len);

  /* A bad line in the last part: every process fails, the one that read it as one process. */
  {
    char *bad = malloc(len + 64);
    memcpy(bad, text, len);
    size_t blen = len + (size_t)snprintf(bad + len, 64, "w1 x1 NN\nw2 x2\n\n");
    char path[400], out[400], ref[400];
    snprintf(path, sizeof path, "%s/bad.txt", dir);
    snprintf(out, sizeof out, "%s/bad.out", dir);
    snprintf(ref, sizeof ref, "%s/bad.ref", dir);
    FILE *f = fopen(path, "w");
    CHECK(f && fwrite(bad, 1, blen, f) == blen && fclose(f) == 0, "cannot write bad.txt");
    const char *const files[1] = {path};
    vt_status st = vt_train_tagger(&o, files, 1, NULL, 0, ref, NULL);
    char want[512];
    snprintf(want, sizeof want, "%s", vt_last_error());
    CHECK(st == VT_EFORMAT, "bad: one process: %d", (int)st);
    proc procs[4];
    train_parts(&o, 0, path, bad, blen, 3, out, procs);
    CHECK(procs[2].st == VT_EFORMAT && !strcmp(procs[2].msg, want),
          "bad: the last process: %d '%s', expected '%s'", (int)procs[2].st, procs[2].msg, want);
    for (int r = 0; r < 2; r++)
      CHECK(procs[r].st == VT_ECANCELED, "bad: process %d: %d", r, (int)procs[r].st);
    CHECK(access(out, F_OK) != 0, "bad: a model was written");
    free(bad);
  }
  free(text);

  /* L-BFGS over items with values, --min-freq over the exact sums, possible states. */
  text = corpus(4000, 11, 1, &len);
  vt_train_opts_init(&o);
  o.algorithm = VT_TRAIN_LBFGS;
  o.max_iterations = 6;
  o.min_freq = 3.5;
  o.possible_states = 1;
  o.threads = 1;
  check_same("items", &o, 1, text, len);
  free(text);

  if (failures) fprintf(stderr, "test_train_part: %d failure(s)\n", failures);
  return failures ? 1 : 0;
}
