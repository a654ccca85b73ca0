/* engine/sched/scheduler.h: the batch engine: one reader, NUMA-placed workers, one ordered writer.
 *
 *   reader ──▶ batch #0 #1 #2 ... ──▶ one queue per NUMA node ──▶ workers (own node's queue
 *   first, stealing last) ──▶ reorder ring ──▶ writer, strictly in batch order
 *
 * The reader runs on the thread that calls vt_sched_run (the coordinator), and so does the
 * writer unless the job lets the workers write (write_on_workers: an ordered commit, see
 * vt_sched_job); the workers are the other threads of an OpenMP team, placed and bound by the plan
 * (engine/sched/topo.h). A batch
 * lives in one of a fixed ring of slots from the moment it is read until it is written, so at most
 * `slots` batches are in flight and memory stays flat however long the input: the ring is also
 * the reorder buffer (batch n sits in slot n mod slots). Each worker has a bump arena whose
 * blocks are bound to its NUMA node, and reads the model through its node's replica.
 *
 * How a pipeline plugs in. `vitesse decode` does it in engine/cli/run.c; `vitesse tag` does the
 * same with text:
 *   1. vt_topo_load + vt_topo_plan, then vt_sched_create with the read-only model and a clone
 *      function that copies it into a vt_mem (vt_trans_clone_to for a vt_trans; a text model
 *      gets one of its own, same signature).
 *   2. A vt_sched_job of three callbacks:
 *      read   cuts the next batch of whole sentences, about `--batch-tokens` tokens, and
 *             describes it: first/items/tokens, plus any bytes the worker needs in b->in (tag:
 *             the raw CoNLL lines of those sentences; decode: nothing, the lattices are mapped);
 *      work   turns the batch into output bytes in b->out with w->arena (scratch, reset per
 *             sentence or batch) and w->model (its node's replica): tag parses, extracts
 *             features, scores, decodes (vt_decode) and formats; decode decodes and formats;
 *      write  consumes b->out in batch order (fwrite), and may release input behind it.
 *      Per-worker state goes in an array indexed by w->id, per-slot state in one indexed by
 *      b->slot (vt_sched_slots tells how many); b->in and b->out keep their capacity across
 *      batches, so the steady state allocates nothing.
 *   3. vt_sched_run, as often as wanted: arenas, slots and replicas are kept between runs.
 *
 * Threads are one OpenMP parallel region per run, of n_workers + 1 threads: thread 0 is the
 * calling thread and coordinates, thread i works as worker i-1 in a long-lived loop, and the
 * region's end joins them. OpenMP only starts and joins the team (its thread pool is reused
 * between runs, and it composes with MPI + OpenMP job scripts); it does not place: each worker
 * binds itself once with hwloc as planned, which overrides any binding of OpenMP's
 * (OMP_PROC_BIND), so exactly one layer binds. With --bind none nothing of ours binds, and what
 * OMP_PROC_BIND/OMP_PLACES ask for stays. A team smaller than asked (OMP_THREAD_LIMIT, or a run
 * started inside the caller's own parallel region without nested parallelism) runs the
 * workers it got; with none, the coordinator works the batches itself, and so it does, with no
 * team started, for a run of one worker whose job reads light (read_light). Inside the region the
 * workers wait on pthread mutexes and condition variables, which ThreadSanitizer sees; the
 * fork and join it sees through LLVM's OpenMP runtime and its Archer tool (.ci/check.sh).
 * One mutex guards every queue and slot state:
 * batches take milliseconds, so a few lock operations per batch cost nothing measurable, and
 * one lock keeps the ordering, stealing and stopping logic simple to verify. */
#ifndef VT_SCHED_SCHEDULER_H
#define VT_SCHED_SCHEDULER_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "alloc/mem.h"
#include "sched/topo.h"
#include "vitesse.h"

/* A growable byte buffer; capacity is kept across batches. */
typedef struct vt_sched_buf {
  char *data;
  size_t len, cap;
} vt_sched_buf;

