/* engine/sched/scheduler.c: the batch engine (see scheduler.h): slot ring, per-node queues,
 * workers, and the coordinator loop that reads, dispatches and writes in order. */
#define _POSIX_C_SOURCE 200809L

#include "sched/scheduler.h"
#include "core/clock.h"

#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alloc/arena.h"
#include "alloc/heap_stats.h"
#include "alloc/node_mem.h"

enum { SLOT_FREE, SLOT_QUEUED, SLOT_RUNNING, SLOT_DONE, SLOT_FAILED, SLOT_DROPPED };

typedef struct slot {
  vt_sched_batch b;
  int state;
  vt_status status;
} slot;

typedef struct node_queue {
  int *ring; /* slot indices, FIFO: oldest batch first */
  int head, count;
  int workers, idle;
  pthread_cond_t cv; /* this node's idle workers wait here */
  vt_node_mem mem;
  void *replica;
  int shared; /* replica is the model's own object (one NUMA node): not freed */
} node_queue;

typedef struct worker {
  _Alignas(64) vt_sched *s; /* one cache line or more per worker: stats are written often */
  int id, node;
  vt_arena *arena;
  vt_sched_worker_stats st;
} worker;

struct vt_sched {
  const vt_topo *topo;
  const vt_plan *plan;
  int n_slots;
  slot *slots;
  int n_nodes;
  node_queue *nodes;
  int n_workers;
  int active; /* workers the OpenMP team gave threads to, this run (0 .. n_workers) */
  worker *workers;
  vt_sched_worker_stats *wstats; /* copies handed out in vt_sched_stats */
  void (*model_free)(void *replica, const vt_mem *mem);
  int membind;
  pthread_mutex_t mu;
  pthread_cond_t done_cv; /* the coordinator waits here (CLOCK_MONOTONIC) */
  /* Run state, under mu. */
  const vt_sched_job *job;
  int eof;     /* no batch will be queued any more: idle workers exit */
  int running; /* batches inside work() */
  int failed;  /* some work() failed */
  int rr;      /* where the dispatcher's tie-break starts */
  /* The ordered commit (commit_ready), under mu: batches next_write .. next_read-1 are in
   * flight; `committing` is set while one thread writes, so writes are one at a time and in
   * order whoever makes them. */
  int64_t next_read, next_write;
  int writing;            /* 0 once a gap (a failed or dropped batch) or a write error stopped it */
  int committing;         /* a thread is inside job->write */
  int stopping;           /* the coordinator stops the run (cancel or failure) */
  vt_status write_status; /* the first write() failure */
  int workers_write;      /* this run, the workers commit (job->write_on_workers, and workers) */
  int coord_waiting;      /* the coordinator sleeps on done_cv */
  int64_t wake_in_flight; /* ... and wants waking once no more batches than this are in flight */
  vt_sched_stats *rs;     /* the run's counters (written, write_seconds) */
};

/* CPU seconds the calling thread has used. */
static double thread_cpu_seconds(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)) return 0;
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

vt_status vt_sched_buf_reserve(vt_sched_buf *b, size_t extra) {
  if (b->cap - b->len >= extra) return VT_OK;
  if (extra > SIZE_MAX / 2 - b->len) return VT_ENOMEM;
  size_t cap = b->cap ? b->cap : 4096;
  while (cap - b->len < extra) cap *= 2;
  char *p = realloc(b->data, cap);
  if (!p) return VT_ENOMEM;
  b->data = p;
  b->cap = cap;
  return VT_OK;
}

int vt_sched_slots(const vt_sched *s) { return s->n_slots; }

/* ---- queues (caller holds mu) ---------------------------------------------------------------- */

static void queue_push(vt_sched *s, node_queue *q, int idx) {
  q->ring[(q->head + q->count) % s->n_slots] = idx;
  q->count++;
}

static int queue_pop(vt_sched *s, node_queue *q) {
  if (!q->count) return -1;
  int idx = q->ring[q->head];
  q->head = (q->head + 1) % s->n_slots;
  q->count--;
  return idx;
}

