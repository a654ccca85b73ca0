/* mpi/tag.c: `vitesse-mpi tag`, `vitesse tag` across the ranks of an MPI job.
 *
 * A regular uncompressed file is cut by byte ranges: in round r, rank i takes nominal range
 * [(rP + i) R, (rP + i + 1) R) (R = VITESSE_MPI_ROUND_BYTES, default 16 MiB), both ends moved
 * forward to the next split point (split.h), reads it with pread and tags it with its engine
 * (vt_engine_tag_part): a sentence straddling a nominal cut goes whole to the rank before the
 * cut. Standard input, pipes and
 * gzip files cannot be cut without reading them: rank 0 reads (inflates) them, R P bytes a
 * round, cuts that at split points into P parts of about the same size (the tail after the last
 * split point waits for the next round) and scatters them (MPI_Scatterv). Either way, each round's
 * outputs go into the output file at their prefix-sum offsets (outfile.c). Line numbers in messages
 * count from the file's start (an MPI_Exscan of each part's newlines), and with sep auto the
 * separator is decided once for the file by its first token line, as the reader does. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "chunk_cli.h"
#include "mpi_cli.h"
#include "split.h"
#include "tag_cli.h"

#define MSG 1024

/* Per-rank time by phase, and what was tagged. */
typedef struct tag_phases {
  double read, tag, exchange, write; /* seconds */
} tag_phases;

typedef struct tag_run {
  const vt_mpi *w;
  vt_cli_tag t;
  int argc;
  char **argv;
  vt_engine *eng;
  vt_mpi_out out;
  int64_t round_bytes;
  vt_mpi_buf in, outbuf; /* this rank's part and its output */
  vt_run_report tot;     /* this rank's, summed over rounds */
  tag_phases ph;
  int64_t rounds;
  vt_cli_progress pg;                                       /* rank 0 */
  int64_t done_sents, done_tokens, done_bytes, total_bytes; /* job-wide, for the progress */
  double t0;
} tag_run;

static int setup_parse(void *ctx) {
  tag_run *r = ctx;
  vt_model *m = NULL;
  int joint = vt_chunk_cli_joint_model(r->argc, r->argv, &m);
  if (joint < 0) return 2;
  if (joint) {
    vt_model_close(m);
    vt_cli_error("tag: joint POS + chunk models are not supported by vitesse-mpi (run vitesse "
                 "chunk-tag)");
    return 2;
  }
  r->t.m = m;
  return vt_cli_tag_setup(&r->t, r->argc, r->argv);
}

static int setup_engine(void *ctx) {
  tag_run *r = ctx;
  return vt_cli_engine_start(&r->t.run, 0, &r->eng) != 0 ? 2 : -1;
}

static void report_add(vt_run_report *a, const vt_run_report *b) {
  a->sentences += b->sentences;
  a->tokens += b->tokens;
  a->wall_seconds += b->wall_seconds;
  a->feature_seconds += b->feature_seconds;
  a->decode_seconds += b->decode_seconds;
  a->lookups += b->lookups;
  a->unknown_features += b->unknown_features;
  a->cache_hits += b->cache_hits;
  a->decode.sentences += b->decode.sentences;
  a->decode.tokens += b->decode.tokens;
  a->decode.cells += b->decode.cells;
  a->decode.iterations += b->decode.iterations;
  a->decode.fallbacks += b->decode.fallbacks;
  a->decode.budget_fallbacks += b->decode.budget_fallbacks;
}

static int64_t count_lines(const char *p, size_t n) {
  int64_t k = 0;
  if (!n) return 0;
  for (const char *e = p + n; (p = memchr(p, '\n', (size_t)(e - p))) != NULL; p++) k++;
  return k;
}

/* Tags this rank's part (r->in) whose first line follows `first_line` lines, then writes every
 * rank's output; `bytes_upto` is how far into the file the round got (progress). Returns an
 * agreed code. */
