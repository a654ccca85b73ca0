/* engine/sched/engine.h: what a public vt_engine holds (vitesse.h): the options, the machine and
 * the plan they lead to, the cancel flag and the last run's scheduler statistics; and the run
 * loops (engine/sched/ *_job.c) that drive the scheduler for each kind of input. */
#ifndef VT_SCHED_ENGINE_H
#define VT_SCHED_ENGINE_H

#include <stdatomic.h>

#include "sched/scheduler.h"
#include "sched/topo.h"
#include "vitesse.h"

struct vt_textmodel;
struct vt_chunk_model;
struct vt_crfs;

struct vt_engine {
  vt_engine_opts opts;
  vt_topo topo;
  vt_plan plan;
  atomic_int cancel; /* set by vt_engine_cancel; cleared when the run it stopped returns */
  vt_sched_stats ss; /* the last run's; its `workers` array is owned (a copy) */
};

/* Keeps a copy of `rs` (and of its per-worker array) as the engine's last-run statistics. */
void vt_engine_keep_stats(vt_engine *e, const vt_sched_stats *rs);

/* Hands the scheduler's progress `p`, with the input bytes read of `bytes_total` (0: unknown),
 * to the run's progress callback (eo->progress, set). */
void vt_engine_progress(const vt_engine_opts *eo, const vt_sched_progress *p, int64_t bytes_read,
                        int64_t bytes_total);

/* The run loops. Each fills `rep` (never NULL here), leaves the message of a failure in
 * vt_last_error, and keeps the scheduler statistics in e->ss. */

/* Tags corpus files, or the piece of memory `part` when not NULL, with a tagger model
 * (engine/sched/tag_job.c). */
vt_status vt_tag_job_run(vt_engine *e, const struct vt_textmodel *m, const vt_tag_opts *o,
                         const vt_reader_opts *ro, const char *const *files, int n_files,
                         const vt_corpus_part *part, vt_sink_fn sink, void *sink_ctx,
                         vt_run_report *rep);

/* Tags corpus files, or `part`, with a joint label-chunk model (engine/sched/chunk_job.c). */
vt_status vt_chunk_job_run(vt_engine *e, const struct vt_chunk_model *m, const vt_tag_opts *o,
                           const vt_reader_opts *ro, const char *const *files, int n_files,
                           const vt_corpus_part *part, vt_sink_fn sink, void *sink_ctx,
                           vt_run_report *rep);

/* Tags CRFsuite item files, or `part` (a piece of one), with a CRFsuite model
 * (engine/sched/crfs_job.c). */
vt_status vt_crfs_job_run(vt_engine *e, const struct vt_crfs *m, const vt_tag_opts *o,
                          const vt_reader_opts *ro, const char *const *files, int n_files,
                          const vt_corpus_part *part, vt_sink_fn sink, void *sink_ctx,
                          vt_run_report *rep);

/* Decodes sentences [first, first + count) of a lattice set (engine/sched/decode_job.c); the
 * posteriors' .npy header (the whole set's shape) only when first is 0. */
vt_status vt_decode_job_run(vt_engine *e, const vt_trans *trans, const vt_decode_opts *opts,
                            const vt_conf_opts *conf, const vt_lattices *lat, int64_t first,
                            int64_t count, vt_sink_fn sink, void *sink_ctx, vt_run_report *rep);

#endif