/* Takes the oldest batch queued on another node than `home` (the one the writer needs
 * soonest), or returns -1. */
static int queue_steal(vt_sched *s, int home) {
  int best = -1;
  for (int n = 0; n < s->n_nodes; n++) {
    node_queue *q = &s->nodes[n];
    if (n == home || !q->count) continue;
    if (best < 0 ||
        s->slots[q->ring[q->head]].b.seq < s->slots[s->nodes[best].ring[s->nodes[best].head]].b.seq)
      best = n;
  }
  return best < 0 ? -1 : queue_pop(s, &s->nodes[best]);
}

/* Queues slot `idx` on the node with the fewest queued batches per worker (ties rotate), and
 * wakes one of its idle workers, or else any idle worker (who will steal it). */
static void dispatch(vt_sched *s, int idx) {
  int best = -1;
  for (int i = 0; i < s->n_nodes; i++) {
    int n = (s->rr + i) % s->n_nodes;
    node_queue *q = &s->nodes[n];
    if (best < 0 ||
        (int64_t)q->count * s->nodes[best].workers < (int64_t)s->nodes[best].count * q->workers)
      best = n;
  }
  s->rr = (best + 1) % s->n_nodes;
  s->slots[idx].state = SLOT_QUEUED;
  queue_push(s, &s->nodes[best], idx);
  if (s->nodes[best].idle) {
    pthread_cond_signal(&s->nodes[best].cv);
    return;
  }
  for (int n = 0; n < s->n_nodes; n++)
    if (s->nodes[n].idle) {
      pthread_cond_signal(&s->nodes[n].cv);
      return;
    }
}

/* Marks every queued batch dropped and empties the queues. */
static int64_t drop_queued(vt_sched *s) {
  int64_t dropped = 0;
  for (int n = 0; n < s->n_nodes; n++) {
    int idx;
    while ((idx = queue_pop(s, &s->nodes[n])) >= 0) {
      s->slots[idx].state = SLOT_DROPPED;
      dropped++;
    }
  }
  return dropped;
}

static void wake_all(vt_sched *s) {
  for (int n = 0; n < s->n_nodes; n++) pthread_cond_broadcast(&s->nodes[n].cv);
}

/* ---- the ordered commit ---------------------------------------------------------------------- */

/* Whether the sleeping coordinator has something to do (caller holds mu): enough slots free to
 * read on, everything written, or a run that stops. */
static int coordinator_due(const vt_sched *s) {
  return s->coord_waiting && (s->next_read - s->next_write <= s->wake_in_flight || !s->writing ||
                              s->stopping || s->write_status != VT_OK);
}

/* Writes every complete batch at the head of the order, one at a time, on the calling thread
 * (caller holds mu; returns with it held, having released it around each write). One thread
 * commits at a time: a thread that finds another committing leaves, and the committer looks at
 * the head again after each write under mu, so a batch completed meanwhile is not missed. A
 * failed or dropped batch at the head (a gap) ends writing: nothing after it is written. */
static void commit_ready(vt_sched *s) {
  if (s->committing) return;
  s->committing = 1;
  vt_sched_stats *rs = s->rs;
  while (s->writing && s->write_status == VT_OK && s->next_write < s->next_read) {
    slot *sl = &s->slots[s->next_write % s->n_slots];
    if (sl->state == SLOT_FAILED || sl->state == SLOT_DROPPED) {
      s->writing = 0;
      break;
    }
    if (sl->state != SLOT_DONE) break;
    pthread_mutex_unlock(&s->mu);
    const double t0 = vt_clock_seconds(), c0 = thread_cpu_seconds();
    vt_status st = s->job->write(s->job->ctx, &sl->b);
    const double dt = vt_clock_seconds() - t0, dc = thread_cpu_seconds() - c0;
    pthread_mutex_lock(&s->mu);
    rs->write_seconds += dt;
    rs->write_cpu_seconds += dc;
    if (st != VT_OK) {
      s->write_status = st;
      s->writing = 0;
      break;
    }
    sl->state = SLOT_FREE;
    s->next_write++;
    rs->batches_written++;
    rs->items_written += sl->b.items;
    rs->tokens_written += sl->b.tokens;
  }
  s->committing = 0;
  if (coordinator_due(s)) pthread_cond_signal(&s->done_cv);
}

