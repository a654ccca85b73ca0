/* mpi/tag_round.c: one round of `vitesse-mpi tag` (tag_run.h): this rank's part tagged with its
 * engine (vt_engine_tag_part), the ranks' codes agreed, every rank's output written at its
 * prefix-sum offset into the output file (mpio_output.c), the job's progress on rank 0. */
#include <stdio.h>
#include <string.h>

#include "tag_run.h"

#define MSG 1024

static void report_add(vt_run_report *a, const vt_run_report *b) {
  a->sentences += b->sentences;
  a->tokens += b->tokens;
  a->wall_seconds += b->wall_seconds;
  a->feature_seconds += b->feature_seconds;
  a->decode_seconds += b->decode_seconds;
  a->lookups += b->lookups;
  a->unknown_features += b->unknown_features;
  a->cache_hits += b->cache_hits;
  a->eval_tokens += b->eval_tokens;
  a->eval_pos_ok += b->eval_pos_ok;
  a->eval_tag_ok += b->eval_tag_ok;
  a->eval_chunks_gold += b->eval_chunks_gold;
  a->eval_chunks_pred += b->eval_chunks_pred;
  a->eval_chunks_ok += b->eval_chunks_ok;
  vt_decode_stats_add(&a->decode, &b->decode);
}

int vt_mpi_tag_round(vt_mpi_tag_run *r, const char *name, int64_t first_line, int64_t bytes_upto) {
  const vt_mpi *w = r->w;
  char msg[MSG] = "";
  double t = vt_mpi_now();
  vt_corpus_part part;
  memset(&part, 0, sizeof part);
  part.data = r->in.p;
  part.len = r->in.len;
  part.name = name;
  part.first_line = first_line;
  r->outbuf.len = 0;
  vt_run_report rep;
  vt_status st =
      vt_engine_tag_part(r->eng, r->t.m, &r->t.to, &part, vt_mpi_buf_sink, &r->outbuf, &rep);
  int code = vt_mpi_code_of(st);
  if (atomic_load(&vt_cli_stop)) code = VT_MPI_CANCELED;
  if (code == VT_MPI_BAD || code == VT_MPI_FAIL) snprintf(msg, sizeof msg, "%s", vt_last_error());
  report_add(&r->tot, &rep);
  double t1 = vt_mpi_now();
  r->ph.tag += t1 - t;
  code = vt_mpi_agree(w, code, msg);
  r->ph.exchange += vt_mpi_now() - t1;
  if (code != VT_MPI_OK) return code;
  t = vt_mpi_now();
  code = vt_mpi_out_write(w, &r->out, r->outbuf.p, r->outbuf.len);
  r->ph.write += vt_mpi_now() - t;
  r->rounds++;
  long long mine[2] = {rep.sentences, rep.tokens}, sum[2] = {0, 0};
  MPI_Reduce(mine, sum, 2, MPI_LONG_LONG, MPI_SUM, 0, w->comm);
  if (w->rank == 0) {
    r->done_sents += sum[0];
    r->done_tokens += sum[1];
  }
  if (w->rank == 0 && r->pg.enabled) {
    vt_progress p;
    memset(&p, 0, sizeof p);
    p.items = r->done_sents;
    p.tokens = r->done_tokens;
    p.elapsed = vt_mpi_now() - r->t0;
    p.bytes_read = bytes_upto;
    p.bytes_total = r->total_bytes;
    vt_cli_progress_show(&r->pg, &p);
  }
  return code;
}
