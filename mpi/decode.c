/* mpi/decode.c: `vitesse-mpi decode`, `vitesse decode` across the ranks of an MPI job. Every
 * rank maps the lattices; in round r, rank i decodes sentences [(rP + i) K, (rP + i + 1) K)
 * (K = VITESSE_MPI_ROUND_SENTENCES, default 65536) with vt_engine_decode_range into memory, and
 * the round's outputs go into the output file at their prefix-sum offsets (outfile.c); with
 * --posteriors, the marginals likewise into their own file (rank 0's first range brings the .npy
 * header). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/decode_setup.h"
#include "mpi_cli.h"

typedef struct decode_run {
  const vt_mpi *w;
  vt_cli_decode d;
  int argc;
  char **argv;
  vt_engine *eng;
} decode_run;

static int setup_parse(void *ctx) {
  decode_run *r = ctx;
  int rc = vt_cli_decode_setup(&r->d, r->argc, r->argv);
  if (rc < 0 && r->d.run.resume) { /* a cluster's run is one job, not resumable yet */
    vt_cli_error("decode: --resume: not with vitesse-mpi (vitesse decode --resume resumes)");
    return 2;
  }
  return rc;
}

static int setup_engine(void *ctx) {
  decode_run *r = ctx;
  return vt_cli_engine_start(&r->d.run, 0, &r->eng) != 0 ? 2 : -1;
}