/* ---- workers --------------------------------------------------------------------------------- */

/* Runs the batch in slot `idx` on worker `w` (called with mu held; returns with it held). */
static void batch_run(vt_sched *s, worker *w, const vt_sched_worker *view, int idx, int stolen) {
  const vt_sched_job *job = s->job;
  slot *sl = &s->slots[idx];
  sl->state = SLOT_RUNNING;
  s->running++;
  pthread_mutex_unlock(&s->mu);

  double t0 = vt_clock_seconds();
  sl->b.out.len = 0;
  sl->b.aux.len = 0;
  sl->b.err[0] = '\0';
  vt_status st = job->work(job->ctx, view, &sl->b);
  w->st.busy_seconds += vt_clock_seconds() - t0;
  w->st.batches++;
  w->st.items += sl->b.items;
  w->st.tokens += sl->b.tokens;
  w->st.steals += stolen;

  pthread_mutex_lock(&s->mu);
  sl->status = st;
  /* A batch stopped by the cancel flag is dropped like one that never started: the run ends
   * as canceled, not failed. */
  const int canceled = st == VT_ECANCELED && job->cancel && atomic_load(job->cancel);
  sl->state = st == VT_OK ? SLOT_DONE : canceled ? SLOT_DROPPED : SLOT_FAILED;
  if (st != VT_OK && !canceled) s->failed = 1;
  s->running--;
  if (!s->workers_write) {
    /* Wake the coordinator only when it has something to do: the batch it writes next is
     * done, a batch failed or was dropped, or no batch runs any more (a stopping run waits for
     * that). A batch done out of order is written without a wake-up when its turn comes. */
    if (sl->b.seq == s->next_write || st != VT_OK || !s->running) pthread_cond_signal(&s->done_cv);
    return;
  }
  /* Worker commit: a failure wakes the coordinator (it stops the run); this worker then writes
   * whatever is complete at the head of the order, this batch and those after it included. */
  if (st != VT_OK) pthread_cond_signal(&s->done_cv);
  commit_ready(s);
}

/* The loop of worker `w` on its thread of the OpenMP team, until the coordinator says that
 * nothing more comes. hwloc binds the thread as planned (over any binding of OpenMP's), and
 * the thread gets its binding back at the end: the runtime reuses it for other regions. */
static void worker_main(worker *w) {
  vt_sched *s = w->s;
  vt_sched_worker view = {w->id, w->node, w->arena, s->nodes[w->node].replica};
  const double cpu0 = thread_cpu_seconds();
  hwloc_bitmap_t saved = s->plan->bind != VT_BIND_NONE ? vt_topo_bind_save(s->topo) : NULL;
  w->st.bound = s->plan->bind != VT_BIND_NONE && vt_topo_bind(s->topo, s->plan, w->id) == VT_OK;
  int64_t heap0 = vt_heap_thread_allocated();
  pthread_mutex_lock(&s->mu);
  for (;;) {
    node_queue *home = &s->nodes[w->node];
    int idx = queue_pop(s, home), stolen = 0;
    if (idx < 0) stolen = (idx = queue_steal(s, w->node)) >= 0;
    if (idx < 0) {
      if (s->eof) break;
      home->idle++;
      pthread_cond_wait(&home->cv, &s->mu);
      home->idle--;
      continue;
    }
    batch_run(s, w, &view, idx, stolen);
  }
  pthread_mutex_unlock(&s->mu);
  int64_t heap1 = vt_heap_thread_allocated();
  w->st.heap_bytes = heap0 >= 0 && heap1 >= 0 ? heap1 - heap0 : -1;
  vt_topo_bind_restore(s->topo, saved);
  w->st.cpu_seconds = thread_cpu_seconds() - cpu0;
}

