/* tests/test_sched.c: the batch scheduler with a synthetic job: output strictly in batch order
 * whatever order batches finish in, at most `slots` batches in flight, one queue per plan node
 * and stealing across them (4-node synthetic topology; nothing is bound), a cancel that flushes
 * an in-order prefix, failures in read, work and write, an empty input, reuse across runs, and
 * the progress callback. Also run under ThreadSanitizer (label sched). */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "sched/scheduler.h"
#include "test_util.h"

static int replicas_made;        /* model replicas made by the scheduler being tested */
static int workers_write;        /* the jobs run with write_on_workers (the ordered commit) */
static int read_light;           /* the jobs say their reads are light (read_light) */
static atomic_int wrong_replica; /* a worker saw another node's replica */

typedef struct tjob {
  int64_t n_batches;
  int64_t next;          /* next batch to read */
  int64_t fail_read_at;  /* -1: never */
  int64_t fail_work_at;  /* -1: never */
  int64_t fail_write_at; /* -1: never */
  int64_t cancel_after;  /* set the cancel flag after this many batches written; -1: never */
  int slow_worker0_ms;   /* worker 0 sleeps this long on each of its first batches */
  int slots;
  atomic_int cancel;
  atomic_int worker0_batches;
  pthread_t caller;    /* the thread that called vt_sched_run */
  atomic_int in_write; /* write() calls in progress: never more than one */
  /* Checked after the run (written is also read by the reader, while workers write): */
  _Atomic int64_t written; /* batches written, which must be 0, 1, 2, ... */
  int order_ok, content_ok, bound_ok;
  int overlap;                /* two write() calls ran at once */
  int on_caller, off_caller;  /* write() calls on the calling thread, on another one */
  atomic_int work_off_caller; /* work() calls on another thread than the calling one */
  int writes_after_failure;
  int progress_final;
} tjob;

static void spin(uint64_t n) {
  volatile uint64_t x = 0;
  for (uint64_t i = 0; i < n; i++) x = x + i;
  (void)x;
}

static int job_read(void *ctx, vt_sched_batch *b) {
  tjob *j = ctx;
  if (j->next >= j->n_batches) return 0;
  if (j->next == j->fail_read_at) {
    snprintf(b->err, sizeof b->err, "bad input at batch %lld", (long long)j->next);
    return VT_EFORMAT;
  }
  b->first = j->next * 10;
  b->items = 1 + j->next % 7;
  b->tokens = 3 * b->items;
  /* In flight: read (this one included) minus written never exceeds the ring. */
  if (j->next + 1 - j->written > j->slots) j->bound_ok = 0;
  j->next++;
  return 1;
}

static vt_status job_work(void *ctx, const vt_sched_worker *w, vt_sched_batch *b) {
  tjob *j = ctx;
  if (!pthread_equal(pthread_self(), j->caller)) atomic_fetch_add(&j->work_off_caller, 1);
  if (*(const int *)w->model != w->node) atomic_store(&wrong_replica, 1);
  if (w->id == 0 && j->slow_worker0_ms && atomic_fetch_add(&j->worker0_batches, 1) < 3) {
    struct timespec ts = {0, (long)j->slow_worker0_ms * 1000000L};
    nanosleep(&ts, NULL);
  }
  /* Scramble completion order: a pseudo-random amount of work per batch. */
  test_rng r = {(uint64_t)b->seq * 7919u};
  spin(test_next(&r) % 20000);
  if (b->seq == j->fail_work_at) {
    snprintf(b->err, sizeof b->err, "cannot process batch %lld", (long long)b->seq);
    return VT_EFORMAT;
  }
  if (vt_sched_buf_reserve(&b->out, 64) != VT_OK) return VT_ENOMEM;
  b->out.len += (size_t)snprintf(b->out.data + b->out.len, 64, "batch %lld first %lld\n",
                                 (long long)b->seq, (long long)b->first);
  return VT_OK;
}

static vt_status job_write(void *ctx, vt_sched_batch *b) {
  tjob *j = ctx;
  char want[64];
  if (atomic_fetch_add(&j->in_write, 1)) j->overlap = 1;
  if (pthread_equal(pthread_self(), j->caller))
    j->on_caller++;
  else
    j->off_caller++;
  spin(2000); /* long enough for a second writer, if there were one, to overlap */
  atomic_fetch_sub(&j->in_write, 1);
  if (j->fail_write_at >= 0 && j->written > j->fail_write_at) j->writes_after_failure++;
  if (b->seq != j->written) j->order_ok = 0;
  int n = snprintf(want, sizeof want, "batch %lld first %lld\n", (long long)j->written,
                   (long long)j->written * 10);
  if (b->out.len != (size_t)n || memcmp(b->out.data, want, (size_t)n)) j->content_ok = 0;
  if (b->seq == j->fail_write_at) return VT_EIO;
  j->written++;
  if (j->cancel_after >= 0 && j->written >= j->cancel_after) atomic_store(&j->cancel, 1);
  return VT_OK;
}

