/* mpi/train_comm.c: the collective calls of training across processes (vitesse.h's
 * vt_train_comm) over MPI: exact sums as MPI_Allreduce with a 128-bit integer sum, broadcasts,
 * point-to-point and all-to-all byte messages. Messages of any size: they go in pieces of at most
 * 1 GiB (MPI counts are ints). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_cli.h"
#include "train_run.h"

#define PIECE ((size_t)1 << 30)
#define TAG_LEN 7701
#define TAG_DATA 7702

/* The MPI datatype of a vt_fix128 and the sum over it (created once per job). */
static MPI_Datatype fix_type = MPI_DATATYPE_NULL;
static MPI_Op fix_op = MPI_OP_NULL;

static void fix_sum(void *in, void *inout, int *len, MPI_Datatype *dt) {
  (void)dt;
  const vt_fix128 *a = in;
  vt_fix128 *b = inout;
  for (int i = 0; i < *len; i++) {
    const uint64_t lo = b[i].lo + a[i].lo;
    b[i].hi += a[i].hi + (lo < a[i].lo);
    b[i].lo = lo;
  }
}

static int comm_sum_fix(void *ctx, vt_fix128 *v, int64_t n) {
  const vt_mpi *w = ctx;
  for (int64_t at = 0; at < n; at += INT_MAX / 2) {
    int k = (int)(n - at < INT_MAX / 2 ? n - at : INT_MAX / 2);
    if (MPI_Allreduce(MPI_IN_PLACE, v + at, k, fix_type, fix_op, w->comm) != MPI_SUCCESS) return -1;
  }
  return 0;
}

static int comm_sum_i64(void *ctx, int64_t *v, int64_t n) {
  const vt_mpi *w = ctx;
  for (int64_t at = 0; at < n; at += INT_MAX / 2) {
    int k = (int)(n - at < INT_MAX / 2 ? n - at : INT_MAX / 2);
    if (MPI_Allreduce(MPI_IN_PLACE, v + at, k, MPI_INT64_T, MPI_SUM, w->comm) != MPI_SUCCESS)
      return -1;
  }
  return 0;
}

static int comm_bcast(void *ctx, void *buf, size_t len) {
  const vt_mpi *w = ctx;
  for (size_t at = 0; at < len; at += PIECE) {
    size_t k = len - at < PIECE ? len - at : PIECE;
    if (MPI_Bcast((char *)buf + at, (int)k, MPI_BYTE, 0, w->comm) != MPI_SUCCESS) return -1;
  }
  return 0;
}

static int comm_send(void *ctx, int to, const void *buf, size_t len) {
  const vt_mpi *w = ctx;
  uint64_t n = len;
  if (MPI_Send(&n, 1, MPI_UINT64_T, to, TAG_LEN, w->comm) != MPI_SUCCESS) return -1;
  for (size_t at = 0; at < len; at += PIECE) {
    size_t k = len - at < PIECE ? len - at : PIECE;
    if (MPI_Send((const char *)buf + at, (int)k, MPI_BYTE, to, TAG_DATA, w->comm) != MPI_SUCCESS)
      return -1;
  }
  return 0;
}

static int comm_recv(void *ctx, int from, void **buf, size_t *len) {
  const vt_mpi *w = ctx;
  uint64_t n = 0;
  *buf = NULL;
  *len = 0;
  if (MPI_Recv(&n, 1, MPI_UINT64_T, from, TAG_LEN, w->comm, MPI_STATUS_IGNORE) != MPI_SUCCESS)
    return -1;
  char *b = malloc(n ? (size_t)n : 1);
  int rc = 0;
  for (size_t at = 0; at < n; at += PIECE) {
    size_t k = n - at < PIECE ? n - at : PIECE;
    /* without memory, the pieces still have to be taken off the wire */
    char scratch[1];
    if (MPI_Recv(b ? b + at : scratch, b ? (int)k : 0, MPI_BYTE, from, TAG_DATA, w->comm,
                 MPI_STATUS_IGNORE) != MPI_SUCCESS)
      rc = -1;
  }
  if (!b || rc) {
    free(b);
    return -1;
  }
  *buf = b;
  *len = (size_t)n;
  return 0;
}

/* Posts the pieces of one message between this rank and `peer` (receive or send). */
static int post(const vt_mpi *w, char *p, size_t len, int peer, int recv, MPI_Request **req,
                int *n_req, int *cap) {
  for (size_t at = 0; at < len; at += PIECE) {
    if (*n_req == *cap) {
      int nc = *cap ? 2 * *cap : 64;
      MPI_Request *r = realloc(*req, (size_t)nc * sizeof *r);
      if (!r) return -1;
      *req = r;
      *cap = nc;
    }
    size_t k = len - at < PIECE ? len - at : PIECE;
    int rc = recv ? MPI_Irecv(p + at, (int)k, MPI_BYTE, peer, TAG_DATA, w->comm, &(*req)[*n_req])
                  : MPI_Isend(p + at, (int)k, MPI_BYTE, peer, TAG_DATA, w->comm, &(*req)[*n_req]);
    if (rc != MPI_SUCCESS) return -1;
    (*n_req)++;
  }
  return 0;
}