/* ---- creation -------------------------------------------------------------------------------- */

vt_status vt_sched_create(vt_sched **out, const vt_sched_config *cfg) {
  vt_status st = VT_ENOMEM;
  const vt_plan *plan = cfg->plan;
  vt_sched *s = NULL;
  *out = NULL;
  if (plan->n_workers < 1 || plan->n_nodes < 1) return VT_EINVAL;
  s = calloc(1, sizeof *s);
  if (!s) return VT_ENOMEM;
  s->topo = cfg->topo;
  s->plan = plan;
  s->model_free = cfg->model_free;
  s->n_workers = plan->n_workers;
  s->n_nodes = plan->n_nodes;
  s->n_slots = cfg->slots > 0 ? cfg->slots : 4 * plan->n_workers;
  if (s->n_slots < 4) s->n_slots = 4;
  pthread_mutex_init(&s->mu, NULL);
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&s->done_cv, &ca);
  pthread_condattr_destroy(&ca);

  s->slots = calloc((size_t)s->n_slots, sizeof *s->slots);
  s->nodes = calloc((size_t)s->n_nodes, sizeof *s->nodes);
  s->workers = aligned_alloc(64, (size_t)s->n_workers * sizeof *s->workers);
  s->wstats = calloc((size_t)s->n_workers, sizeof *s->wstats);
  if (!s->slots || !s->nodes || !s->workers || !s->wstats) goto fail;
  memset(s->workers, 0, (size_t)s->n_workers * sizeof *s->workers);
  for (int i = 0; i < s->n_slots; i++) s->slots[i].b.slot = i;

  /* Node-bound memory only where workers are bound to the node: an unbound worker may run
   * anywhere, so its memory is ordinary. */
  s->membind = plan->bind != VT_BIND_NONE && cfg->topo->this_system;
  for (int n = 0; n < s->n_nodes; n++) {
    node_queue *q = &s->nodes[n];
    pthread_cond_init(&q->cv, NULL);
    q->ring = malloc((size_t)s->n_slots * sizeof *q->ring);
    if (!q->ring) goto fail;
    int numa = plan->bind == VT_BIND_NONE ? -1 : plan->nodes[n].numa;
    if ((st = vt_node_mem_init(&q->mem, cfg->topo->hw, numa)) != VT_OK) goto fail;
    s->membind &= q->mem.bound;
    /* On a machine of one NUMA node the model is in that node's memory already: the workers
     * read it as it is (model_clone without memory), one copy instead of two. */
    q->shared = cfg->topo->numa_nodes <= 1;
    if (cfg->model &&
        (st = cfg->model_clone(cfg->model, q->shared ? NULL : &q->mem.mem, &q->replica)) != VT_OK)
      goto fail;
    st = VT_ENOMEM;
  }
  for (int i = 0; i < s->n_workers; i++) {
    worker *w = &s->workers[i];
    w->s = s;
    w->id = i;
    w->node = plan->workers[i].node;
    s->nodes[w->node].workers++;
    if (vt_arena_create_in(&w->arena, cfg->arena_block, &s->nodes[w->node].mem.mem) != VT_OK)
      goto fail;
  }
  *out = s;
  return VT_OK;
fail:
  vt_sched_destroy(s);
  return st;
}

void vt_sched_destroy(vt_sched *s) {
  if (!s) return;
  if (s->workers)
    for (int i = 0; i < s->n_workers; i++) vt_arena_destroy(s->workers[i].arena);
  if (s->nodes)
    for (int n = 0; n < s->n_nodes; n++) {
      node_queue *q = &s->nodes[n];
      if (q->replica && s->model_free) s->model_free(q->replica, q->shared ? NULL : &q->mem.mem);
      vt_node_mem_fini(&q->mem);
      free(q->ring);
      pthread_cond_destroy(&q->cv);
    }
  if (s->slots)
    for (int i = 0; i < s->n_slots; i++) {
      free(s->slots[i].b.in.data);
      free(s->slots[i].b.out.data);
      free(s->slots[i].b.aux.data);
    }
  pthread_cond_destroy(&s->done_cv);
  pthread_mutex_destroy(&s->mu);
  free(s->slots);
  free(s->nodes);
  free(s->workers);
  free(s->wstats);
  free(s);
}

