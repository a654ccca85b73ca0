/* mpi/train.c: `vitesse-mpi train`, `vitesse train` across the ranks of an MPI job: the options
 * (vitesse train's own parser), each rank's part of the training file (a byte range cut at
 * sentence boundaries, as `vitesse-mpi tag` cuts, read with pread), then the library's
 * vt_train_tagger_part / vt_train_items_part with the collectives of train_comm.c. Rank 0 prints
 * the progress lines and --log, reads --dev and writes the model: the very bytes `vitesse train`
 * writes, for any number of ranks and threads. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/chunk_cli.h"
#include "cli/cli.h"
#include "cli/train_setup.h"
#include "split.h"
#include "train_run.h"

#define MSG 1024

/* SIGINT / SIGTERM during training: rank 0 says so in one line, and every rank dies of the
 * signal (exit status 128 + it); the model is written only at the end, so none is left. The
 * message is made before the handlers are installed (a handler may only write it). */
static char stop_msg[2][MSG];
static size_t stop_len[2];
static volatile sig_atomic_t stop_speaks; /* this rank prints the message */

static void on_stop(int sig) {
  const int i = sig == SIGTERM;
  if (stop_speaks && write(2, stop_msg[i], stop_len[i]) < 0) {
    /* nothing more a handler can do */
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

static void stop_install(int rank, const char *model) {
  static const char *const names[2] = {"SIGINT", "SIGTERM"};
  for (int i = 0; i < 2; i++) {
    int n = snprintf(stop_msg[i], sizeof stop_msg[i],
                     "vitesse: interrupted by %s: training stopped; %s was not written\n", names[i],
                     model ? model : "the model");
    stop_len[i] = n < 0 ? 0 : (size_t)n < sizeof stop_msg[i] ? (size_t)n : sizeof stop_msg[i] - 1;
  }
  stop_speaks = rank == 0;
  const int sigs[2] = {SIGINT, SIGTERM};
  for (int i = 0; i < 2; i++) {
    struct sigaction old, sa;
    if (sigaction(sigs[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN) continue;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sigaction(sigs[i], &sa, NULL);
  }
}

/* One `vitesse-mpi train` run as this rank sees it. */
typedef struct train_run {
  const vt_mpi *w;
  int argc;
  char **argv;
  vt_cli_train t;
} train_run;

static int setup_parse(void *ctx) {
  train_run *r = ctx;
  if (vt_chunk_cli_wants_joint(r->argc, r->argv)) {
    vt_cli_error("train: --joint-chunk trains on one process (vitesse train)");
    return VT_EXIT_USAGE;
  }
  return vt_cli_train_setup(&r->t, r->argc, r->argv);
}

/* Rank 0 prints the lines and writes --log; the other ranks train silently. */
static int setup_print(void *ctx) {
  train_run *r = ctx;
  return r->w->rank == 0 ? vt_cli_train_callbacks(&r->t) : -1;
}

/* Rank 0 looks at the training file: a regular file, not gzip (every rank reads its range).
 * Returns an agreed code; *size its size. */
static int check_file(const vt_mpi *w, const char *path, int64_t *size) {
  char msg[MSG] = "";
  long long info[2] = {VT_MPI_OK, 0};
  if (w->rank == 0) {
    struct stat st;
    unsigned char magic[2] = {0, 0};
    int fd = strcmp(path, "-") ? open(path, O_RDONLY) : -1;
    if (!strcmp(path, "-")) {
      snprintf(msg, sizeof msg,
               "train: the training corpus must be a file (every rank reads its "
               "own part), not standard input");
      info[0] = VT_MPI_BAD;
    } else if (fd < 0 || fstat(fd, &st) != 0) {
      snprintf(msg, sizeof msg, "%s: cannot open: %s", path, strerror(errno));
      info[0] = VT_MPI_BAD;
    } else if (!S_ISREG(st.st_mode)) {
      snprintf(msg, sizeof msg, "%s: not a regular file (every rank reads its own part)", path);
      info[0] = VT_MPI_BAD;
    } else if (pread(fd, magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
      snprintf(msg, sizeof msg,
               "%s: gzip data: decompress it first (every rank reads its own "
               "byte range of a plain file)",
               path);
      info[0] = VT_MPI_BAD;
    } else {
      info[1] = st.st_size;
    }
    if (fd >= 0) close(fd);
  }
  MPI_Bcast(info, 2, MPI_LONG_LONG, 0, w->comm);
  *size = info[1];
  return vt_mpi_agree(w, (int)info[0], msg);
}

/* Every rank was given the same options: an FNV-1a hash of the arguments compared over the ranks
 * (training with different options would fail midway, in a collective). Returns an agreed code. */
static int same_options(const vt_mpi *w, int argc, char **argv) {
  uint64_t h = 1469598103934665603u;
  for (int i = 0; i < argc; i++)
    for (const unsigned char *c = (const unsigned char *)argv[i];; c++) {
      h = (h ^ *c) * 1099511628211u;
      if (!*c) break;
    }
  unsigned long long lo = h, hi = h;
  MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, w->comm);
  MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, w->comm);
  return vt_mpi_agree(w, lo == hi ? VT_MPI_OK : VT_MPI_BAD,
                      lo == hi ? "" : "train: the ranks were given different options");
}

/* Reads this rank's part of `path` (size bytes) into *buf: the nominal range
 * [rank size / P, (rank + 1) size / P) moved forward to split points; *first_line: the lines
 * before it. With `sep` (templates, separator auto), rank 0 decides the file's separator by its
 * first token line and every rank takes it. Returns an agreed code. */
static int read_part(const vt_mpi *w, const char *path, int64_t size, int items, vt_sep *sep,
                     int comments, vt_mpi_buf *buf, int64_t *first_line) {
  char msg[MSG] = "";
  int code = VT_MPI_OK;
  vt_mpi_src *src = calloc(1, sizeof *src);
  if (!src) {
    snprintf(msg, sizeof msg, "out of memory");
    code = VT_MPI_FAIL;
  } else if ((src->fd = open(path, O_RDONLY)) < 0) {
    snprintf(msg, sizeof msg, "%s: cannot open: %s", path, strerror(errno));
    code = VT_MPI_BAD;
  }
  if (code == VT_MPI_OK) {
    src->size = size;
    src->at_eof = 1;
    src->items = items;
    const int64_t P = w->size, q0 = size / P * w->rank + size % P * w->rank / P;
    const int64_t q1 = size / P * (w->rank + 1) + size % P * (w->rank + 1) / P;
    int64_t from = vt_mpi_split(src, q0), to = from < 0 ? from : vt_mpi_split(src, q1);
    int s = !items && *sep == VT_SEP_AUTO && w->rank == 0 ? vt_mpi_first_sep(src, comments) : 0;
    if (from < 0 || to < 0 || s == -2) {
      snprintf(msg, sizeof msg, "%s: read error: %s", path, vt_mpi_read_why(errno));
      code = VT_MPI_BAD;
    } else if (vt_mpi_buf_reserve(buf, (size_t)(to - from))) {
      snprintf(msg, sizeof msg, "out of memory (%lld bytes of %s)", (long long)(to - from), path);
      code = VT_MPI_FAIL;
    } else if (vt_mpi_read_range(src, from, to, buf->p)) {
      snprintf(msg, sizeof msg, "%s: read error: %s", path, vt_mpi_read_why(errno));
      code = VT_MPI_BAD;
    } else {
      buf->len = (size_t)(to - from);
    }
    if (!items && *sep == VT_SEP_AUTO) {
      MPI_Bcast(&s, 1, MPI_INT, 0, w->comm);
      *sep = (vt_sep)s;
    }
  }
  if (src && src->fd >= 0) close(src->fd);
  free(src);
  long long mine = vt_mpi_count_lines(buf->p, buf->len), before = 0;
  MPI_Exscan(&mine, &before, 1, MPI_LONG_LONG, MPI_SUM, w->comm);
  *first_line = w->rank == 0 ? 0 : before; /* MPI_Exscan leaves rank 0's undefined */
  return vt_mpi_agree(w, code, msg);
}

int vt_mpi_train(const vt_mpi *w, int argc, char **argv) {
  train_run r;
  memset(&r, 0, sizeof r);
  r.w = w;
  r.argc = argc;
  r.argv = argv;
  vt_mpi_buf buf = {0, 0, 0};
  vt_train_comm comm;
  vt_train_report rep;
  int64_t size = 0, first_line = 0;
  int code = same_options(w, argc, argv), rc = -1;
  if (code != VT_MPI_OK) {
    rc = vt_mpi_exit_status(w, code);
    goto done;
  }
  if ((rc = vt_mpi_setup(w, setup_parse, &r)) >= 0) goto done;
  vt_cli_train *t = &r.t;
  const int items = t->crf.items != NULL;
  const char *path = items ? t->crf.items : t->train_path;
  vt_reader_opts *ro = &t->to.reader;
  vt_sep sep = ro->sep; /* the file's, for the parts (the options, and so the model, keep auto) */
  if ((code = check_file(w, path, &size)) != VT_MPI_OK ||
      (code = read_part(w, path, size, items, &sep, ro->comments || ro->conllu, &buf,
                        &first_line)) != VT_MPI_OK) {
    rc = vt_mpi_exit_status(w, code);
    goto done;
  }
  code = vt_mpi_train_comm(w, &comm) ? VT_MPI_FAIL : VT_MPI_OK;
  if ((code = vt_mpi_agree(w, code, "MPI cannot make the exact sum")) != VT_MPI_OK) {
    rc = vt_mpi_exit_status(w, code);
    goto done;
  }
  if ((rc = vt_mpi_setup(w, setup_print, &r)) >= 0) goto done;
  /* The ranks of a node divide its cores (the model is the same for any thread count). */
  const int share = vt_mpi_node_share(w);
  if (!t->to.threads && share > 0) t->to.threads = share;
  const vt_train_part part = {path, buf.p, buf.len, first_line, sep};
  stop_install(w->rank, t->out_path);
  vt_status st = items ? vt_train_items_part(&t->to, &comm, &part, t->dev_path,
                                             vt_cli_train_model_path(t), &rep)
                       : vt_train_tagger_part(&t->to, &comm, &part, t->dev_path,
                                              vt_cli_train_model_path(t), &rep);
  stop_speaks = 0; /* training is over: a signal now (mpirun ending a failed job) says nothing */
  code = vt_mpi_agree(w, vt_mpi_code_of(st), st == VT_OK ? "" : vt_last_error());
  if (code != VT_MPI_OK) {
    rc = vt_mpi_exit_status(w, code); /* the failure is printed; free closes the log */
    goto done;
  }
  rc = w->rank == 0 ? vt_cli_train_finish(t, VT_OK, &rep) : VT_EXIT_OK;
done:
  vt_cli_train_free(&r.t);
  free(buf.p);
  return rc;
}
