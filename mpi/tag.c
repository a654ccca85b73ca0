/* mpi/tag.c: `vitesse-mpi tag`, `vitesse tag` across the ranks of an MPI job: the options
 * (vitesse tag's own parser), each input file in turn (tag_input.c cuts it into the ranks'
 * parts, and tag_round.c tags and writes each round's parts), --stats and progress for the job. Any
 * model vitesse tag takes: a joint POS + chunk model with chunk-tag's options (its --eval counts
 * summed over the ranks), a CRFsuite model's item files cut at empty lines. With sep auto the
 * separator is decided once a file by its first token line, as the reader does. --resume:
 * tag_resume.c keeps the progress, and the run starts at its place. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/chunk_cli.h"
#include "split.h"
#include "tag_run.h"

#define MSG 1024

static int setup_parse(void *ctx) {
  vt_mpi_tag_run *r = ctx;
  int rc = vt_cli_tag_setup(&r->t, r->argc, r->argv);
  if (!r->t.joint) {
    if (rc < 0 && (r->t.crfs_test || r->t.crfs_quiet)) {
      vt_cli_error("tag: -%c: not with vitesse-mpi (vitesse tag -t scores item files)",
                   r->t.crfs_test ? 't' : 'q');
      return 2;
    }
    r->items = rc < 0 && (r->t.info.can & VT_CAN_ITEMS);
    return rc;
  }
  /* A joint model: chunk-tag's options, as `vitesse tag` takes them for it. */
  r->joint = 1;
  r->ct = r->t.chunk;
  r->t.m = r->ct.m; /* owned by t from here on */
  r->ct.m = r->t.chunk.m = NULL;
  r->t.to = r->ct.to;
  r->t.run = r->ct.run;
  r->t.info = r->ct.info;
  r->t.model_path = r->ct.model_path;
  r->t.out_path = r->ct.out_path;
  r->t.files = r->ct.files;
  r->t.n_files = r->ct.n_files;
  return rc;
}

static int setup_engine(void *ctx) {
  vt_mpi_tag_run *r = ctx;
  return vt_cli_engine_start(&r->t.run, 0, &r->eng) != 0 ? 2 : -1;
}

/* Tags one input file (or standard input: "-") into the output. Returns an agreed code. */
static int tag_one(vt_mpi_tag_run *r, const char *path) {
  const vt_mpi *w = r->w;
  char msg[MSG] = "";
  vt_reader_opts ro = r->t.to.reader;
  int comments = ro.comments || ro.conllu;
  /* Rank 0 looks at the file: regular and not gzip (cut by ranges), or a stream. */
  long long info[3] = {VT_MPI_OK, 0, 0}; /* code, ranges?, size */
  if (w->rank == 0 && strcmp(path, "-")) {
    struct stat st;
    int fd = open(path, O_RDONLY);
    unsigned char magic[2] = {0, 0};
    if (fd < 0 || fstat(fd, &st) != 0) {
      snprintf(msg, sizeof msg, "%s: cannot open: %s", path, strerror(errno));
      info[0] = VT_MPI_BAD;
    } else if (S_ISDIR(st.st_mode)) {
      snprintf(msg, sizeof msg, "%s: is a directory", path);
      info[0] = VT_MPI_BAD;
    } else if (S_ISREG(st.st_mode)) {
      ssize_t n = pread(fd, magic, 2, 0);
      info[1] = !(n == 2 && magic[0] == 0x1f && magic[1] == 0x8b);
      info[2] = (long long)st.st_size;
    }
    if (fd >= 0) close(fd);
  }
  int code = vt_mpi_agree(w, (int)info[0], msg);
  if (code != VT_MPI_OK) return code;
  MPI_Bcast(info, 3, MPI_LONG_LONG, 0, w->comm);
  int sep_given = ro.sep != VT_SEP_AUTO || ro.conllu;
  r->t.to.reader.sep = ro.sep;
  if (!info[1]) {
    r->total_bytes = 0;
    code = vt_mpi_tag_stream(r, path, comments, sep_given);
  } else {
    int sep = ro.sep;
    if (!sep_given) { /* rank 0 finds the file's first token line */
      if (w->rank == 0) {
        vt_mpi_src *src = calloc(1, sizeof *src);
        sep = VT_SEP_SPACE;
        if (src && (src->fd = open(path, O_RDONLY)) >= 0) {
          src->size = info[2];
          src->at_eof = 1;
          int s = vt_mpi_first_sep(src, comments);
          if (s == VT_SEP_TAB) sep = s;
          close(src->fd);
        }
        free(src);
      }
      MPI_Bcast(&sep, 1, MPI_INT, 0, w->comm);
    }
    r->total_bytes = info[2];
    code = vt_mpi_tag_ranges(r, path, info[2], sep);
  }
  r->t.to.reader.sep = ro.sep;
  return code;
}