/* ---- the run --------------------------------------------------------------------------------- */

static void set_err(char *err, size_t errlen, const char *msg) {
  if (err && errlen) snprintf(err, errlen, "%s", msg);
}

static void run_reset(vt_sched *s, const vt_sched_job *job) {
  s->job = job;
  s->eof = s->running = s->failed = s->rr = 0;
  s->next_read = s->next_write = 0;
  s->writing = 1;
  s->committing = s->stopping = s->coord_waiting = 0;
  s->write_status = VT_OK;
  s->wake_in_flight = 0;
  for (int i = 0; i < s->n_slots; i++) s->slots[i].state = SLOT_FREE;
  for (int n = 0; n < s->n_nodes; n++) {
    s->nodes[n].head = s->nodes[n].count = s->nodes[n].idle = 0;
  }
  for (int i = 0; i < s->n_workers; i++) memset(&s->workers[i].st, 0, sizeof s->workers[i].st);
}

/* Tells the workers that nothing more comes (they leave their loops; the team then joins). */
static void workers_stop(vt_sched *s) {
  pthread_mutex_lock(&s->mu);
  s->eof = 1;
  wake_all(s);
  pthread_mutex_unlock(&s->mu);
}

/* Takes the oldest queued batch of any node, or returns -1 (caller holds mu). */
static int queue_take_any(vt_sched *s) { return queue_steal(s, -1); }

/* Calls the job's progress (without the lock, which the caller holds) when `interval` seconds
 * went by since *last; returns whether it did. */
static int progress_due(vt_sched *s, const vt_sched_job *job, const vt_sched_stats *rs,
                        double t_start, double *last, double interval) {
  const double t = vt_clock_seconds();
  if (!job->progress || t - *last < interval) return 0;
  vt_sched_progress pr = {rs->batches_written, rs->items_written, rs->tokens_written, t - t_start,
                          0};
  *last = t;
  pthread_mutex_unlock(&s->mu);
  job->progress(job->ctx, &pr);
  pthread_mutex_lock(&s->mu);
  return 1;
}

/* The coordinator: reads and dispatches on the calling thread (thread 0 of the team), and
 * writes in order unless the job lets the workers do it (write_on_workers), until the run ends,
 * then stops the workers. `team` is the number of threads the OpenMP team has: workers
 * 0 .. team-2 run; with none (a team of one, e.g. a run started inside the caller's own
 * parallel region without nested parallelism) the coordinator works and writes the batches
 * itself, as worker 0. Fills rs's run figures; returns the run's status. */
