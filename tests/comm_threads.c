/* tests/comm_threads.c: the thread-backed vt_train_comm (see comm_threads.h).
 *
 * A call runs in two steps between three points: each member posts its input (pointer and
 * length) in its slot, and after the first barrier every member reads all slots and computes
 * its own result into memory of its own, noting whether that worked; after the second barrier
 * it reads every member's note, and the inputs are no longer read by anyone, so it may write
 * its result over its input. A member leaves the call only after the second barrier, and posts
 * its next input only after leaving, when nobody reads the slots any more. */
#define _POSIX_C_SOURCE 200809L
#include "comm_threads.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct member {
  struct vt_comm_threads *g;
  int rank;
} member;

/* A message sent point to point, waiting in its (from, to) mailbox. */
typedef struct letter {
  struct letter *next;
  size_t len;
  char *data;
} letter;

struct vt_comm_threads {
  int size;
  pthread_barrier_t bar;
  pthread_mutex_t mu; /* the mailboxes */
  pthread_cond_t cv;
  letter **box; /* size x size: box[from * size + to], oldest first */
  member *members;
  const void **in; /* per member: its input */
  size_t *len;     /* its length in bytes */
  int *ok;         /* its result was made */
  long gathers;
};

vt_comm_threads *vt_comm_threads_create(int size) {
  vt_comm_threads *g = calloc(1, sizeof *g);
  if (!g) return NULL;
  g->size = size;
  g->members = calloc((size_t)size, sizeof *g->members);
  g->in = calloc((size_t)size, sizeof *g->in);
  g->len = calloc((size_t)size, sizeof *g->len);
  g->ok = calloc((size_t)size, sizeof *g->ok);
  g->box = calloc((size_t)size * (size_t)size, sizeof *g->box);
  if (size < 1 || !g->members || !g->in || !g->len || !g->ok || !g->box ||
      pthread_barrier_init(&g->bar, NULL, (unsigned)size) != 0) {
    free(g->box);
    free(g->members);
    free(g->in);
    free(g->len);
    free(g->ok);
    free(g);
    return NULL;
  }
  for (int r = 0; r < size; r++) g->members[r] = (member){g, r};
  pthread_mutex_init(&g->mu, NULL);
  pthread_cond_init(&g->cv, NULL);
  return g;
}

void vt_comm_threads_destroy(vt_comm_threads *g) {
  if (!g) return;
  pthread_barrier_destroy(&g->bar);
  pthread_mutex_destroy(&g->mu);
  pthread_cond_destroy(&g->cv);
  for (int i = 0; i < g->size * g->size; i++)
    while (g->box[i]) {
      letter *l = g->box[i];
      g->box[i] = l->next;
      free(l->data);
      free(l);
    }
  free(g->box);
  free(g->members);
  free(g->in);
  free(g->len);
  free(g->ok);
  free(g);
}

long vt_comm_threads_gathers(const vt_comm_threads *g) { return g->gathers; }

/* Posts this member's input and waits for everyone's. */
static void post(member *m, const void *in, size_t len) {
  m->g->in[m->rank] = in;
  m->g->len[m->rank] = len;
  pthread_barrier_wait(&m->g->bar);
}

/* Notes whether this member's result was made and waits for everyone's; 0 when all were. */
static int settle(member *m, int ok) {
  vt_comm_threads *g = m->g;
  g->ok[m->rank] = ok;
  pthread_barrier_wait(&g->bar);
  int all = 1;
  for (int r = 0; r < g->size; r++) all &= g->ok[r];
  /* the notes are read before the next call's first barrier, which every member reaches only
   * after this point: no note is overwritten while read */
  return all ? 0 : -1;
}

static int sum_i64(void *ctx, int64_t *v, int64_t n) {
  member *m = ctx;
  post(m, v, (size_t)n * sizeof *v);
  int64_t *sum = calloc((size_t)n + 1, sizeof *sum);
  for (int r = 0; sum && r < m->g->size; r++) {
    const int64_t *x = m->g->in[r];
    for (int64_t i = 0; i < n; i++) sum[i] += x[i];
  }
  int st = settle(m, sum != NULL);
  if (st == 0) memcpy(v, sum, (size_t)n * sizeof *v);
  free(sum);
  return st;
}