/* Rank 0 prints the job's --eval line (joint models) and --stats object: the tagging figures
 * summed over ranks, the phases' slowest rank, and rank 0's engine. Collective. */
static void print_report(vt_mpi_tag_run *r, double secs, double cpu) {
  const vt_mpi *w = r->w;
  const vt_run_report *t = &r->tot;
  vt_run_report sum = r->tot;
  double d[4] = {t->wall_seconds, t->feature_seconds, t->decode_seconds, cpu}, dsum[4];
  long long n[17] = {t->sentences,        t->tokens,
                     t->lookups,          t->unknown_features,
                     t->cache_hits,       t->decode.sentences,
                     t->decode.tokens,    t->decode.cells,
                     t->decode.fallbacks, t->decode.budget_fallbacks,
                     t->decode.sparse,    t->eval_tokens,
                     t->eval_pos_ok,      t->eval_tag_ok,
                     t->eval_chunks_gold, t->eval_chunks_pred,
                     t->eval_chunks_ok};
  long long nsum[17];
  double ph[4] = {r->ph.read, r->ph.tag, r->ph.exchange, r->ph.write}, phmax[4];
  MPI_Reduce(d, dsum, 4, MPI_DOUBLE, MPI_SUM, 0, w->comm);
  MPI_Reduce(n, nsum, 17, MPI_LONG_LONG, MPI_SUM, 0, w->comm);
  MPI_Reduce(ph, phmax, 4, MPI_DOUBLE, MPI_MAX, 0, w->comm);
  if (w->rank != 0) return;
  int64_t *field[17] = {&sum.sentences,        &sum.tokens,
                        &sum.lookups,          &sum.unknown_features,
                        &sum.cache_hits,       &sum.decode.sentences,
                        &sum.decode.tokens,    &sum.decode.cells,
                        &sum.decode.fallbacks, &sum.decode.budget_fallbacks,
                        &sum.decode.sparse,    &sum.eval_tokens,
                        &sum.eval_pos_ok,      &sum.eval_tag_ok,
                        &sum.eval_chunks_gold, &sum.eval_chunks_pred,
                        &sum.eval_chunks_ok};
  for (int i = 0; i < 17; i++) *field[i] = (int64_t)nsum[i];
  sum.feature_seconds = dsum[1];
  sum.decode_seconds = dsum[2];
  sum.wall_seconds = secs; /* the job's */
  if (r->joint && r->t.to.eval) vt_cli_chunk_tag_eval(&sum, stderr);
  if (!r->t.run.stats) return;
  if (r->joint)
    vt_cli_chunk_tag_stats(&r->ct, &sum, secs, stderr);
  else
    vt_cli_tag_stats(&r->t, &sum, secs, dsum[3], stderr);
  fprintf(stderr,
          "\"ranks\": %d, \"rounds\": %lld, \"round_bytes\": %lld, \"engine_seconds_sum\": %.6f, "
          "\"mpi_read_seconds\": %.6f, \"mpi_tag_seconds\": %.6f, \"mpi_exchange_seconds\": %.6f, "
          "\"mpi_write_seconds\": %.6f, ",
          w->size, (long long)r->rounds, (long long)r->round_bytes, dsum[0], phmax[0], phmax[1],
          phmax[2], phmax[3]);
  vt_engine_stats_json(r->eng, stderr);
  fputs("}\n", stderr);
}