int vt_mpi_decode(const vt_mpi *w, int argc, char **argv) {
  decode_run r;
  vt_mpi_out out, pout; /* -o, --posteriors */
  vt_mpi_buf buf = {0, 0, 0}, pbuf = {0, 0, 0};
  vt_run_report tot;
  int code = VT_MPI_OK, rc;
  double ph[3] = {0, 0, 0}; /* decode, exchange, write */
  memset(&r, 0, sizeof r);
  memset(&out, 0, sizeof out);
  memset(&pout, 0, sizeof pout);
  memset(&tot, 0, sizeof tot);
  r.w = w;
  r.argc = argc;
  r.argv = argv;
  vt_cli_decode_init(&r.d);
  int64_t K = vt_mpi_env_size("VITESSE_MPI_ROUND_SENTENCES", 65536);
  if ((rc = vt_mpi_setup(w, setup_parse, &r)) >= 0) goto done;
  int share = vt_mpi_node_share(w); /* no --threads: one worker per CPU of the share */
  if (!r.d.run.opts.threads && share > 0) r.d.run.opts.threads = share;
  int quiet = r.d.run.quiet;
  r.d.run.quiet = 1;
  if ((rc = vt_mpi_setup(w, setup_engine, &r)) >= 0) goto done;
  const int64_t n_sent = vt_lattices_sentences(r.d.lat), P = w->size;
  vt_cli_progress pg;
  vt_cli_progress_init(&pg, quiet || w->rank != 0, n_sent);
  pg.unit = "sentences";
  if ((code = vt_mpi_out_open(w, &out, r.d.out_path)) != VT_MPI_OK) {
    rc = vt_mpi_exit_status(w, code);
    goto done;
  }
  if (w->rank == 0) vt_cli_signals_temp(out.tmp);
  if (r.d.post_path) { /* the marginals: a second file, written the same way */
    if ((code = vt_mpi_out_open(w, &pout, r.d.post_path)) != VT_MPI_OK) {
      vt_mpi_out_abort(w, &out);
      rc = vt_mpi_exit_status(w, code);
      goto done;
    }
    if (w->rank == 0) vt_cli_signals_temp_extra(pout.tmp);
    r.d.conf.post_sink = vt_mpi_buf_sink;
    r.d.conf.post_ctx = &pbuf;
  }
  double t0 = vt_mpi_now();
  if ((n_sent + P - 1) / P < K) K = n_sent > 0 ? (n_sent + P - 1) / P : 1; /* shared evenly */
  const int64_t rounds = (n_sent + K * P - 1) / (K * P);
  int64_t rounds_done = 0;
  r.d.names.sink = vt_mpi_buf_sink;
  r.d.names.sink_ctx = &buf;
  for (int64_t k = 0; k < rounds && code == VT_MPI_OK; k++) {
    int64_t first = (k * P + w->rank) * K;
    if (first > n_sent) first = n_sent;
    int64_t count = n_sent - first < K ? n_sent - first : K;
    buf.len = 0;
    pbuf.len = 0;
    double t = vt_mpi_now();
    vt_run_report rep;
    vt_status st = r.d.labels_path
                       ? vt_engine_decode_range(r.eng, r.d.trans, &r.d.opts, &r.d.conf, r.d.lat,
                                                first, count, vt_cli_names_sink, &r.d.names, &rep)
                       : vt_engine_decode_range(r.eng, r.d.trans, &r.d.opts, &r.d.conf, r.d.lat,
                                                first, count, vt_mpi_buf_sink, &buf, &rep);
    code = vt_mpi_code_of(st);
    if (atomic_load(&vt_cli_stop)) code = VT_MPI_CANCELED;
    if (code == VT_MPI_CANCELED) rep.sentences = 0;
    tot.sentences += rep.sentences;
    tot.tokens += rep.tokens;
    tot.wall_seconds += rep.wall_seconds;
    vt_decode_stats_add(&tot.decode, &rep.decode);
    double t1 = vt_mpi_now();
    ph[0] += t1 - t;
    code = vt_mpi_agree(w, code, code >= VT_MPI_FAIL ? vt_last_error() : NULL);
    ph[1] += vt_mpi_now() - t1;
    if (code != VT_MPI_OK) break;
    t = vt_mpi_now();
    code = vt_mpi_out_write(w, &out, buf.p, buf.len);
    if (code == VT_MPI_OK && r.d.post_path) code = vt_mpi_out_write(w, &pout, pbuf.p, pbuf.len);
    ph[2] += vt_mpi_now() - t;
    rounds_done++;
    if (pg.enabled) {
      vt_progress p;
      memset(&p, 0, sizeof p);
      p.items = (k + 1) * K * P < n_sent ? (k + 1) * K * P : n_sent;
      p.elapsed = vt_mpi_now() - t0;
      vt_cli_progress_show(&pg, &p);
    }
  }
  if (pg.enabled) {
    vt_progress p;
    memset(&p, 0, sizeof p);
    p.final = 1;
    vt_cli_progress_show(&pg, &p);
  }
  if (code == VT_MPI_OK && r.d.post_path) code = vt_mpi_out_commit(w, &pout);
  if (code == VT_MPI_OK) code = vt_mpi_out_commit(w, &out);
  if (code != VT_MPI_OK) {
    if (r.d.post_path) vt_mpi_out_abort(w, &pout);
    vt_mpi_out_abort(w, &out);
    if (code == VT_MPI_CANCELED) {
      long long mine = tot.sentences, all = 0;
      MPI_Reduce(&mine, &all, 1, MPI_LONG_LONG, MPI_SUM, 0, w->comm);
      int sig = atomic_load(&vt_cli_stop), top = 0;
      MPI_Allreduce(&sig, &top, 1, MPI_INT, MPI_MAX, w->comm);
      if (w->rank == 0)
        vt_cli_error("interrupted by %s: %lld of %lld sentences were decoded; %s was not written",
                     vt_cli_signal_name(top), all, (long long)n_sent, r.d.out_path);
    }
    rc = vt_mpi_exit_status(w, code);
    goto done;
  }
  if (r.d.run.stats) {
    double secs = vt_mpi_now() - t0, wall = 0, phmax[3];
    long long n[12] = {tot.decode.sentences,
                       tot.decode.tokens,
                       tot.decode.cells,
                       tot.decode.iterations,
                       tot.decode.active_labels,
                       tot.decode.nodes,
                       tot.decode.pruned,
                       tot.decode.pops,
                       tot.decode.fallbacks,
                       tot.decode.budget_fallbacks,
                       tot.sentences};
    long long s[12];
    MPI_Reduce(n, s, 12, MPI_LONG_LONG, MPI_SUM, 0, w->comm);
    MPI_Reduce(&tot.wall_seconds, &wall, 1, MPI_DOUBLE, MPI_SUM, 0, w->comm);
    MPI_Reduce(ph, phmax, 3, MPI_DOUBLE, MPI_MAX, 0, w->comm);
    if (w->rank == 0) {
      vt_run_report sum = tot;
      sum.decode.sentences = s[0];
      sum.decode.tokens = s[1];
      sum.decode.cells = s[2];
      sum.decode.iterations = s[3];
      sum.decode.active_labels = s[4];
      sum.decode.nodes = s[5];
      sum.decode.pruned = s[6];
      sum.decode.pops = s[7];
      sum.decode.fallbacks = s[8];
      sum.decode.budget_fallbacks = s[9];
      sum.sentences = s[10];
      sum.decode.sparse = s[11];
      sum.wall_seconds = secs; /* the job's */
      vt_cli_decode_stats(&r.d, &sum, stderr);
      fprintf(stderr,
              "\"ranks\": %d, \"rounds\": %lld, \"round_sentences\": %lld, "
              "\"engine_seconds_sum\": %.6f, \"mpi_decode_seconds\": %.6f, "
              "\"mpi_exchange_seconds\": %.6f, \"mpi_write_seconds\": %.6f, ",
              w->size, (long long)rounds_done, (long long)K, wall, phmax[0], phmax[1], phmax[2]);
      vt_engine_stats_json(r.eng, stderr);
      fputs("}\n", stderr);
    }
  }
  rc = 0;
done:
  if (w->rank == 0) vt_cli_signals_temp(NULL);
  vt_cli_engine_stop(r.eng);
  vt_cli_decode_free(&r.d);
  free(buf.p);
  free(pbuf.p);
  return rc;
}