static int sum_fix(void *ctx, vt_fix128 *v, int64_t n) {
  member *m = ctx;
  post(m, v, (size_t)n * sizeof *v);
  vt_fix128 *sum = calloc((size_t)n + 1, sizeof *sum);
  for (int r = 0; sum && r < m->g->size; r++) {
    const vt_fix128 *x = m->g->in[r];
    for (int64_t i = 0; i < n; i++) vt_fix_add(&sum[i], x[i]);
  }
  int st = settle(m, sum != NULL);
  if (st == 0) memcpy(v, sum, (size_t)n * sizeof *v);
  free(sum);
  return st;
}

static int gather_all(void *ctx, const void *mine, size_t len, void **all, size_t *all_len) {
  member *m = ctx;
  vt_comm_threads *g = m->g;
  post(m, mine, len);
  size_t total = 0;
  for (int r = 0; r < g->size; r++) total += g->len[r];
  char *buf = malloc(total + 1);
  for (size_t r = 0, off = 0; buf && r < (size_t)g->size; off += g->len[r++])
    if (g->len[r]) memcpy(buf + off, g->in[r], g->len[r]);
  if (m->rank == 0) g->gathers++;
  if (settle(m, buf != NULL) != 0) {
    free(buf);
    return -1;
  }
  *all = buf;
  *all_len = total;
  return 0;
}

static int bcast(void *ctx, void *buf, size_t len) {
  member *m = ctx;
  post(m, buf, len);
  if (m->rank != 0 && len) memcpy(buf, m->g->in[0], len);
  return settle(m, 1);
}

/* What a member posts for an exchange. */
typedef struct parcel {
  const char *out;
  const size_t *out_len;
} parcel;

static int exchange(void *ctx, const void *out, const size_t *out_len, void **in,
                    size_t *in_len) {
  member *m = ctx;
  vt_comm_threads *g = m->g;
  const parcel mine = {out, out_len};
  post(m, &mine, sizeof mine);
  size_t total = 0;
  for (int r = 0; r < g->size; r++) total += ((const parcel *)g->in[r])->out_len[m->rank];
  char *buf = malloc(total + 1);
  for (int r = 0, at = 0; buf && r < g->size; r++) {
    const parcel *p = g->in[r];
    size_t off = 0;
    for (int j = 0; j < m->rank; j++) off += p->out_len[j];
    in_len[r] = p->out_len[m->rank];
    if (in_len[r]) memcpy(buf + at, p->out + off, in_len[r]);
    at += (int)in_len[r];
  }
  if (settle(m, buf != NULL) != 0) {
    free(buf);
    return -1;
  }
  *in = buf;
  return 0;
}

static int send_to(void *ctx, int to, const void *buf, size_t len) {
  member *m = ctx;
  vt_comm_threads *g = m->g;
  letter *l = calloc(1, sizeof *l);
  if (!l || !(l->data = malloc(len + 1))) {
    free(l);
    return -1;
  }
  if (len) memcpy(l->data, buf, len);
  l->len = len;
  pthread_mutex_lock(&g->mu);
  letter **at = &g->box[m->rank * g->size + to];
  while (*at) at = &(*at)->next;
  *at = l;
  pthread_cond_broadcast(&g->cv);
  pthread_mutex_unlock(&g->mu);
  return 0;
}

static int recv_from(void *ctx, int from, void **buf, size_t *len) {
  member *m = ctx;
  vt_comm_threads *g = m->g;
  pthread_mutex_lock(&g->mu);
  letter **box = &g->box[from * g->size + m->rank];
  while (!*box) pthread_cond_wait(&g->cv, &g->mu);
  letter *l = *box;
  *box = l->next;
  pthread_mutex_unlock(&g->mu);
  *buf = l->data;
  *len = l->len;
  free(l);
  return 0;
}

void vt_comm_threads_member(vt_comm_threads *g, int rank, vt_train_comm *c) {
  memset(c, 0, sizeof *c);
  c->rank = rank;
  c->size = g->size;
  c->ctx = &g->members[rank];
  c->sum_fix = sum_fix;
  c->sum_i64 = sum_i64;
  c->gather_all = gather_all;
  c->bcast = bcast;
  c->send = send_to;
  c->recv = recv_from;
  c->exchange = exchange;
}
