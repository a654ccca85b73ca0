/* engine/cli/tag_resume.c: a tagging run that survives its end (tag_resume.h).
 *
 * OUT.partial holds the output so far; OUT.progress (replaced atomically: written beside,
 * synced, renamed) holds the run's identity (the model's and every input's size, mtime and a
 * hash of their head and tail; the options that can change the output) and a place: the input
 * file, byte offset, line and separator after the last batch of whole sentences, the sentences
 * before it, and OUT.partial's length there. A background thread makes a place durable: the
 * writer hands it the place it reached (after flushing the stream) about every interval, and the
 * thread syncs OUT.partial's data, then writes OUT.progress, so a progress file never claims
 * bytes that are not on disk. A rerun checks the identity, cuts OUT.partial to the recorded
 * length and tags from the recorded place (vt_engine_tag_from): the bytes after it are those an
 * uninterrupted run writes there, as the output of a batch depends only on its sentences. */
#define _POSIX_C_SOURCE 200809L
#include "cli/tag_resume.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/run_id.h"

#define MAGIC "vitesse-tag-resume 1"

typedef struct resume_run {
  const vt_cli_tag_run *r;
  char *partial, *progress, *tmp; /* OUT.partial, OUT.progress, OUT.progress.tmp */
  char *head;                     /* the progress file's identity lines */
  FILE *out;
  double every, last; /* the interval, and when the writer last handed a place on */
  vt_corpus_pos at;   /* the place after the last batch written (the writer's) */
  pthread_t th;
  int th_on;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  vt_corpus_pos snap; /* the place the thread is to make durable, with OUT.partial's length */
  long long snap_out;
  int snap_ready, stop;
  int sync_errno; /* the thread's first failure */
} resume_run;

/* Whether the option argv[i] changes no output byte (engine options, -o, -m, --resume); sets
 * *skip_next when its value is the next argument. The model is identified by its content. */
static int neutral_option(const char *a, int *skip_next) {
  static const char *const with_arg[] = {"threads",          "bind",   "topology", "batch-tokens",
                                         "max-model-memory", "output", "model"};
  static const char *const no_arg[] = {"quiet", "stats", "resume"};
  *skip_next = 0;
  if (!strcmp(a, "-o") || !strcmp(a, "-m")) return *skip_next = 1;
  if (!strncmp(a, "-o", 2) || !strncmp(a, "-m", 2)) return 1;
  if (strncmp(a, "--", 2)) return 0;
  const char *name = a + 2, *eq = strchr(name, '=');
  size_t n = eq ? (size_t)(eq - name) : strlen(name);
  for (size_t i = 0; i < sizeof with_arg / sizeof *with_arg; i++)
    if (strlen(with_arg[i]) == n && !strncmp(name, with_arg[i], n)) return *skip_next = !eq, 1;
  for (size_t i = 0; i < sizeof no_arg / sizeof *no_arg; i++)
    if (strlen(no_arg[i]) == n && !strncmp(name, no_arg[i], n)) return 1;
  return 0;
}

/* The identity lines of the run `r`: model, inputs, options (escaped: bytes outside '!'..'~'
 * and '%' as %XX). NULL after printing one line (a file that is not a regular file, no
 * memory). */