static void job_progress(void *ctx, const vt_sched_progress *p) {
  tjob *j = ctx;
  j->progress_final += p->final;
}

static void job_init(tjob *j, int64_t n, int slots) {
  memset(j, 0, sizeof *j);
  j->n_batches = n;
  j->fail_read_at = j->fail_work_at = j->fail_write_at = j->cancel_after = -1;
  j->slots = slots;
  j->order_ok = j->content_ok = j->bound_ok = 1;
}

static vt_status job_run(vt_sched *s, tjob *j, vt_sched_stats *st, char *err, size_t errlen) {
  vt_sched_job job = {j,     job_read,   job_work,      job_write, job_progress,
                      0.001, &j->cancel, workers_write, read_light};
  j->caller = pthread_self();
  vt_status rc = vt_sched_run(s, &job, st, err, errlen);
  /* Writes are one at a time, and made where the mode says: with worker commit and a team with
   * workers, never on the calling thread (which only reads); without, always on it. */
  EXPECT(!j->overlap, "write() calls never overlap");
  if (workers_write && st->n_workers > 0 && st->write_on_workers)
    EXPECT(j->on_caller == 0, "worker commit: %d writes on the calling thread", j->on_caller);
  if (!workers_write)
    EXPECT(j->off_caller == 0 && !st->write_on_workers,
           "coordinator writes: %d writes on another thread", j->off_caller);
  /* One worker and light reads: the calling thread works and writes every batch itself. */
  if (read_light && st->n_workers == 1)
    EXPECT(!atomic_load(&j->work_off_caller) && !j->off_caller && !st->write_on_workers,
           "light reads, one worker: %d batches worked and %d written on another thread",
           atomic_load(&j->work_off_caller), j->off_caller);
  return rc;
}

/* The "model": each replica records the order it was made in, which is its plan node. */

static vt_status model_clone(const void *model, const vt_mem *mem, void **out) {
  static int node0 = 0; /* without memory (one NUMA node): the model as it is, node 0's */
  int *r = mem ? vt_mem_alloc(mem, sizeof *r) : &node0;
  if (!r) return VT_ENOMEM;
  (void)model; /* &replicas_made */
  *r = replicas_made++;
  *out = r;
  return VT_OK;
}

static void model_free(void *replica, const vt_mem *mem) {
  if (mem) vt_mem_free(mem, replica, sizeof(int));
}

/* A scheduler for `threads` workers on topology `src` (NULL: this machine). */
static vt_sched *make(vt_topo *t, vt_plan *p, const char *src, int threads, vt_bind bind,
                      int slots) {
  char err[700];
  vt_sched *s = NULL;
  if (vt_topo_load(t, src, err, sizeof err) != VT_OK ||
      vt_topo_plan(t, threads, bind, p) != VT_OK) {
    fprintf(stderr, "topology %s: %s\n", src ? src : "(this machine)", err);
    return NULL;
  }
  vt_sched_config cfg = {t, p, slots, 1 << 16, &replicas_made, model_clone, model_free};
  replicas_made = 0;
  if (vt_sched_create(&s, &cfg) != VT_OK) return NULL;
  return s;
}

static void unmake(vt_sched *s, vt_topo *t, vt_plan *p) {
  vt_sched_destroy(s);
  vt_plan_free(p);
  vt_topo_free(t);
}