/* Makes room for `extra` more bytes after len (grows geometrically). Returns VT_OK or
 * VT_ENOMEM (the buffer is then unchanged). */
vt_status vt_sched_buf_reserve(vt_sched_buf *b, size_t extra);

typedef struct vt_sched_batch {
  int64_t seq;      /* batch number in input order, from 0 (set by the scheduler) */
  int slot;         /* which slot of the ring holds it (0 .. vt_sched_slots-1) */
  int64_t first;    /* reader: index of its first item (sentence) in the input */
  int64_t items;    /* reader: number of items */
  int64_t tokens;   /* reader: number of tokens (progress and statistics) */
  vt_sched_buf in;  /* reader: input bytes, if the worker needs any */
  vt_sched_buf out; /* worker: output bytes for the writer (len 0 at the start of work) */
  vt_sched_buf aux; /* worker: a second output stream (decode's posteriors; len 0 likewise) */
  char err[256];    /* worker: a one-line message when work fails */
} vt_sched_batch;

/* What a worker callback gets. */
typedef struct vt_sched_worker {
  int id;            /* worker number, 0 .. n_workers-1 */
  int node;          /* its plan node (queue and replica) */
  vt_arena *arena;   /* its arena, blocks bound to its node; reset it as you like */
  const void *model; /* its node's replica of the model */
} vt_sched_worker;

typedef struct vt_sched_progress {
  int64_t batches, items, tokens; /* written so far */
  double elapsed;                 /* seconds since the run started */
  int final;                      /* 1 on the last call, after the run */
} vt_sched_progress;

typedef struct vt_sched_job {
  void *ctx;
  /* Fills the next batch `b` (coordinator thread). Returns 1 when it did, 0 at the end of the
   * input, or a negative vt_status (with a message in b->err) to stop the run. */
  int (*read)(void *ctx, vt_sched_batch *b);
  /* Processes `b` on worker `w` (worker threads, concurrently). Returns a vt_status; on failure
   * a message in b->err. VT_ECANCELED once `cancel` is set drops the batch (a canceled run, not
   * a failed one). */
  vt_status (*work)(void *ctx, const vt_sched_worker *w, vt_sched_batch *b);
  /* Consumes `b`, in batch order, one call at a time (the coordinator thread; with
   * write_on_workers, whichever worker commits, see below). Returns a vt_status; on failure the
   * run stops (a closed pipe, a full disk: the callback keeps errno or says why in its context). */
  vt_status (*write)(void *ctx, vt_sched_batch *b);
  /* Optional: called about every progress_seconds, and once with final = 1 at the end. */
  void (*progress)(void *ctx, const vt_sched_progress *p);
  double progress_seconds; /* 0 = 0.25 */
  /* Optional: when it becomes nonzero (a signal handler), reading stops, queued batches are
   * dropped, running ones finish, and everything complete in order is written. */
  const atomic_int *cancel;
  /* 1: write() runs on the workers (an ordered commit): the worker that completes the batch at
   * the head of the order writes it and every complete batch after it, while the others go on
   * working; a worker finding another one writing leaves it the work. The calls stay one at a
   * time and in batch order, each after the previous one under the scheduler's mutex (so its
   * effects are visible to the next call), and the coordinator only reads: it sleeps while the
   * ring is full and wakes once half of it is free. 0: write() runs on the coordinator. */
  int write_on_workers;
  /* 1: read() costs little beside work() (a mapped or in-memory input: no decompression, no
   * pipe). With one worker the calling thread then works each batch itself right after reading
   * it, and no other thread starts: no hand-offs, and the batch's bytes are still in its cache.
   * 0: the worker has a thread of its own, so that a costly read overlaps the work. */
  int read_light;
} vt_sched_job;

/* Whether a run of `n_workers` workers on `job` starts no thread: one worker, light reads. */
static inline int vt_sched_job_inline(int n_workers, const vt_sched_job *job) {
  return n_workers == 1 && job->read_light;
}