static char *identity(const vt_cli_tag_run *r) {
  char *s = NULL;
  size_t len = 0;
  vt_cli_file_id id;
  if (vt_cli_strput(&s, &len, "%s\n", MAGIC)) goto nomem;
  if (!r->model_path || vt_cli_file_id_of(r->model_path, &id)) {
    vt_cli_error("tag: --resume: the model %s is not a regular file that can be read",
                 r->model_path ? r->model_path : "-");
    goto fail;
  }
  if (vt_cli_strput(&s, &len, "model %lld %lld %016llx\n", id.size, id.mtime_ns, id.hash) ||
      vt_cli_strput(&s, &len, "inputs %d\n", r->n_files))
    goto nomem;
  for (int i = 0; i < r->n_files; i++) {
    if (vt_cli_file_id_of(r->files[i], &id)) {
      vt_cli_error("tag: --resume: %s is not a regular file that can be read again (standard "
                   "input and pipes cannot resume)",
                   r->files[i]);
      goto fail;
    }
    if (vt_cli_strput(&s, &len, "input %lld %lld %016llx\n", id.size, id.mtime_ns, id.hash))
      goto nomem;
  }
  if (vt_cli_strput(&s, &len, "options")) goto nomem;
  for (int i = 0; i < r->n_opts; i++) {
    int skip;
    if (neutral_option(r->opts[i], &skip)) {
      i += skip;
      continue;
    }
    char esc[400];
    size_t k = 0;
    esc[k++] = ' ';
    for (const unsigned char *p = (const unsigned char *)r->opts[i]; *p && k < sizeof esc - 4; p++)
      k += (size_t)(*p > ' ' && *p <= '~' && *p != '%'
                        ? (esc[k] = (char)*p, 1)
                        : snprintf(esc + k, sizeof esc - k, "%%%02X", *p));
    esc[k] = 0;
    if (vt_cli_strput(&s, &len, "%s", esc)) goto nomem;
  }
  if (vt_cli_strput(&s, &len, "\n")) goto nomem;
  /* The files options name (a tag dictionary, forbidden transitions): their content too. */
  for (int i = 0; i < r->n_opts; i++) {
    const char *a = r->opts[i], *path = NULL;
    for (int k = 0; k < 2 && !path; k++) {
      const char *name = k ? "--forbid-transitions" : "--tag-dict";
      size_t n = strlen(name);
      if (!strcmp(a, name) && i + 1 < r->n_opts)
        path = r->opts[i + 1];
      else if (!strncmp(a, name, n) && a[n] == '=')
        path = a + n + 1;
    }
    if (!path) continue;
    if (vt_cli_file_id_of(path, &id)) {
      vt_cli_error("tag: --resume: %s is not a regular file that can be read", path);
      goto fail;
    }
    if (vt_cli_strput(&s, &len, "file %lld %lld %016llx\n", id.size, id.mtime_ns, id.hash))
      goto nomem;
  }
  return s;
nomem:
  vt_cli_error("out of memory");
fail:
  free(s);
  return NULL;
}

/* The line of `s` (identity lines) that starts with `key` ("model ", "options"...), or the
 * input line number `i` (key NULL); its length in *n. */
static const char *line_of(const char *s, const char *key, int i, size_t *n) {
  for (const char *p = s; *p;) {
    const char *e = strchr(p, '\n');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (key ? !strncmp(p, key, strlen(key)) : !strncmp(p, "input ", 6) && i-- == 0) {
      *n = len;
      return p;
    }
    p += len + (e != NULL);
  }
  *n = 0;
  return "";
}

/* Says in one line how the saved identity `was` differs from `now`. */
static void say_differs(const resume_run *rr, const char *was, const char *now) {
  const char *what = "the progress file is not one of vitesse tag --resume";
  char buf[640] = "";
  size_t n1, n2;
  const char *a = line_of(was, MAGIC, 0, &n1), *b;
  if (n1) {
    what = buf;
    a = line_of(was, "model ", 0, &n1), b = line_of(now, "model ", 0, &n2);
    if (n1 != n2 || memcmp(a, b, n1))
      snprintf(buf, sizeof buf, "the model %s differs (size mtime hash now %.*s, was %.*s)",
               rr->r->model_path, (int)n2 - 6, b + 6, (int)n1 - 6, a + 6);
    a = line_of(was, "inputs ", 0, &n1), b = line_of(now, "inputs ", 0, &n2);
    if (!buf[0] && (n1 != n2 || memcmp(a, b, n1)))
      snprintf(buf, sizeof buf, "the number of input files differs (now %.*s, was %.*s)",
               (int)n2 - 7, b + 7, (int)n1 - 7, a + 7);
    for (int i = 0; !buf[0] && i < rr->r->n_files; i++) {
      a = line_of(was, NULL, i, &n1), b = line_of(now, NULL, i, &n2);
      if (n1 != n2 || memcmp(a, b, n1))
        snprintf(buf, sizeof buf, "the input %s differs (size mtime hash now %.*s, was %.*s)",
                 rr->r->files[i], (int)n2 - 6, b + 6, (int)n1 - 6, a + 6);
    }
    a = line_of(was, "options", 0, &n1), b = line_of(now, "options", 0, &n2);
    if (!buf[0] && (n1 != n2 || memcmp(a, b, n1)))
      snprintf(buf, sizeof buf, "the options differ (now:%.*s; was:%.*s)", (int)n2 - 7, b + 7,
               (int)n1 - 7, a + 7);
    if (!buf[0])
      snprintf(buf, sizeof buf,
               "a file an option names (--tag-dict, --forbid-transitions) "
               "differs");
  }
  vt_cli_error("tag: --resume: %s: %s; remove it and %s to start over", rr->progress, what,
               rr->partial);
}