static void check_order(const char *src, int threads, vt_bind bind, int slots) {
  vt_topo t;
  vt_plan p;
  vt_sched *s = make(&t, &p, src, threads, bind, slots);
  EXPECT(s != NULL, "scheduler for %s", src ? src : "this machine");
  if (!s) return;
  for (int run = 0; run < 2; run++) { /* a scheduler runs as often as asked */
    tjob j;
    vt_sched_stats st;
    job_init(&j, 300, vt_sched_slots(s));
    vt_status rc = job_run(s, &j, &st, NULL, 0);
    const char *where = src ? src : "this machine";
    EXPECT(rc == VT_OK, "%s run %d: status %d", where, run, rc);
    EXPECT(j.written == 300, "%s: %lld batches written", where, (long long)j.written);
    EXPECT(j.order_ok && j.content_ok, "%s: batches written in order, intact", where);
    EXPECT(j.bound_ok && st.max_in_flight <= vt_sched_slots(s), "%s: in flight %d > slots %d",
           where, st.max_in_flight, vt_sched_slots(s));
    EXPECT(j.progress_final == 1, "%s: one final progress call", where);
    int64_t batches = 0, items = 0;
    for (int w = 0; w < st.n_workers; w++) {
      batches += st.workers[w].batches;
      items += st.workers[w].items;
    }
    EXPECT(batches == 300 && st.batches_written == 300, "%s: every batch processed once", where);
    EXPECT(items == st.items_written, "%s: items add up", where);
    EXPECT(st.n_nodes == p.n_nodes, "%s: one queue per plan node", where);
    EXPECT(replicas_made == p.n_nodes, "%s: %d model replicas for %d nodes", where, replicas_made,
           p.n_nodes);
    EXPECT(!atomic_load(&wrong_replica), "%s: every worker reads its own node's replica", where);
  }
  unmake(s, &t, &p);
}

/* Two nodes, one worker each; worker 0 is slow on its first batches, so batches queued on node 0
 * wait and the worker of node 1 steals them. */
TEST(steal) {
  vt_topo t;
  vt_plan p;
  vt_sched *s = make(&t, &p, "numa:2 core:1", 2, VT_BIND_CORE, 16);
  REQUIRE(s != NULL, "scheduler");
  tjob j;
  vt_sched_stats st;
  job_init(&j, 200, 16);
  j.slow_worker0_ms = 30;
  EXPECT(job_run(s, &j, &st, NULL, 0) == VT_OK, "steal run");
  EXPECT(j.order_ok && j.written == 200, "steal run: order");
  EXPECT(st.n_nodes == 2, "two queues");
  EXPECT(st.workers[1].steals > 0, "worker 1 stole from node 0 (%lld steals)",
         (long long)st.workers[1].steals);
  unmake(s, &t, &p);
}

/* A canceled run stops reading, writes an in-order prefix; the scheduler runs again after. */
TEST(cancel) {
  vt_topo t;
  vt_plan p;
  vt_sched *s = make(&t, &p, "numa:4 core:1", 4, VT_BIND_CORE, 0);
  REQUIRE(s != NULL, "scheduler");
  tjob j;
  vt_sched_stats st;
  char err[256];
  job_init(&j, 100000, vt_sched_slots(s));
  j.cancel_after = 25;
  vt_status rc = job_run(s, &j, &st, err, sizeof err);
  EXPECT(rc == VT_ECANCELED, "cancel: status %d", rc);
  EXPECT(st.canceled, "cancel: stats say canceled");
  EXPECT(j.order_ok && j.content_ok, "cancel: the written batches are an in-order prefix");
  EXPECT(j.written >= 25 && j.written < 100000, "cancel: %lld written", (long long)j.written);
  EXPECT(st.batches_written + st.batches_dropped <= st.batches_read, "cancel: accounting");
  EXPECT(j.next <= 25 + vt_sched_slots(s), "cancel: reading stopped (%lld read)",
         (long long)j.next);
  /* The scheduler is reusable after a cancel. */
  job_init(&j, 50, vt_sched_slots(s));
  EXPECT(job_run(s, &j, &st, NULL, 0) == VT_OK && j.written == 50 && j.order_ok,
         "run after a cancel");
  unmake(s, &t, &p);
}

/* One worker: batches run in order, so a failing batch of work follows exactly the batches before
 * it, written. A failed read, or a cancel after 25 written, stops with an in-order prefix: the
 * batches still queued are dropped. Where the calling thread works each batch as soon as it reads
 * it, none is ever queued: exactly 20 and 25. */