static vt_status coordinate(vt_sched *s, const vt_sched_job *job, int team, double t_start,
                            vt_sched_stats *rs, int *read_failed, char *err, size_t errlen) {
  vt_status result = VT_OK;
  const double cpu0 = thread_cpu_seconds();
  double inline_cpu = 0;
  const double pinterval = job->progress_seconds > 0 ? job->progress_seconds : 0.25;
  double t_progress = t_start;
  worker *w0 = &s->workers[0];
  vt_sched_worker view0 = {w0->id, w0->node, w0->arena, s->nodes[w0->node].replica};

  /* Heap use of the steady state: once the team is up (a thread start allocates its TLS
   * vector). */
  int64_t heap0 = vt_heap_thread_allocated();
  int reading = 1;
  pthread_mutex_lock(&s->mu);
  s->rs = rs;
  s->active = team - 1 < s->n_workers ? team - 1 : s->n_workers;
  /* Who writes: the workers when the job allows it and there are any; else this thread. */
  const int workers_write = s->workers_write = job->write_on_workers && s->active > 0;
  rs->write_on_workers = workers_write;
  /* Worker commit: once the ring is full, sleep until half of it is free, then read that many
   * batches in a row: one wake-up per slots/2 batches, and the workers still have the other
   * half queued. */
  const int64_t refill = s->n_slots / 2 > 1 ? s->n_slots / 2 : 1;
  /* The dispatcher balances over the workers that run. */
  for (int n = 0; n < s->n_nodes; n++) s->nodes[n].workers = 0;
  for (int i = 0; i < (s->active ? s->active : 1); i++) s->nodes[s->workers[i].node].workers++;
  for (;;) {
    /* A cancel, a failed batch or a failed write: stop reading and drop what has not
     * started. */
    if (!s->stopping &&
        ((job->cancel && atomic_load(job->cancel)) || s->failed || s->write_status != VT_OK)) {
      s->stopping = 1;
      reading = 0;
      rs->canceled = !s->failed && s->write_status == VT_OK;
      rs->batches_dropped += drop_queued(s);
    }
    if (s->write_status != VT_OK && result == VT_OK) {
      result = s->write_status;
      set_err(err, errlen, "writing the output failed");
    }
    /* Write what is complete in order (here, unless the workers write), and find a gap: a
     * failed or dropped batch at the head ends writing. */
    if (s->writing && !s->committing && s->next_write < s->next_read) {
      int head = s->slots[s->next_write % s->n_slots].state;
      if (head == SLOT_FAILED || head == SLOT_DROPPED) {
        s->writing = 0;
        continue;
      }
      if (head == SLOT_DONE && !workers_write) {
        commit_ready(s);
        continue;
      }
    }
    /* No worker thread: work the oldest queued batch here (before reading further, so the
     * ring never fills with batches nobody runs). */
    if (!s->active) {
      int idx = queue_take_any(s);
      if (idx >= 0) {
        double c0 = thread_cpu_seconds();
        batch_run(s, w0, &view0, idx, 0);
        inline_cpu += thread_cpu_seconds() - c0;
        progress_due(s, job, rs, t_start, &t_progress, pinterval); /* never idle: report here */
        continue;
      }
    }
    /* Read the next batch when a slot is free. */
    if (reading && s->next_read - s->next_write < s->n_slots) {
      const int64_t seq = s->next_read;
      slot *rd = &s->slots[seq % s->n_slots];
      rd->b.seq = seq;
      rd->b.first = rd->b.items = rd->b.tokens = 0;
      rd->b.in.len = 0;
      rd->b.err[0] = '\0';
      pthread_mutex_unlock(&s->mu);
      double t0 = vt_clock_seconds();
      int r = job->read(job->ctx, &rd->b);
      rs->read_seconds += vt_clock_seconds() - t0;
      pthread_mutex_lock(&s->mu);
      if (r > 0) {
        dispatch(s, (int)(seq % s->n_slots));
        s->next_read = seq + 1;
        rs->batches_read++;
        rs->items_read += rd->b.items;
        if (s->next_read - s->next_write > rs->max_in_flight)
          rs->max_in_flight = (int)(s->next_read - s->next_write);
      } else {
        reading = 0;
        s->eof = 1;
        wake_all(s);
        if (r < 0) {
          result = (vt_status)r;
          *read_failed = 1;
          set_err(err, errlen, rd->b.err[0] ? rd->b.err : "reading the input failed");
          s->stopping = 1;
          rs->batches_dropped += drop_queued(s);
        }
      }
      continue;
    }
    /* Done: nothing more to read, and everything written, or nothing more writable and no
     * worker still busy (dropped batches never run); and no thread inside write(). */
    if (!reading && !s->committing &&
        (s->writing && s->write_status == VT_OK ? s->next_write == s->next_read : s->running == 0))
      break;

    if (progress_due(s, job, rs, t_start, &t_progress, pinterval)) continue;
    /* Wake up at least every 50 ms to see a cancel flag set by a signal handler (and to call
     * progress). */
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_nsec += 50 * 1000 * 1000;
    if (until.tv_nsec >= 1000000000L) {
      until.tv_sec++;
      until.tv_nsec -= 1000000000L;
    }
    s->wake_in_flight = reading ? s->n_slots - refill : 0;
    s->coord_waiting = 1;
    pthread_cond_timedwait(&s->done_cv, &s->mu, &until);
    s->coord_waiting = 0;
  }
  pthread_mutex_unlock(&s->mu);
  int64_t heap1 = vt_heap_thread_allocated();
  workers_stop(s);
  rs->coordinator_heap_bytes = heap0 >= 0 && heap1 >= 0 ? heap1 - heap0 : -1;
  if (!s->active) w0->st.cpu_seconds = inline_cpu; /* worker 0 has no thread of its own */
  rs->serial_cpu_seconds = thread_cpu_seconds() - cpu0 - inline_cpu;
  if (rs->serial_cpu_seconds < 0) rs->serial_cpu_seconds = 0;
  return result;
}

