/* engine/sched/engine_job.c: one run of the engine's scheduler, the part every run loop shares
 * (vt_engine_job_run, engine.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sched/engine.h"

vt_status vt_engine_job_run(vt_engine *e, vt_engine_job *j, vt_run_report *rep, char *err,
                            size_t errlen) {
  vt_sched *sched = NULL;
  vt_status st = VT_OK;
  vt_sched_stats rs;
  memset(&rs, 0, sizeof rs);
  err[0] = '\0';
  vt_sched_config cfg = {&e->topo, &e->plan, e->opts.slots, 0, j->model, j->clone, j->clone_free};
  /* One worker planned without the machine works here when the job reads light; else it gets
   * a thread, placed and bound as the options say. */
  if (!vt_sched_job_inline(e->plan.n_workers, &j->job) &&
      (st = vt_engine_topo_need(e, err, errlen)) != VT_OK)
    goto done;
  if ((st = vt_sched_create(&sched, &cfg)) != VT_OK) {
    snprintf(err, errlen, "cannot set up the engine: %s", vt_strerror(st));
    goto done;
  }
  if (j->setup && (st = j->setup(j->job.ctx, vt_sched_slots(sched), e->plan.n_workers)) != VT_OK) {
    snprintf(err, errlen, "out of memory");
    goto done;
  }
  if (!e->opts.progress) j->job.progress = NULL;
  j->job.cancel = &e->cancel;
  j->job.write_on_workers = e->opts.sink_any_thread;
  st = vt_sched_run(sched, &j->job, &rs, err, errlen);
  rep->write_errno = *j->write_errno;
  if (*j->write_errno) snprintf(err, errlen, "write error: %s", strerror(*j->write_errno));
  if (st == VT_ECANCELED) snprintf(err, errlen, "canceled");
  rep->wall_seconds = rs.wall_seconds;
  rep->serial_cpu_seconds = rs.serial_cpu_seconds;
  rep->worker_cpu_seconds = rs.worker_cpu_seconds;
  rep->canceled = rs.canceled;
  if (j->count_written) {
    rep->sentences = rs.items_written;
    rep->tokens = rs.tokens_written;
  }
done:
  vt_engine_keep_stats(e, &rs);
  if (st == VT_ECANCELED) atomic_store(&e->cancel, 0);
  vt_sched_destroy(sched);
  return st;
}