TEST(work_failure_one_worker) {
  vt_topo t;
  vt_plan p;
  char err[256];
  vt_sched_stats st;
  tjob j;
  vt_sched *s = make(&t, &p, NULL, 1, VT_BIND_NONE, 0);
  REQUIRE(s != NULL, "scheduler");
  job_init(&j, 100, vt_sched_slots(s));
  j.fail_work_at = 37;
  vt_status rc = job_run(s, &j, &st, err, sizeof err);
  EXPECT(rc == VT_EFORMAT, "work failure: status %d", rc);
  EXPECT(strstr(err, "batch 37") != NULL, "work failure message: '%s'", err);
  EXPECT(j.written == 37 && j.order_ok, "work failure: batches 0..36 written (%lld)",
         (long long)j.written);
  job_init(&j, 100, vt_sched_slots(s));
  j.fail_read_at = 20;
  rc = job_run(s, &j, &st, err, sizeof err);
  EXPECT(rc == VT_EFORMAT && strstr(err, "bad input at batch 20"), "read failure: '%s'", err);
  EXPECT(j.written <= 20 && (!read_light || j.written == 20) && j.order_ok,
         "read failure: an in-order prefix of batches 0..19 written (%lld)", (long long)j.written);
  job_init(&j, 100000, vt_sched_slots(s));
  j.cancel_after = 25;
  rc = job_run(s, &j, &st, err, sizeof err);
  EXPECT(rc == VT_ECANCELED && j.order_ok && j.written >= 25 && (!read_light || j.written == 25),
         "cancel: status %d, %lld written", rc, (long long)j.written);
  unmake(s, &t, &p);
}

/* Work, read and write failures on 4 workers; an empty input. */
TEST(failures_four_workers) {
  vt_topo t;
  vt_plan p;
  char err[256];
  vt_sched_stats st;
  tjob j;
  vt_status rc;
  vt_sched *s = make(&t, &p, "numa:4 core:1", 4, VT_BIND_CORE, 0);
  REQUIRE(s != NULL, "scheduler");
  job_init(&j, 100, vt_sched_slots(s));
  j.fail_work_at = 37;
  rc = job_run(s, &j, &st, err, sizeof err);
  EXPECT(rc == VT_EFORMAT && strstr(err, "batch 37"), "4 workers: work failure %d '%s'", rc, err);
  EXPECT(j.written <= 37 && j.order_ok, "4 workers: an in-order prefix before the failure");

  job_init(&j, 100, vt_sched_slots(s));
  j.fail_read_at = 20;
  rc = job_run(s, &j, &st, err, sizeof err);
  EXPECT(rc == VT_EFORMAT && strstr(err, "bad input at batch 20"), "read failure %d '%s'", rc, err);
  EXPECT(j.written <= 20 && j.order_ok, "read failure: prefix");

  job_init(&j, 100, vt_sched_slots(s));
  j.fail_write_at = 10;
  rc = job_run(s, &j, &st, err, sizeof err);
  EXPECT(rc == VT_EIO, "write failure: status %d", rc);
  EXPECT(j.written == 10 && j.writes_after_failure == 0, "write failure: nothing written after");

  job_init(&j, 0, vt_sched_slots(s));
  rc = job_run(s, &j, &st, err, sizeof err);
  EXPECT(rc == VT_OK && j.written == 0 && st.batches_read == 0, "empty input");
  unmake(s, &t, &p);
}

/* In-order, intact output and per-node replicas on this machine: 1 to 3 workers, each binding. */
TEST(order_this_machine) {
  check_order(NULL, 1, VT_BIND_CORE, 0);
  check_order(NULL, 2, VT_BIND_CORE, 4);
  check_order(NULL, 3, VT_BIND_NONE, 0);
  check_order(NULL, 2, VT_BIND_NUMA, 0);
}

/* The same on synthetic multi-node topologies. */
TEST(order_synthetic_nodes) {
  check_order("numa:4 core:4", 4, VT_BIND_CORE, 0);
  check_order("pack:2 numa:2 core:8 pu:2", 6, VT_BIND_CORE, 5);
}

/* Every case again with the ordered commit: the workers write (write_on_workers), the
 * coordinator only reads; same order, bounds, failures and cancel. */
TEST(worker_commit) {
  workers_write = 1;
  order_this_machine();
  order_synthetic_nodes();
  steal();
  cancel();
  work_failure_one_worker();
  failures_four_workers();
  workers_write = 0;
}

/* Jobs whose reads are light: one worker's batches are worked on the calling thread (no team),
 * with the same order, bounds, failures and cancel (job_run checks the thread); several workers
 * as before. Asked with the ordered commit too, which a run without worker threads cannot use. */
TEST(light_reads) {
  read_light = 1;
  for (workers_write = 0; workers_write < 2; workers_write++) {
    order_this_machine();
    work_failure_one_worker();
    failures_four_workers();
  }
  workers_write = read_light = 0;
}

TEST_MAIN(CASE(order_this_machine), CASE(order_synthetic_nodes), CASE(steal), CASE(cancel),
          CASE(work_failure_one_worker), CASE(failures_four_workers), CASE(worker_commit),
          CASE(light_reads))