vt_status vt_sched_run(vt_sched *s, const vt_sched_job *job, vt_sched_stats *stats, char *err,
                       size_t errlen) {
  vt_status result = VT_OK;
  vt_sched_stats rs;
  int read_failed = 0;
  memset(&rs, 0, sizeof rs);
  if (err && errlen) err[0] = '\0';
  run_reset(s, job);
  const double t_start = vt_clock_seconds();

  /* One OpenMP team: thread 0 (the calling thread) coordinates, threads 1 .. n_workers work.
   * The runtime may give fewer threads (OMP_THREAD_LIMIT, dynamic adjustment, an enclosing
   * parallel region): coordinate() runs with those there are. */
  if (vt_sched_job_inline(s->n_workers, job)) /* the one worker's batches worked here, unbound */
    result = coordinate(s, job, 1, t_start, &rs, &read_failed, err, errlen);
  else {
#pragma omp parallel num_threads(s->n_workers + 1)
    {
      const int tid = omp_get_thread_num();
      if (tid == 0)
        result = coordinate(s, job, omp_get_num_threads(), t_start, &rs, &read_failed, err, errlen);
      else if (tid <= s->n_workers)
        worker_main(&s->workers[tid - 1]);
    }
  }

  /* A failed batch behind the first gap was never reached by the writer: report the earliest.
   * It comes before a failed read (a later batch), so its message wins over the reader's. */
  const slot *first_failed = NULL;
  for (int i = 0; i < s->n_slots && (result == VT_OK || read_failed); i++)
    if (s->slots[i].state == SLOT_FAILED &&
        (!first_failed || s->slots[i].b.seq < first_failed->b.seq))
      first_failed = &s->slots[i];
  if (first_failed) {
    result = first_failed->status;
    set_err(err, errlen,
            first_failed->b.err[0] ? first_failed->b.err : vt_strerror(first_failed->status));
  }
  if (result == VT_OK && rs.canceled) {
    result = VT_ECANCELED;
    set_err(err, errlen, "canceled");
  }
  rs.wall_seconds = vt_clock_seconds() - t_start;
  /* The workers that ran (all planned ones unless the team was smaller; with none, worker 0's
   * figures are the coordinator's work). */
  const int ran = s->active ? s->active : 1;
  for (int i = 0; i < ran; i++) {
    worker *w = &s->workers[i];
    w->st.arena_high_water = vt_arena_high_water(w->arena);
    w->st.arena_reserved = vt_arena_reserved(w->arena);
    w->st.arena_blocks = vt_arena_block_allocs(w->arena);
    s->wstats[i] = w->st;
    rs.worker_cpu_seconds += w->st.cpu_seconds;
  }
  rs.n_workers = ran;
  rs.workers = s->wstats;
  rs.n_nodes = s->n_nodes;
  rs.membind = s->membind;
  rs.slots = s->n_slots;
  if (job->progress) {
    vt_sched_progress pr = {rs.batches_written, rs.items_written, rs.tokens_written,
                            rs.wall_seconds, 1};
    job->progress(job->ctx, &pr);
  }
  if (stats) *stats = rs;
  return result;
}