static int comm_exchange(void *ctx, const void *out, const size_t *out_len, void **in,
                         size_t *in_len) {
  const vt_mpi *w = ctx;
  const int P = w->size;
  uint64_t *ol = calloc((size_t)P, sizeof *ol), *il = calloc((size_t)P, sizeof *il);
  MPI_Request *req = NULL;
  int n_req = 0, cap = 0, rc = -1;
  char *b = NULL;
  *in = NULL;
  if (!ol || !il) goto done; /* the job cannot go on: MPI's errors abort it anyway */
  for (int i = 0; i < P; i++) ol[i] = out_len[i];
  if (MPI_Alltoall(ol, 1, MPI_UINT64_T, il, 1, MPI_UINT64_T, w->comm) != MPI_SUCCESS) goto done;
  size_t total = 0, at = 0;
  for (int i = 0; i < P; i++) total += (size_t)il[i];
  if (!(b = malloc(total ? total : 1))) goto done;
  for (int i = 0; i < P; i++) {
    in_len[i] = (size_t)il[i];
    if (i != w->rank && post(w, b + at, in_len[i], i, 1, &req, &n_req, &cap)) goto done;
    at += in_len[i];
  }
  at = 0;
  for (int i = 0; i < P; i++) {
    if (i == w->rank) {
      size_t to = 0;
      for (int j = 0; j < i; j++) to += in_len[j];
      if (out_len[i]) memcpy(b + to, (const char *)out + at, out_len[i]);
    } else if (post(w, (char *)out + at, out_len[i], i, 0, &req, &n_req, &cap)) {
      goto done;
    }
    at += out_len[i];
  }
  if (MPI_Waitall(n_req, req, MPI_STATUSES_IGNORE) != MPI_SUCCESS) goto done;
  *in = b;
  b = NULL;
  rc = 0;
done:
  free(b);
  free(req);
  free(ol);
  free(il);
  return rc;
}

static int comm_gather_all(void *ctx, const void *mine, size_t len, void **all, size_t *all_len) {
  const vt_mpi *w = ctx;
  const int P = w->size;
  uint64_t n = len, *lens = malloc((size_t)P * sizeof *lens);
  int *cnt = malloc((size_t)P * sizeof *cnt), *disp = malloc((size_t)P * sizeof *disp);
  char *b = NULL;
  int rc = -1;
  *all = NULL;
  *all_len = 0;
  if (!lens || !cnt || !disp) goto done;
  if (MPI_Allgather(&n, 1, MPI_UINT64_T, lens, 1, MPI_UINT64_T, w->comm) != MPI_SUCCESS) goto done;
  size_t total = 0;
  for (int i = 0; i < P; i++) total += (size_t)lens[i];
  if (!(b = malloc(total ? total : 1))) goto done;
  if (total <= INT_MAX) { /* one collective */
    for (int i = 0, at = 0; i < P; at += (int)lens[i++]) {
      cnt[i] = (int)lens[i];
      disp[i] = at;
    }
    if (MPI_Allgatherv(mine, (int)len, MPI_BYTE, b, cnt, disp, MPI_BYTE, w->comm) != MPI_SUCCESS)
      goto done;
  } else { /* each rank's bytes broadcast in pieces */
    size_t at = 0;
    for (int r = 0; r < P; at += (size_t)lens[r++]) {
      if (r == w->rank && len) memcpy(b + at, mine, len);
      for (size_t k = 0; k < lens[r]; k += PIECE) {
        size_t m = lens[r] - k < PIECE ? (size_t)lens[r] - k : PIECE;
        if (MPI_Bcast(b + at + k, (int)m, MPI_BYTE, r, w->comm) != MPI_SUCCESS) goto done;
      }
    }
  }
  *all = b;
  *all_len = total;
  b = NULL;
  rc = 0;
done:
  free(b);
  free(lens);
  free(cnt);
  free(disp);
  return rc;
}

int vt_mpi_train_comm(const vt_mpi *w, vt_train_comm *c) {
  memset(c, 0, sizeof *c);
  if (fix_type == MPI_DATATYPE_NULL) {
    if (MPI_Type_contiguous(2, MPI_UINT64_T, &fix_type) != MPI_SUCCESS ||
        MPI_Type_commit(&fix_type) != MPI_SUCCESS || MPI_Op_create(fix_sum, 1, &fix_op))
      return -1;
  }
  c->rank = w->rank;
  c->size = w->size;
  c->ctx = (void *)w;
  c->sum_fix = comm_sum_fix;
  c->sum_i64 = comm_sum_i64;
  c->gather_all = comm_gather_all;
  c->bcast = comm_bcast;
  c->send = comm_send;
  c->recv = comm_recv;
  c->exchange = comm_exchange;
  return 0;
}
