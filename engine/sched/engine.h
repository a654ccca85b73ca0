/* engine/sched/engine.h: what a public vt_engine holds (vitesse.h): the options, the machine and
 * the plan they lead to, the cancel flag and the last run's scheduler statistics; and the run
 * loops that drive the scheduler: one for corpora (corpus_job.c, any model kind), one for score
 * lattices (decode_job.c), both made by vt_engine_job_run (engine_job.c). */
#ifndef VT_SCHED_ENGINE_H
#define VT_SCHED_ENGINE_H

#include <stdatomic.h>

#include "sched/scheduler.h"
#include "sched/topo.h"
#include "vitesse.h"

struct vt_engine {
  vt_engine_opts opts;
  vt_topo topo;
  vt_plan plan;
  atomic_int cancel; /* set by vt_engine_cancel; cleared when the run it stopped returns */
  vt_sched_stats ss; /* the last run's; its `workers` array is owned (a copy) */
};

/* Plans e's workers for e->opts (engine_plan.c): one worker on this machine alone, unbound, on
 * no topology (a run on light reads needs none: vt_engine_topo_need reads it for a run that gives
 * the worker a thread); any other count on the topology the options name. Returns VT_OK, or
 * VT_EINVAL / VT_ENOMEM with its line in err. */
vt_status vt_engine_plan(vt_engine *e, char *err, size_t errlen);

/* Reads the topology options `o` name into *t and plans their workers on it into *p. Returns
 * VT_OK, or VT_EINVAL with its line in err (*t and *p then zeroed). */
vt_status vt_engine_plan_read(const vt_engine_opts *o, vt_topo *t, vt_plan *p, char *err,
                              size_t errlen);

/* Reads the machine's topology and plans the workers on it, when vt_engine_plan planned one
 * worker without it: for a run that starts a worker thread. Returns VT_OK, or the failure with
 * its line in err. */
vt_status vt_engine_topo_need(vt_engine *e, char *err, size_t errlen);

/* Keeps a copy of `rs` (and of its per-worker array) as the engine's last-run statistics. */
void vt_engine_keep_stats(vt_engine *e, const vt_sched_stats *rs);

/* Hands the scheduler's progress `p`, with the input bytes read of `bytes_total` (0: unknown),
 * to the run's progress callback (eo->progress, set). */
void vt_engine_progress(const vt_engine_opts *eo, const vt_sched_progress *p, int64_t bytes_read,
                        int64_t bytes_total);

/* One run of the engine's scheduler, as every run loop makes it: the job's callbacks, the model
 * the workers read (replicated per node when `clone` is set), and where the job keeps the errno
 * of a failed sink write. */
typedef struct vt_engine_job {
  vt_sched_job job; /* ctx and callbacks (progress: used when the engine has a progress hook) */
  const void *model;
  vt_status (*clone)(const void *model, const vt_mem *mem, void **out);
  void (*clone_free)(void *replica, const vt_mem *mem);
  /* Optional: makes the job's state for `slots` slots of the ring and `workers` workers, once the
   * scheduler is made. Returns VT_OK or VT_ENOMEM. */
  vt_status (*setup)(void *ctx, int slots, int workers);
  const int *write_errno;
  int count_written; /* 1: rep->sentences and rep->tokens are the scheduler's written counts */
} vt_engine_job;

/* Runs `j` on the engine: makes the scheduler, the job's state (j->setup), runs, fills `rep`'s
 * times and the write errno, keeps the scheduler statistics in e->ss, puts a failure's one line
 * (canceled, a write error, or the job's message) in err, and clears the cancel flag of a
 * canceled run. Returns the run's status. */
vt_status vt_engine_job_run(vt_engine *e, vt_engine_job *j, vt_run_report *rep, char *err,
                            size_t errlen);

/* The run loops. Each fills `rep` (never NULL here), puts the line of a failure in err, and
 * keeps the scheduler statistics in e->ss. */

/* Where a corpus run over files begins (vt_engine_tag_from), and who is told the place after
 * each batch written. */
typedef struct vt_corpus_marks {
  const vt_corpus_pos *start; /* NULL: the start of the first file */
  vt_mark_fn mark;            /* NULL: nobody */
  void *ctx;
} vt_corpus_marks;

/* Tags corpus files, or the piece of memory `part` when not NULL, with model `m` of any kind
 * that has features (engine/sched/corpus_job.c): the kind's table says how a worker tags a
 * batch. `o`: the run's options, decoder checked; `ro`: the corpus reader's; `marks` (may be
 * NULL; files only): where to begin and whom to tell what was written. */
vt_status vt_corpus_job_run(vt_engine *e, const struct vt_model *m, const vt_tag_opts *o,
                            const vt_reader_opts *ro, const char *const *files, int n_files,
                            const vt_corpus_part *part, const vt_corpus_marks *marks,
                            vt_sink_fn sink, void *sink_ctx, vt_run_report *rep, char *err,
                            size_t errlen);

/* Decodes sentences [first, first + count) of a lattice set (engine/sched/decode_job.c); the
 * posteriors' .npy header (the whole set's shape) only when first is 0. `mark` (may be NULL) is
 * told after each batch written the place after it (only `sentences` set). */
vt_status vt_decode_job_run(vt_engine *e, const vt_trans *trans, const vt_decode_opts *opts,
                            const vt_conf_opts *conf, const vt_lattices *lat, int64_t first,
                            int64_t count, vt_mark_fn mark, void *mark_ctx, vt_sink_fn sink,
                            void *sink_ctx, vt_run_report *rep, char *err, size_t errlen);

#endif