static int tag_round(tag_run *r, const char *name, int64_t first_line, int64_t bytes_upto) {
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
  if (w->rank == 0 && r->pg.enabled) {
    r->done_sents += sum[0];
    r->done_tokens += sum[1];
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

/* A regular uncompressed file: every rank reads its own ranges. */
static int tag_file_ranges(tag_run *r, const char *path, int64_t size, int sep) {
  const vt_mpi *w = r->w;
  char msg[MSG] = "";
  vt_mpi_src *src = calloc(1, sizeof *src);
  int code = VT_MPI_OK;
  if (!src) {
    snprintf(msg, sizeof msg, "out of memory");
    code = VT_MPI_FAIL;
  } else if ((src->fd = open(path, O_RDONLY)) < 0) {
    snprintf(msg, sizeof msg, "%s: cannot open: %s", path, strerror(errno));
    code = VT_MPI_BAD;
  }
  if (src) {
    src->size = size;
    src->at_eof = 1;
  }
  if ((code = vt_mpi_agree(w, code, msg)) != VT_MPI_OK) goto done;
  if (sep != VT_SEP_AUTO) { /* the file's separator, once (the reader's auto rule) */
    r->t.to.reader.sep = (vt_sep)sep;
  }
  /* Rounds of at most round_bytes a rank; a smaller file is shared evenly. */
  const int64_t P = w->size, even = (size + P - 1) / P;
  const int64_t R = even < r->round_bytes ? (even > 0 ? even : 1) : r->round_bytes;
  const int64_t rounds = (size + R * P - 1) / (R * P);
  int64_t lines_before = 0;
  for (int64_t k = 0; k < rounds; k++) {
    double t = vt_mpi_now();
    int64_t j = k * P + w->rank;
    int64_t q0 = j * R, q1 = (j + 1) * R;
    int64_t from = vt_mpi_split(src, q0 < size ? q0 : size);
    int64_t to = from < 0 ? from : vt_mpi_split(src, q1 < size ? q1 : size);
    code = VT_MPI_OK;
    r->in.len = 0;
    if (from < 0 || to < 0) {
      snprintf(msg, sizeof msg, "%s: read error: %s", path, strerror(errno));
      code = VT_MPI_BAD;
    } else if (vt_mpi_buf_reserve(&r->in, (size_t)(to - from))) {
      snprintf(msg, sizeof msg, "out of memory (%lld bytes of %s)", (long long)(to - from), path);
      code = VT_MPI_FAIL;
    } else if (vt_mpi_read_range(src, from, to, r->in.p)) {
      snprintf(msg, sizeof msg, "%s: read error: %s", path, strerror(errno));
      code = VT_MPI_BAD;
    } else {
      r->in.len = (size_t)(to - from);
    }
    long long mine = count_lines(r->in.p, r->in.len), before = 0, all = 0;
    r->ph.read += vt_mpi_now() - t;
    t = vt_mpi_now();
    MPI_Exscan(&mine, &before, 1, MPI_LONG_LONG, MPI_SUM, w->comm);
    if (w->rank == 0) before = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_LONG_LONG, MPI_SUM, w->comm);
    code = vt_mpi_agree(w, code, msg);
    r->ph.exchange += vt_mpi_now() - t;
    if (code != VT_MPI_OK) goto done;
    int64_t upto = (k + 1) * R * P;
    code = tag_round(r, path, lines_before + before, upto < size ? upto : size);
    if (code != VT_MPI_OK) goto done;
    lines_before += all;
  }
done:
  if (src && src->fd >= 0) close(src->fd);
  free(src);
  return code;
}

/* Rank 0 reads (and inflates) the stream; the parts are scattered. */
static int tag_stream(tag_run *r, const char *path, int comments, int sep_given) {
  const vt_mpi *w = r->w;
  const int P = w->size;
  const int64_t R = r->round_bytes;
  char msg[MSG] = "";
  gzFile gz = NULL;
  vt_mpi_buf buf = {0, 0, 0};
  vt_mpi_src *src = NULL;
  long long *cut = NULL; /* rank 0: P (bytes, first line) pairs */
  int code = VT_MPI_OK, eof = 0, sep = sep_given ? -1 : VT_SEP_AUTO;
  int64_t lines = 0, consumed = 0;
  if (w->rank == 0) {
    int fd = strcmp(path, "-") ? open(path, O_RDONLY) : dup(0);
    src = calloc(1, sizeof *src);
    cut = malloc(2 * (size_t)P * sizeof *cut);
    if (fd < 0) {
      snprintf(msg, sizeof msg, "%s: cannot open: %s", path, strerror(errno));
      code = VT_MPI_BAD;
    } else if (!src || !cut || !(gz = gzdopen(fd, "rb"))) {
      close(fd);
      snprintf(msg, sizeof msg, "out of memory");
      code = VT_MPI_FAIL;
    }
    if (gz) gzbuffer(gz, 1 << 18);
  }
  if ((code = vt_mpi_agree(w, code, msg)) != VT_MPI_OK) goto done;
  for (;;) {
    double t = vt_mpi_now();
    int more = 0;
    code = VT_MPI_OK;
    if (w->rank == 0) { /* fill up to P R bytes, and on until the last cut is a split point */
      int64_t want = R * P, last = -1, nominal = 0;
      for (;;) {
        while (!eof && (int64_t)buf.len < want) {
          if (vt_mpi_buf_reserve(&buf, (size_t)(want - (int64_t)buf.len))) {
            snprintf(msg, sizeof msg, "out of memory (reading %s)", path);
            code = VT_MPI_FAIL;
            break;
          }
          size_t room = (size_t)(want - (int64_t)buf.len);
          int n = gzread(gz, buf.p + buf.len, (unsigned)(room > (1u << 30) ? 1u << 30 : room));
          int zc = Z_OK;
          const char *zmsg = n <= 0 ? gzerror(gz, &zc) : "";
          if (n < 0 || (n == 0 && zc != Z_OK && zc != Z_STREAM_END)) {
            if (zc == Z_ERRNO)
              snprintf(msg, sizeof msg, "%s: read error: %s", path, strerror(errno));
            else
              snprintf(msg, sizeof msg, "%s: corrupt or truncated gzip data: %s", path, zmsg);
            code = VT_MPI_BAD;
            break;
          }
          if (n == 0) eof = 1;
          buf.len += (size_t)n;
        }
        if (code != VT_MPI_OK) break;
        src->mem = buf.p;
        src->size = (int64_t)buf.len;
        src->at_eof = eof;
        nominal = R * P < src->size ? R * P : src->size;
        last = vt_mpi_split(src, nominal);
        if (last >= 0 || eof) break;
        want = (int64_t)buf.len * 2; /* a sentence longer than the round: read on */
      }
      if (code == VT_MPI_OK) {
        if (sep == VT_SEP_AUTO) sep = vt_mpi_first_sep(src, comments);
        if (sep == VT_SEP_AUTO && eof) sep = VT_SEP_SPACE; /* no token line at all */
        int64_t at = 0;
        for (int i = 0; i < P; i++) {
          /* the round's bytes shared evenly (the last round is short) */
          int64_t end = i == P - 1 ? last : vt_mpi_split(src, nominal * (i + 1) / P);
          if (end < 0 || end > last) end = last;
          if (end - at > INT32_MAX) {
            snprintf(msg, sizeof msg, "%s: a sentence over 2 GiB cannot be sent to a rank", path);
            code = VT_MPI_BAD;
          }
          cut[2 * i] = end - at;
          cut[2 * i + 1] = lines;
          lines += count_lines(buf.p + at, (size_t)(end - at));
          at = end;
        }
        more = last > 0 || !eof;
      }
    }
    r->ph.read += vt_mpi_now() - t;
    t = vt_mpi_now();
    if ((code = vt_mpi_agree(w, code, msg)) != VT_MPI_OK) goto done;
    int hdr[2] = {more, sep};
    MPI_Bcast(hdr, 2, MPI_INT, 0, w->comm);
    if (!hdr[0]) break;
    if (hdr[1] == VT_SEP_TAB || hdr[1] == VT_SEP_SPACE) r->t.to.reader.sep = (vt_sep)hdr[1];
    long long mine[2];
    MPI_Scatter(cut, 2, MPI_LONG_LONG, mine, 2, MPI_LONG_LONG, 0, w->comm);
    r->in.len = 0;
    int fail = vt_mpi_buf_reserve(&r->in, (size_t)mine[0] + 1) ? 1 : 0, any = 0;
    MPI_Allreduce(&fail, &any, 1, MPI_INT, MPI_MAX, w->comm);
    if (any) {
      snprintf(msg, sizeof msg, "out of memory (a part of %lld bytes)", mine[0]);
      code = vt_mpi_agree(w, fail ? VT_MPI_FAIL : VT_MPI_OK, msg);
      goto done;
    }
    int *counts = NULL, *displs = NULL;
    if (w->rank == 0) {
      counts = malloc((size_t)P * sizeof *counts);
      displs = malloc((size_t)P * sizeof *displs);
      if (counts && displs) /* < P R + a sentence: the ints hold (checked above) */
        for (int i = 0, at = 0; i < P; at += counts[i++]) {
          counts[i] = (int)cut[2 * i];
          displs[i] = at;
        }
    }
    MPI_Scatterv(buf.p, counts, displs, MPI_CHAR, r->in.p, (int)mine[0], MPI_CHAR, 0, w->comm);
    r->in.len = (size_t)mine[0];
    int64_t sent = 0;
    if (w->rank == 0) { /* the tail after the last cut waits for the next round */
      for (int i = 0; i < P; i++) sent += cut[2 * i];
      memmove(buf.p, buf.p + sent, buf.len - (size_t)sent);
      buf.len -= (size_t)sent;
      consumed += sent;
      free(counts);
      free(displs);
    }
    r->ph.exchange += vt_mpi_now() - t;
    if ((code = tag_round(r, path, mine[1], consumed)) != VT_MPI_OK) goto done;
  }
done:
  if (gz) gzclose(gz);
  free(buf.p);
  free(src);
  free(cut);
  return code;
}

/* Tags one input file (or standard input: "-") into the output. Returns an agreed code. */
static int tag_one(tag_run *r, const char *path) {
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
    code = tag_stream(r, path, comments, sep_given);
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
    code = tag_file_ranges(r, path, info[2], sep);
  }
  r->t.to.reader.sep = ro.sep;
  return code;
}