typedef struct vt_sched_config {
  const vt_topo *topo; /* must outlive the scheduler */
  const vt_plan *plan; /* must outlive the scheduler */
  int slots;           /* batches in flight; 0 = 4 per worker, at least 4 */
  size_t arena_block;  /* first block of each worker's arena; 0 = the arena default */
  const void *model;   /* replicated once per plan node (may be NULL: no model) */
  /* The replica of `model` for a node, a copy in `mem`; with mem NULL (a machine of one NUMA
   * node, where a copy would sit in the same memory) the object workers read, not a copy. */
  vt_status (*model_clone)(const void *model, const vt_mem *mem, void **out);
  void (*model_free)(void *replica, const vt_mem *mem); /* mem NULL: not a copy, nothing */
} vt_sched_config;

typedef struct vt_sched_worker_stats {
  int64_t batches, items, tokens;
  int64_t steals;          /* batches taken from another node's queue */
  double busy_seconds;     /* inside work() */
  double cpu_seconds;      /* the thread's CPU time during the run (CLOCK_THREAD_CPUTIME_ID) */
  int bound;               /* 1 when hwloc bound the thread as planned */
  size_t arena_high_water; /* bytes */
  size_t arena_reserved;   /* bytes held in blocks at the end */
  uint64_t arena_blocks;   /* blocks the arena has taken since it was created */
  int64_t heap_bytes;      /* heap bytes the thread allocated during the run; -1 unknown */
} vt_sched_worker_stats;

typedef struct vt_sched_stats {
  int n_workers;
  const vt_sched_worker_stats *workers; /* owned by the scheduler, valid until the next run */
  int n_nodes;
  int membind;       /* 1 when arenas and replicas are bound to their NUMA nodes */
  int slots;         /* ring size */
  int max_in_flight; /* most batches read but not yet written at once */
  int64_t batches_read, batches_written, batches_dropped;
  int64_t items_read, items_written, tokens_written;
  double wall_seconds;            /* the whole run */
  double read_seconds;            /* in read() */
  double write_seconds;           /* in write(), wall, summed over the threads that wrote */
  double write_cpu_seconds;       /* CPU time in write(), wherever it ran: on the workers with
                                     write_on_workers (then in worker_cpu_seconds), else on the
                                     coordinator (in serial_cpu_seconds) */
  int canceled;                   /* the cancel flag stopped the run */
  int write_on_workers;           /* the workers wrote (write_on_workers, and a team had some) */
  int64_t coordinator_heap_bytes; /* heap bytes the coordinator allocated; -1 unknown */
  double serial_cpu_seconds; /* the coordinator thread's CPU time (reading, writing, waiting) */
  double worker_cpu_seconds; /* the workers' CPU time, summed */
} vt_sched_stats;

typedef struct vt_sched vt_sched;

/* Creates a scheduler for plan `cfg->plan`: one queue and one model replica per plan node (in
 * memory bound to the node when the topology is this machine and the plan binds), one arena per
 * worker (blocks from its node) and the slot ring. No thread runs until vt_sched_run.
 * Returns VT_OK, VT_EINVAL (no workers), VT_ENOMEM, or the model_clone failure. */
vt_status vt_sched_create(vt_sched **out, const vt_sched_config *cfg);

/* Frees everything. NULL is a no-op. */
void vt_sched_destroy(vt_sched *s);

/* Returns the number of slots (batches in flight at most). */
int vt_sched_slots(const vt_sched *s);

/* Runs `job` to the end of its input: starts the team, reads, dispatches, and writes in
 * order on the calling thread, then joins the workers. On the first failure (read, work or
 * write) or a cancel, reading stops, queued batches are dropped, running ones finish, and the
 * batches complete in order before the first gap are written; nothing after a gap is.
 * Returns VT_OK when every batch was read, processed and written; VT_ECANCELED after a cancel;
 * otherwise the first failure's status, with a one-line message in `err` (errlen bytes, may
 * be 0). `stats` may be NULL. */
vt_status vt_sched_run(vt_sched *s, const vt_sched_job *job, vt_sched_stats *stats, char *err,
                       size_t errlen);

#endif