int vt_mpi_tag(const vt_mpi *w, int argc, char **argv) {
  vt_mpi_tag_run *r = calloc(1, sizeof *r);
  int code = VT_MPI_FAIL, rc;
  if (!r) return vt_mpi_exit_status(w, vt_mpi_agree(w, VT_MPI_FAIL, "out of memory"));
  r->w = w;
  r->argc = argc;
  r->argv = argv;
  vt_cli_tag_init(&r->t);
  r->round_bytes = vt_mpi_env_size("VITESSE_MPI_ROUND_BYTES", (int64_t)16 << 20);
  if ((rc = vt_mpi_setup(w, setup_parse, r)) >= 0) goto done;
  /* The corpus options once, resolved with the model's (every part is read with them). */
  vt_reader_opts ro;
  vt_model_reader(r->t.m, &r->t.to, &ro);
  r->t.to.reader = ro;
  r->t.to.reader_from_model = 0;
  int share = vt_mpi_node_share(w); /* no --threads: one worker per CPU of the share */
  if (!r->t.run.opts.threads && share > 0) r->t.run.opts.threads = share;
  int quiet = r->t.run.quiet;
  r->t.run.quiet = 1; /* the ranks' engines show nothing; rank 0 shows the job's progress */
  if ((rc = vt_mpi_setup(w, setup_engine, r)) >= 0) goto done;
  vt_cli_progress_init(&r->pg, quiet || w->rank != 0, 0);
  r->pg.unit = "sentences";
  r->resume = r->t.run.resume;
  code = r->resume ? vt_mpi_tag_resume_begin(r, quiet) : vt_mpi_out_open(w, &r->out, r->t.out_path);
  if (code != VT_MPI_OK) {
    rc = vt_mpi_exit_status(w, code);
    goto done;
  }
  if (w->rank == 0 && !r->resume) vt_cli_signals_temp(r->out.tmp); /* a second ^C removes it */
  r->t0 = vt_mpi_now();
  double c0 = vt_cli_cpu_now();
  static const char *const stdin_only[] = {"-"};
  const char *const *files = r->t.n_files ? r->t.files : stdin_only;
  int n_files = r->t.n_files ? r->t.n_files : 1;
  code = VT_MPI_OK;
  for (int i = r->from.file; i < n_files && code == VT_MPI_OK; i++) {
    if (i > r->from.file) { /* a resumed run: the next file from its start */
      r->at.file = i;
      r->at.offset = r->at.lines = 0;
    }
    code = tag_one(r, files[i]);
  }
  if (r->pg.enabled) {
    vt_progress p;
    memset(&p, 0, sizeof p);
    p.final = 1;
    vt_cli_progress_show(&r->pg, &p);
  }
  if (code == VT_MPI_CANCELED && r->resume) /* the last round written made durable */
    if (vt_mpi_tag_resume_mark(r, 1) != VT_MPI_OK) code = VT_MPI_FAIL;
  if (code == VT_MPI_OK) code = vt_mpi_out_commit(w, &r->out);
  if (r->resume) code = vt_mpi_tag_resume_end(r, code);
  if (code != VT_MPI_OK) {
    vt_mpi_out_abort(w, &r->out);
    if (code == VT_MPI_CANCELED) {
      long long mine = r->tot.sentences, all = 0;
      MPI_Reduce(&mine, &all, 1, MPI_LONG_LONG, MPI_SUM, 0, w->comm);
      int sig = atomic_load(&vt_cli_stop), top = 0;
      MPI_Allreduce(&sig, &top, 1, MPI_INT, MPI_MAX, w->comm);
      if (w->rank == 0 && r->resume)
        vt_cli_error("interrupted by %s: %lld sentences were tagged in order; %s keeps them, "
                     "and the same command continues after them",
                     vt_cli_signal_name(top), (long long)r->at.sentences, r->rr.partial[0]);
      else if (w->rank == 0)
        vt_cli_error("interrupted by %s: %lld sentences were tagged; %s was not written",
                     vt_cli_signal_name(top), all, r->t.out_path);
    }
    rc = vt_mpi_exit_status(w, code);
    goto done;
  }
  if (r->t.run.stats || (r->joint && r->t.to.eval))
    print_report(r, vt_mpi_now() - r->t0, vt_cli_cpu_now() - c0);
  rc = 0;
done:
  if (w->rank == 0) vt_cli_signals_temp(NULL);
  vt_cli_resume_end(&r->rr);
  vt_cli_engine_stop(r->eng);
  vt_cli_tag_free(&r->t);
  free(r->in.p);
  free(r->outbuf.p);
  free(r);
  return rc;
}
