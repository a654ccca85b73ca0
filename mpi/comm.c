/* mpi/comm.c: what the subcommands of vitesse-mpi share: agreeing on failures, one message
 * printed, each rank's share of its node's CPUs, the output buffer (mpi_cli.h). */
#define _GNU_SOURCE /* sched_setaffinity, CPU_* */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/engine_opts.h"
#include "mpi_cli.h"

#define MSG_MAX 2048

int vt_mpi_agree(const vt_mpi *w, int code, const char *msg) {
  int top = code;
  MPI_Allreduce(&code, &top, 1, MPI_INT, MPI_MAX, w->comm);
  if (top == VT_MPI_OK) return top;
  /* The first rank with the winning code speaks; rank 0 prints its message. */
  int mine = code == top ? w->rank : w->size, first = mine;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, w->comm);
  char text[MSG_MAX];
  memset(text, 0, sizeof text);
  if (w->rank == first && msg) snprintf(text, sizeof text, "%s", msg);
  MPI_Bcast(text, MSG_MAX, MPI_CHAR, first, w->comm);
  if (w->rank == 0 && text[0]) {
    fprintf(stderr, "vitesse: %s\n", text);
    fflush(stderr);
  }
  return top;
}

int vt_mpi_exit_status(const vt_mpi *w, int code) {
  int sig = atomic_load(&vt_cli_stop), top = sig;
  switch (code) {
  case VT_MPI_OK: return 0;
  case VT_MPI_CANCELED: /* the signal one of the ranks got */
    MPI_Allreduce(&sig, &top, 1, MPI_INT, MPI_MAX, w->comm);
    return 128 + (top ? top : SIGINT);
  case VT_MPI_FAIL: return 1;
  default: return 2;
  }
}

int vt_mpi_code_of(vt_status st) {
  if (st == VT_OK) return VT_MPI_OK;
  if (st == VT_ECANCELED) return VT_MPI_CANCELED;
  return st == VT_EFORMAT || st == VT_EUNSUPPORTED || st == VT_EIO || st == VT_EINVAL ? VT_MPI_BAD
                                                                                      : VT_MPI_FAIL;
}

int vt_mpi_node_share(const vt_mpi *w) {
  MPI_Comm node;
  int nrank = 0, nsize = 1;
  cpu_set_t mine, all, any;
  CPU_ZERO(&mine);
  if (sched_getaffinity(0, sizeof mine, &mine) != 0) return 0;
  int have = CPU_COUNT(&mine);
  if (MPI_Comm_split_type(w->comm, MPI_COMM_TYPE_SHARED, w->rank, MPI_INFO_NULL, &node) !=
      MPI_SUCCESS)
    return have;
  MPI_Comm_rank(node, &nrank);
  MPI_Comm_size(node, &nsize);
  /* The same set on every rank of the node (AND == OR): nobody divided it yet. */
  MPI_Allreduce(&mine, &all, (int)sizeof mine, MPI_BYTE, MPI_BAND, node);
  MPI_Allreduce(&mine, &any, (int)sizeof mine, MPI_BYTE, MPI_BOR, node);
  MPI_Comm_free(&node);
  if (nsize < 2 || !CPU_EQUAL(&all, &any) || have < 1) return have;
  int cpus[CPU_SETSIZE], n = 0;
  for (int c = 0; c < CPU_SETSIZE; c++)
    if (CPU_ISSET(c, &mine)) cpus[n++] = c;
  cpu_set_t share;
  CPU_ZERO(&share);
  int lo = (int)((int64_t)nrank * n / nsize), hi = (int)((int64_t)(nrank + 1) * n / nsize);
  if (hi <= lo) { /* more ranks than CPUs: ranks take turns on them */
    lo = nrank % n;
    hi = lo + 1;
  }
  for (int i = lo; i < hi; i++) CPU_SET(cpus[i], &share);
  if (sched_setaffinity(0, sizeof share, &share) != 0) return have;
  return hi - lo;
}

int vt_mpi_setup(const vt_mpi *w, int (*fn)(void *ctx), void *ctx) {
  int rc = -1, saved_err = -1, saved_out = -1;
  FILE *cap = tmpfile();
  char text[MSG_MAX];
  text[0] = '\0';
  fflush(stdout);
  fflush(stderr);
  if (cap) {
    saved_err = dup(2);
    if (saved_err >= 0) dup2(fileno(cap), 2);
  }
  if (w->rank != 0) {
    FILE *null = fopen("/dev/null", "w");
    if (null) {
      saved_out = dup(1);
      if (saved_out >= 0) dup2(fileno(null), 1);
      fclose(null);
    }
  }
  rc = fn(ctx);
  fflush(stdout);
  fflush(stderr);
  if (saved_out >= 0) {
    dup2(saved_out, 1);
    close(saved_out);
  }
  if (saved_err >= 0) {
    dup2(saved_err, 2);
    close(saved_err);
  }
  if (cap) {
    rewind(cap);
    size_t n = fread(text, 1, sizeof text - 1, cap);
    text[n] = '\0';
    fclose(cap);
  }
  /* -1 (go on) is the smallest outcome; a failure's exit status wins over --help's 0. */
  int code = rc < 0 ? -1 : rc, top = code;
  MPI_Allreduce(&code, &top, 1, MPI_INT, MPI_MAX, w->comm);
  if (top < 0) return -1;
  int mine = code == top ? w->rank : w->size, first = mine;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, w->comm);
  MPI_Bcast(text, MSG_MAX, MPI_CHAR, first, w->comm);
  if (w->rank == 0) {
    fputs(text, stderr);
    fflush(stderr);
  }
  return top;
}

int vt_mpi_buf_reserve(vt_mpi_buf *b, size_t extra) {
  if (b->cap - b->len >= extra) return 0;
  size_t cap = b->cap ? b->cap : 1 << 16;
  while (cap - b->len < extra) cap *= 2;
  char *p = realloc(b->p, cap);
  if (!p) return -1;
  b->p = p;
  b->cap = cap;
  return 0;
}

vt_status vt_mpi_buf_sink(void *ctx, const char *data, size_t len) {
  vt_mpi_buf *b = ctx;
  if (vt_mpi_buf_reserve(b, len)) {
    errno = ENOMEM;
    return VT_ENOMEM;
  }
  memcpy(b->p + b->len, data, len);
  b->len += len;
  return VT_OK;
}

int64_t vt_mpi_env_size(const char *name, int64_t def) {
  const char *s = getenv(name);
  if (!s || !*s) return def;
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  return errno || *end || v < 1 ? def : (int64_t)v;
}

double vt_mpi_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