/* CPU seconds of this process. */
static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Rank 0 prints the job's --stats object: the tagging figures summed over ranks, the phases'
 * slowest rank, and rank 0's engine. */
static void print_stats(tag_run *r, double secs, double cpu) {
  const vt_mpi *w = r->w;
  vt_run_report sum = r->tot;
  double d[7] = {r->tot.wall_seconds, r->tot.feature_seconds, r->tot.decode_seconds, cpu, 0, 0, 0};
  double dsum[7];
  long long n[10] = {r->tot.sentences,        r->tot.tokens,
                     r->tot.lookups,          r->tot.unknown_features,
                     r->tot.cache_hits,       r->tot.decode.sentences,
                     r->tot.decode.tokens,    r->tot.decode.cells,
                     r->tot.decode.fallbacks, r->tot.decode.budget_fallbacks};
  long long nsum[10];
  double ph[4] = {r->ph.read, r->ph.tag, r->ph.exchange, r->ph.write}, phmax[4];
  MPI_Reduce(d, dsum, 7, MPI_DOUBLE, MPI_SUM, 0, w->comm);
  MPI_Reduce(n, nsum, 10, MPI_LONG_LONG, MPI_SUM, 0, w->comm);
  MPI_Reduce(ph, phmax, 4, MPI_DOUBLE, MPI_MAX, 0, w->comm);
  if (w->rank != 0) return;
  sum.sentences = nsum[0];
  sum.tokens = nsum[1];
  sum.lookups = nsum[2];
  sum.unknown_features = nsum[3];
  sum.cache_hits = nsum[4];
  sum.decode.sentences = nsum[5];
  sum.decode.tokens = nsum[6];
  sum.decode.cells = nsum[7];
  sum.decode.fallbacks = nsum[8];
  sum.decode.budget_fallbacks = nsum[9];
  sum.feature_seconds = dsum[1];
  sum.decode_seconds = dsum[2];
  sum.wall_seconds = secs; /* the job's */
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
  tag_run *r = calloc(1, sizeof *r);
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
  vt_mpi_node_share(w);
  int quiet = r->t.run.quiet;
  r->t.run.quiet = 1; /* the ranks' engines show nothing; rank 0 shows the job's progress */
  if ((rc = vt_mpi_setup(w, setup_engine, r)) >= 0) goto done;
  vt_cli_progress_init(&r->pg, quiet || w->rank != 0, 0);
  r->pg.unit = "sentences";
  if ((code = vt_mpi_out_open(w, &r->out, r->t.out_path)) != VT_MPI_OK) {
    rc = vt_mpi_exit_status(w, code);
    goto done;
  }
  if (w->rank == 0) vt_cli_signals_temp(r->out.tmp); /* a second ^C removes it */
  r->t0 = vt_mpi_now();
  double c0 = cpu_now();
  static const char *const stdin_only[] = {"-"};
  const char *const *files = r->t.n_files ? r->t.files : stdin_only;
  int n_files = r->t.n_files ? r->t.n_files : 1;
  code = VT_MPI_OK;
  for (int i = 0; i < n_files && code == VT_MPI_OK; i++) code = tag_one(r, files[i]);
  if (r->pg.enabled) {
    vt_progress p;
    memset(&p, 0, sizeof p);
    p.final = 1;
    vt_cli_progress_show(&r->pg, &p);
  }
  if (code == VT_MPI_OK) code = vt_mpi_out_commit(w, &r->out);
  if (code != VT_MPI_OK) {
    vt_mpi_out_abort(w, &r->out);
    if (code == VT_MPI_CANCELED) {
      long long mine = r->tot.sentences, all = 0;
      MPI_Reduce(&mine, &all, 1, MPI_LONG_LONG, MPI_SUM, 0, w->comm);
      int sig = atomic_load(&vt_cli_stop), top = 0;
      MPI_Allreduce(&sig, &top, 1, MPI_INT, MPI_MAX, w->comm);
      if (w->rank == 0)
        vt_cli_error("interrupted by %s: %lld sentences were tagged; %s was not written",
                     top == SIGTERM ? "SIGTERM" : "SIGINT", all, r->t.out_path);
    }
    rc = vt_mpi_exit_status(w, code);
    goto done;
  }
  if (r->t.run.stats) print_stats(r, vt_mpi_now() - r->t0, cpu_now() - c0);
  rc = 0;
done:
  if (w->rank == 0) vt_cli_signals_temp(NULL);
  vt_cli_engine_stop(r->eng);
  vt_cli_tag_free(&r->t);
  free(r->in.p);
  free(r->outbuf.p);
  free(r);
  return rc;
}