/* Syncs the folder that holds `path`, so that names made in it survive a crash. */
static void dir_sync(const char *path) {
  char *dir = strdup(path), *slash = dir ? strrchr(dir, '/') : NULL;
  if (!dir) return;
  if (slash)
    slash[slash == dir] = 0;
  else
    strcpy(dir, ".");
  int dfd = open(dir, O_RDONLY);
  if (dfd >= 0) {
    fsync(dfd);
    close(dfd);
  }
  free(dir);
}

/* Writes the progress file: identity lines, then the place `p` with OUT.partial's length `out`:
 * written beside, synced, renamed over, the folder synced. 0, or an errno. */
static int progress_write(const resume_run *rr, const vt_corpus_pos *p, long long out) {
  int err = 0, fd = open(rr->tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return errno;
  char at[200];
  int n =
      snprintf(at, sizeof at, "at %d %lld %lld %d %lld %lld\n", (int)p->file, (long long)p->offset,
               (long long)p->lines, (int)p->sep, (long long)p->sentences, out);
  size_t hl = strlen(rr->head);
  if (write(fd, rr->head, hl) != (ssize_t)hl || write(fd, at, (size_t)n) != n || fsync(fd) != 0)
    err = errno ? errno : EIO;
  if (close(fd) != 0 && !err) err = errno;
  if (!err && rename(rr->tmp, rr->progress) != 0) err = errno;
  if (err) {
    unlink(rr->tmp);
    return err;
  }
  dir_sync(rr->progress); /* the new names (OUT.partial's, OUT.progress's) survive a crash */
  return 0;
}

/* The background thread: makes each place handed to it durable (OUT.partial's data, then the
 * progress file), until told to stop. */
static void *syncer(void *ctx) {
  resume_run *rr = ctx;
  pthread_mutex_lock(&rr->mu);
  for (;;) {
    while (!rr->snap_ready && !rr->stop) pthread_cond_wait(&rr->cv, &rr->mu);
    if (!rr->snap_ready) break;
    vt_corpus_pos p = rr->snap;
    long long out = rr->snap_out;
    rr->snap_ready = 0;
    pthread_mutex_unlock(&rr->mu);
    int err = fdatasync(fileno(rr->out)) != 0 ? errno : progress_write(rr, &p, out);
    pthread_mutex_lock(&rr->mu);
    if (err && !rr->sync_errno) rr->sync_errno = err;
  }
  pthread_mutex_unlock(&rr->mu);
  return NULL;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The engine's mark (after each batch written, one call at a time): about every interval, the
 * stream flushed and the place handed to the background thread. */
static void mark(void *ctx, const vt_corpus_pos *after) {
  resume_run *rr = ctx;
  rr->at = *after;
  double t = now_s();
  if (t - rr->last < rr->every) return;
  rr->last = t;
  if (fflush(rr->out) != 0) return; /* the sink's next write fails and says so */
  long long out = (long long)ftello(rr->out);
  pthread_mutex_lock(&rr->mu);
  rr->snap = *after;
  rr->snap_out = out;
  rr->snap_ready = 1;
  pthread_cond_signal(&rr->cv);
  pthread_mutex_unlock(&rr->mu);
}

/* Stops the background thread (the place it holds made durable first). */
static void syncer_stop(resume_run *rr) {
  if (!rr->th_on) return;
  pthread_mutex_lock(&rr->mu);
  rr->stop = 1;
  pthread_cond_signal(&rr->cv);
  pthread_mutex_unlock(&rr->mu);
  pthread_join(rr->th, NULL);
  rr->th_on = 0;
}

/* Makes the place after the last batch written durable, the background thread stopped. 0 or
 * an errno. */
static int durable_now(resume_run *rr) {
  syncer_stop(rr);
  if (rr->sync_errno) return rr->sync_errno;
  if (fflush(rr->out) != 0 || fdatasync(fileno(rr->out)) != 0) return errno ? errno : EIO;
  return progress_write(rr, &rr->at, (long long)ftello(rr->out));
}

/* Reads the progress file, when there is one, into *saved (malloc'd); 0 when there is none,
 * 1 when read, -1 after printing a failure. */
static int progress_read(const resume_run *rr, char **saved) {
  size_t len;
  *saved = NULL;
  if (access(rr->progress, F_OK) != 0) return 0;
  *saved = vt_cli_read_file(rr->progress, 1 << 26, "progress file", &len);
  return *saved ? 1 : -1;
}

/* Where the saved progress says the run is, into *p and *out; -1 when no place line parses. */
static int saved_place(const char *saved, vt_corpus_pos *p, long long *out) {
  size_t n;
  const char *a = line_of(saved, "at ", 0, &n);
  int file, sep;
  long long off, lines, sents;
  memset(p, 0, sizeof *p);
  if (!n || sscanf(a, "at %d %lld %lld %d %lld %lld", &file, &off, &lines, &sep, &sents, out) != 6)
    return -1;
  p->file = file;
  p->offset = off;
  p->lines = lines;
  p->sep = sep;
  p->sentences = sents;
  return 0;
}

/* The paths beside OUT; -1 when out of memory. */
static int paths(resume_run *rr, const char *out) {
  size_t n = strlen(out) + 16;
  rr->partial = malloc(n);
  rr->progress = malloc(n);
  rr->tmp = malloc(n + 4);
  if (!rr->partial || !rr->progress || !rr->tmp) return -1;
  snprintf(rr->partial, n, "%s.partial", out);
  snprintf(rr->progress, n, "%s.progress", out);
  snprintf(rr->tmp, n + 4, "%s.progress.tmp", out);
  return 0;
}

/* Opens OUT.partial where the run starts: a saved place (the file cut to its length there) or
 * the start. Sets rr->at and *from. Returns -1 to go on, else the exit status (printed). */
static int open_partial(resume_run *rr, const char *saved, const vt_corpus_pos **from) {
  long long out = 0;
  struct stat st;
  *from = NULL;
  memset(&rr->at, 0, sizeof rr->at);
  if (saved && stat(rr->partial, &st) == 0) { /* else: killed after its rename: start over */
    if (saved_place(saved, &rr->at, &out) || rr->at.file < 0 || rr->at.file >= rr->r->n_files ||
        out < 0) {
      vt_cli_error("tag: --resume: %s: no place in the input; remove it and %s to start over",
                   rr->progress, rr->partial);
      return VT_EXIT_USAGE;
    }
    if ((long long)st.st_size < out) {
      vt_cli_error("tag: --resume: %s holds %lld bytes, fewer than the %lld %s records; remove "
                   "both to start over",
                   rr->partial, (long long)st.st_size, out, rr->progress);
      return VT_EXIT_USAGE;
    }
    int fd = open(rr->partial, O_WRONLY);
    if (fd < 0 || ftruncate(fd, (off_t)out) != 0 || !(rr->out = fdopen(fd, "wb")) ||
        fseeko(rr->out, (off_t)out, SEEK_SET) != 0) {
      vt_cli_error("%s: cannot open to continue: %s", rr->partial, strerror(errno));
      if (fd >= 0 && !rr->out) close(fd);
      return VT_EXIT_USAGE;
    }
    *from = &rr->at;
    if (!rr->r->run->quiet)
      fprintf(stderr, "vitesse: tag --resume: continuing after %lld sentences (%s, line %lld)\n",
              (long long)rr->at.sentences, rr->r->files[rr->at.file], (long long)rr->at.lines);
    return -1;
  }
  if (!(rr->out = fopen(rr->partial, "wb"))) {
    vt_cli_error("%s: cannot create: %s", rr->partial, strerror(errno));
    return VT_EXIT_USAGE;
  }
  int err = progress_write(rr, &rr->at, 0); /* the identity, before any output */
  if (err) {
    vt_cli_error("%s: cannot write: %s", rr->progress, strerror(err));
    return VT_EXIT_USAGE;
  }
  return -1;
}

/* The refusals that need no file: one line, exit 2; -1 when the run may resume. */
static int refuse(const vt_cli_tag_run *r) {
  const char *why = NULL;
  if (!r->out_path || !strcmp(r->out_path, "-"))
    why = "needs -o OUT (the progress is kept beside OUT)";
  else if (r->n_files == 0)
    why = "standard input cannot resume: name the input files";
  else if (r->filter)
    why = "not with -t or -q (their scores cover the whole run)";
  else if (r->to->eval)
    why = "not with --eval (its scores cover the whole run)";
  for (int i = 0; !why && i < r->n_files; i++)
    if (!strcmp(r->files[i], "-")) why = "standard input cannot resume: name the input files";
  if (!why) return -1;
  vt_cli_error("tag: --resume: %s", why);
  return VT_EXIT_USAGE;
}

int vt_cli_tag_resume_drive(const vt_cli_tag_run *r) {
  resume_run rr;
  vt_engine *eng = NULL;
  char *saved = NULL;
  int rc = refuse(r), mu_on = 0;
  memset(&rr, 0, sizeof rr);
  rr.r = r;
  if (rc >= 0) return rc;
  rc = VT_EXIT_USAGE;
  const char *ev = getenv("VITESSE_RESUME_INTERVAL");
  rr.every = ev && atof(ev) >= 0 ? atof(ev) : 2.0;
  if (paths(&rr, r->out_path)) {
    vt_cli_error("out of memory");
    rc = VT_EXIT_FAIL;
    goto done;
  }
  if (!(rr.head = identity(r))) goto done;
  int got = progress_read(&rr, &saved);
  if (got < 0) goto done;
  if (got && (strlen(saved) < strlen(rr.head) || memcmp(saved, rr.head, strlen(rr.head)))) {
    say_differs(&rr, saved, rr.head);
    goto done;
  }
  const vt_corpus_pos *from;
  if ((rc = open_partial(&rr, got ? saved : NULL, &from)) >= 0) goto done;
  rc = VT_EXIT_USAGE;
  if (vt_cli_engine_start(r->run, 0, &eng) != 0) goto done;
  if (pthread_mutex_init(&rr.mu, NULL) || pthread_cond_init(&rr.cv, NULL)) goto done;
  mu_on = 1;
  rr.last = now_s();
  if (pthread_create(&rr.th, NULL, syncer, &rr) == 0) rr.th_on = 1;
  const double t0 = vt_cli_now();
  struct timespec c0;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
  vt_run_report rep;
  vt_status st = vt_engine_tag_from(eng, r->m, r->to, r->files, r->n_files, from, mark, &rr,
                                    vt_sink_file, rr.out, &rep);
  int err = durable_now(&rr);
  if (st == VT_ECANCELED && !err) {
    int sig = atomic_load(&vt_cli_stop);
    vt_cli_error("interrupted by %s: %lld sentences were tagged in order; %s keeps them, and "
                 "the same command continues after them",
                 sig == SIGTERM ? "SIGTERM" : "SIGINT",
                 (long long)(rr.at.sentences ? rr.at.sentences : rep.sentences), rr.partial);
    rc = 128 + (sig ? sig : SIGINT);
    goto done;
  }
  if (rep.write_errno || err) { /* kept: the run continues once there is room */
    vt_cli_error("%s: write failed: %s", rr.partial,
                 strerror(rep.write_errno ? rep.write_errno : err));
    rc = VT_EXIT_FAIL;
    goto done;
  }
  if (st != VT_OK) { /* bad input: nothing half-written is left */
    vt_cli_error("%s", vt_last_error());
    rc = st == VT_EFORMAT || st == VT_EUNSUPPORTED || st == VT_EIO ? VT_EXIT_USAGE : VT_EXIT_FAIL;
    unlink(rr.partial);
    unlink(rr.progress);
    goto done;
  }
  FILE *f = rr.out;
  rr.out = NULL;
  if (fclose(f) != 0 || rename(rr.partial, r->out_path) != 0) {
    vt_cli_error("%s: cannot rename to %s: %s", rr.partial, r->out_path, strerror(errno));
    rc = VT_EXIT_FAIL;
    goto done;
  }
  dir_sync(r->out_path);
  unlink(rr.progress); /* after the rename: a kill between the two only re-tags */
  struct timespec c1;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
  const double secs = vt_cli_now() - t0,
               cpu = (double)(c1.tv_sec - c0.tv_sec) + 1e-9 * (double)(c1.tv_nsec - c0.tv_nsec);
  if (r->report) r->report(r->ctx, &rep, secs, cpu, stderr);
  if (r->run->stats) {
    vt_engine_stats_json(eng, stderr);
    fputs("}\n", stderr);
  }
  rc = VT_EXIT_OK;
done:
  syncer_stop(&rr);
  if (rr.out) fclose(rr.out);
  if (mu_on) {
    pthread_mutex_destroy(&rr.mu);
    pthread_cond_destroy(&rr.cv);
  }
  vt_cli_engine_stop(eng);
  free(saved);
  free(rr.head);
  free(rr.partial);
  free(rr.progress);
  free(rr.tmp);
  return rc;
}
