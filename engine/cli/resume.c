/* engine/cli/resume.c: the files a resumable run keeps beside its output (resume.h).
 *
 * OUT.partial holds the output so far (P.partial the second output's); OUT.progress (replaced
 * atomically: written beside, synced, renamed) holds the run's identity (its inputs' size, mtime
 * and a hash of their head and tail; the options that can change the output) and a place: the
 * input file, byte offset, line and separator after the last batch of whole sentences, the
 * sentences before it, and the outputs' lengths there. A background thread makes a place
 * durable: the writer hands it the place it reached (after flushing the streams) about every
 * interval, and the thread syncs the outputs' data, then writes OUT.progress, so a progress file
 * never claims bytes that are not on disk. A rerun checks the identity, cuts the outputs to the
 * recorded lengths and runs from the recorded place: the bytes after it are those an
 * uninterrupted run writes there, as the output of a batch depends only on its sentences. */
#define _POSIX_C_SOURCE 200809L
#include "cli/resume.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/signals.h"

#define HASH_SPAN 65536 /* bytes hashed at each end of a file */

static unsigned long long fnv(unsigned long long h, const unsigned char *p, size_t n) {
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ULL;
  return h;
}

/* "size mtime hash" of `path` into buf; -1 when it cannot be read or is not a regular file. */
static int file_identity(const char *path, char *buf, size_t len) {
  int rc = -1, fd = open(path, O_RDONLY);
  unsigned char *data = malloc(HASH_SPAN);
  struct stat st;
  if (fd < 0 || !data || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) goto out;
  unsigned long long h = 0xcbf29ce484222325ULL;
  for (int end = 0; end < 2; end++) {
    off_t at = end ? (st.st_size > HASH_SPAN ? st.st_size - HASH_SPAN : 0) : 0;
    ssize_t n = pread(fd, data, HASH_SPAN, at);
    if (n < 0) goto out;
    h = fnv(h, data, (size_t)n);
  }
  snprintf(buf, len, "%lld %lld %016llx", (long long)st.st_size,
           (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec, h);
  rc = 0;
out:
  free(data);
  if (fd >= 0) close(fd);
  return rc;
}

void vt_cli_resume_id_line(vt_cli_resume_id *id, const char *says, const char *fmt, ...) {
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line - 1, fmt, ap);
  va_end(ap);
  if (id->nomem) return;
  if (n < 0 || (size_t)n >= sizeof line - 1) n = (int)sizeof line - 2; /* cut: still compared */
  line[n++] = '\n';
  char *text = realloc(id->text, id->len + (size_t)n + 1);
  if (text) id->text = text;
  if (text && id->n == id->cap) {
    int cap = id->cap ? 2 * id->cap : 16;
    char **says_grown = realloc(id->says, (size_t)cap * sizeof *says_grown);
    if (says_grown) id->says = says_grown, id->cap = cap;
  }
  char *copy = strdup(says);
  if (!text || id->n == id->cap || !copy) {
    free(copy);
    id->nomem = 1;
    return;
  }
  memcpy(id->text + id->len, line, (size_t)n);
  id->len += (size_t)n;
  id->text[id->len] = 0;
  id->says[id->n++] = copy;
}

int vt_cli_resume_id_file(vt_cli_resume_id *id, const char *cmd, const char *key, const char *says,
                          const char *path) {
  char v[128];
  if (file_identity(path, v, sizeof v)) {
    vt_cli_error("%s: --resume: %s is not a regular file that can be read again (standard "
                 "input and pipes cannot resume)",
                 cmd, path);
    return -1;
  }
  vt_cli_resume_id_line(id, says, "%s %s", key, v);
  return 0;
}

char *vt_cli_inputs_id(const char *cmd, const vt_cli_file *files, int n) {
  size_t cap = 16 + (size_t)n * 200, len = 0;
  char *s = malloc(cap), v[128];
  if (!s) {
    vt_cli_error("out of memory");
    return NULL;
  }
  len += (size_t)snprintf(s, cap, "inputs");
  for (int i = 0; i < n; i++) {
    if (!files[i].path) continue;
    if (!strcmp(files[i].path, "-") || file_identity(files[i].path, v, sizeof v)) {
      vt_cli_error(!strcmp(files[i].path, "-")
                       ? "%s: --checkpoint: %s is standard input, which a resumed run cannot "
                         "read again: name a file"
                       : "%s: --checkpoint: %s %s is not a regular file that can be read",
                   cmd, files[i].what, files[i].path);
      free(s);
      return NULL;
    }
    for (char *c = v; *c; c++) /* one word: SIZE:MTIME:HASH */
      if (*c == ' ') *c = ':';
    len += (size_t)snprintf(s + len, cap - len, " %s=%s", files[i].what, v);
  }
  snprintf(s + len, cap - len, "\n");
  return s;
}

/* Whether the option `a` is one of `names` (as --name or --name=value); *next_value: 1 when
 * `with_arg` and the value is the next argument. */
static int named(const char *a, const char *const *names, int *next_value, int with_arg) {
  if (strncmp(a, "--", 2)) return 0;
  const char *name = a + 2, *eq = strchr(name, '=');
  size_t n = eq ? (size_t)(eq - name) : strlen(name);
  for (const char *const *p = names; *p; p++)
    if (strlen(*p) == n && !strncmp(name, *p, n)) {
      *next_value = with_arg && !eq;
      return 1;
    }
  return 0;
}

void vt_cli_resume_id_options(vt_cli_resume_id *id, char *const *opts, int n,
                              const char *const *with_arg, const char *const *no_arg) {
  char line[1000];
  size_t k = 0;
  k += (size_t)snprintf(line, sizeof line, "options");
  for (int i = 0; i < n; i++) {
    const char *a = opts[i];
    int skip = 0;
    if (!strcmp(a, "-o") || !strcmp(a, "-m")) {
      i++;
      continue;
    }
    if (!strncmp(a, "-o", 2) || !strncmp(a, "-m", 2) || named(a, no_arg, &skip, 0)) continue;
    if (named(a, with_arg, &skip, 1)) {
      i += skip;
      continue;
    }
    if (k < sizeof line - 8) line[k++] = ' ';
    for (const unsigned char *p = (const unsigned char *)a; *p && k < sizeof line - 8; p++)
      k += (size_t)(*p > ' ' && *p <= '~' && *p != '%'
                        ? (line[k] = (char)*p, 1)
                        : snprintf(line + k, sizeof line - k, "%%%02X", *p));
  }
  line[k] = 0;
  vt_cli_resume_id_line(id, "the options differ", "%s", line);
}

void vt_cli_resume_id_free(vt_cli_resume_id *id) {
  for (int i = 0; i < id->n; i++) free(id->says[i]);
  free(id->says);
  free(id->text);
  memset(id, 0, sizeof *id);
}

/* The line `i` of `s` (lines ending in '\n'); its length in *n (0: none). */
static const char *line_at(const char *s, int i, size_t *n) {
  for (; i > 0 && *s; i--) {
    const char *e = strchr(s, '\n');
    s = e ? e + 1 : s + strlen(s);
  }
  const char *e = strchr(s, '\n');
  *n = e ? (size_t)(e - s) : strlen(s);
  return s;
}

/* Says in one line how the saved identity `was` differs from the run's: the first line that
 * differs, with its values now and then. */
static void say_differs(const vt_cli_resume *rr, const char *was) {
  char buf[900];
  size_t n1, n2;
  snprintf(buf, sizeof buf, "the progress file is not one of vitesse %s --resume", rr->cmd);
  const char *a = line_at(was, 0, &n1), *b = line_at(rr->id.text, 0, &n2);
  for (int i = 1; n1 == n2 && !memcmp(a, b, n1) && i < rr->id.n; i++) {
    a = line_at(was, i, &n1);
    b = line_at(rr->id.text, i, &n2);
    if (n1 == n2 && !memcmp(a, b, n1)) continue;
    const char *ka = memchr(a, ' ', n1), *kb = memchr(b, ' ', n2);
    int va = ka ? (int)(n1 - (size_t)(ka + 1 - a)) : 0,
        vb = kb ? (int)(n2 - (size_t)(kb + 1 - b)) : 0;
    snprintf(buf, sizeof buf, "%s (now %.*s; was %.*s)", rr->id.says[i], vb, kb ? kb + 1 : "", va,
             ka ? ka + 1 : "");
    break;
  }
  vt_cli_error("%s: --resume: %s: %s; remove it and %s to start over", rr->cmd, rr->progress, buf,
               rr->partial[0]);
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

/* Writes the progress file: identity lines, then the place `p` with the outputs' lengths `out`:
 * written beside, synced, renamed over, the folder synced. 0, or an errno. */
static int progress_write(const vt_cli_resume *rr, const vt_corpus_pos *p, const long long *out) {
  int err = 0, fd = open(rr->tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return errno;
  char at[200];
  int n =
      snprintf(at, sizeof at, "at %d %lld %lld %d %lld %lld", (int)p->file, (long long)p->offset,
               (long long)p->lines, (int)p->sep, (long long)p->sentences, out[0]);
  if (rr->n_out > 1) n += snprintf(at + n, sizeof at - (size_t)n, " %lld", out[1]);
  at[n++] = '\n';
  errno = 0;
  if (write(fd, rr->id.text, rr->id.len) != (ssize_t)rr->id.len || write(fd, at, (size_t)n) != n ||
      fsync(fd) != 0)
    err = errno ? errno : EIO;
  if (close(fd) != 0 && !err) err = errno;
  if (!err && rename(rr->tmp, rr->progress) != 0) err = errno;
  if (err) {
    unlink(rr->tmp);
    return err;
  }
  dir_sync(rr->progress); /* the new names (the .partial files', OUT.progress's) survive a crash */
  return 0;
}

/* Syncs the outputs' data; 0 or an errno. */
static int outputs_sync(const vt_cli_resume *rr) {
  for (int i = 0; i < rr->n_out; i++)
    if (fdatasync(fileno(rr->out[i])) != 0) return errno ? errno : EIO;
  return 0;
}

/* The background thread: makes each place handed to it durable (the outputs' data, then the
 * progress file), until told to stop. */
static void *syncer(void *ctx) {
  vt_cli_resume *rr = ctx;
  pthread_mutex_lock(&rr->mu);
  for (;;) {
    while (!rr->snap_ready && !rr->stop) pthread_cond_wait(&rr->cv, &rr->mu);
    if (!rr->snap_ready) break;
    vt_corpus_pos p = rr->snap;
    long long out[2] = {rr->snap_out[0], rr->snap_out[1]};
    rr->snap_ready = 0;
    pthread_mutex_unlock(&rr->mu);
    int err = outputs_sync(rr);
    if (!err) err = progress_write(rr, &p, out);
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

void vt_cli_resume_mark(void *ctx, const vt_corpus_pos *after) {
  vt_cli_resume *rr = ctx;
  rr->at = *after;
  double t = now_s();
  if (t - rr->last < rr->every) return;
  rr->last = t;
  long long out[2] = {0, 0};
  for (int i = 0; i < rr->n_out; i++) {
    if (fflush(rr->out[i]) != 0) return; /* the sink's next write fails and says so */
    out[i] = (long long)ftello(rr->out[i]);
  }
  pthread_mutex_lock(&rr->mu);
  rr->snap = *after;
  rr->snap_out[0] = out[0];
  rr->snap_out[1] = out[1];
  rr->snap_ready = 1;
  pthread_cond_signal(&rr->cv);
  pthread_mutex_unlock(&rr->mu);
}

/* Stops the background thread (the place it holds made durable first). */
static void syncer_stop(vt_cli_resume *rr) {
  if (!rr->th_on) return;
  pthread_mutex_lock(&rr->mu);
  rr->stop = 1;
  pthread_cond_signal(&rr->cv);
  pthread_mutex_unlock(&rr->mu);
  pthread_join(rr->th, NULL);
  rr->th_on = 0;
}

int vt_cli_resume_durable(vt_cli_resume *rr) {
  syncer_stop(rr);
  if (rr->sync_errno) return rr->sync_errno;
  long long out[2] = {0, 0};
  for (int i = 0; i < rr->n_out; i++) {
    if (fflush(rr->out[i]) != 0) return errno ? errno : EIO;
    out[i] = (long long)ftello(rr->out[i]);
  }
  int err = outputs_sync(rr);
  return err ? err : progress_write(rr, &rr->at, out);
}

int vt_cli_resume_save(vt_cli_resume *rr, const vt_corpus_pos *at, const long long *out_len) {
  rr->at = *at;
  return progress_write(rr, at, out_len);
}

/* Where the saved progress says the run is, into rr->at and out[]; -1 when no place line parses
 * or it does not fit the run. */
static int saved_place(vt_cli_resume *rr, const char *saved, int n_files, long long *out) {
  const char *a = strstr(saved, "\nat ");
  int file, sep, used;
  long long off, lines, sents;
  out[1] = 0;
  memset(&rr->at, 0, sizeof rr->at);
  if (!a || sscanf(a + 1, "at %d %lld %lld %d %lld %lld%n", &file, &off, &lines, &sep, &sents,
                   &out[0], &used) != 6)
    return -1;
  if (rr->n_out > 1 && sscanf(a + 1 + used, " %lld", &out[1]) != 1) return -1;
  if (file < 0 || (n_files > 0 ? file >= n_files : file != 0) || off < 0 || lines < 0 ||
      sents < 0 || out[0] < 0 || out[1] < 0)
    return -1;
  rr->at.file = file;
  rr->at.offset = off;
  rr->at.lines = lines;
  rr->at.sep = sep;
  rr->at.sentences = sents;
  return 0;
}

/* The paths beside the outputs; -1 when out of memory. */
static int paths(vt_cli_resume *rr) {
  size_t n = strlen(rr->path[0]) + 16;
  if (!(rr->progress = malloc(n)) || !(rr->tmp = malloc(n + 4))) return -1;
  snprintf(rr->progress, n, "%s.progress", rr->path[0]);
  snprintf(rr->tmp, n + 4, "%s.progress.tmp", rr->path[0]);
  for (int i = 0; i < rr->n_out; i++) {
    size_t m = strlen(rr->path[i]) + 16;
    if (!(rr->partial[i] = malloc(m))) return -1;
    snprintf(rr->partial[i], m, "%s.partial", rr->path[i]);
  }
  return 0;
}

/* Opens the outputs at the saved place (each cut to its length there). Returns -1 to go on,
 * else the exit status (printed). */
static int open_at(vt_cli_resume *rr, const char *saved, int n_files) {
  long long out[2];
  if (saved_place(rr, saved, n_files, out)) {
    vt_cli_error("%s: --resume: %s: no place in the input; remove it and %s to start over", rr->cmd,
                 rr->progress, rr->partial[0]);
    return VT_EXIT_USAGE;
  }
  for (int i = 0; i < rr->n_out; i++) {
    struct stat st;
    if (stat(rr->partial[i], &st) != 0 || (long long)st.st_size < out[i]) {
      vt_cli_error("%s: --resume: %s holds %lld bytes, fewer than the %lld %s records; remove "
                   "the .partial files and it to start over",
                   rr->cmd, rr->partial[i], (long long)st.st_size, out[i], rr->progress);
      return VT_EXIT_USAGE;
    }
    int fd = open(rr->partial[i], O_WRONLY);
    if (fd < 0 || ftruncate(fd, (off_t)out[i]) != 0 || !(rr->out[i] = fdopen(fd, "wb")) ||
        fseeko(rr->out[i], (off_t)out[i], SEEK_SET) != 0) {
      vt_cli_error("%s: cannot open to continue: %s", rr->partial[i], strerror(errno));
      if (fd >= 0 && !rr->out[i]) close(fd);
      return VT_EXIT_USAGE;
    }
  }
  return -1;
}

int vt_cli_resume_begin(vt_cli_resume *rr, const char *cmd, const char *const *out, int n_out,
                        vt_cli_resume_id *id, const char *const *files, int n_files, int quiet,
                        const vt_corpus_pos **from) {
  char *saved = NULL;
  int rc = VT_EXIT_USAGE;
  memset(rr, 0, sizeof *rr);
  rr->id = *id;
  memset(id, 0, sizeof *id);
  rr->cmd = cmd;
  rr->n_out = n_out;
  rr->path[0] = out[0];
  rr->path[1] = n_out > 1 ? out[1] : NULL;
  *from = NULL;
  const char *ev = getenv("VITESSE_RESUME_INTERVAL");
  rr->every = ev && atof(ev) >= 0 ? atof(ev) : 2.0;
  for (int i = 0; i < n_out; i++) { /* the end renames OUT.partial over OUT: a file, or none */
    struct stat sb;
    if (stat(rr->path[i], &sb) == 0 && !S_ISREG(sb.st_mode)) {
      vt_cli_error("%s: --resume: %s is not a regular file (a resumable run ends by renaming its "
                   "output into place; a device or a pipe takes a run without --resume)",
                   cmd, rr->path[i]);
      goto done;
    }
  }
  if (rr->id.nomem || paths(rr)) {
    vt_cli_error("out of memory");
    rc = VT_EXIT_FAIL;
    goto done;
  }
  size_t len;
  if (access(rr->progress, F_OK) == 0 &&
      !(saved = vt_cli_read_file(rr->progress, 1 << 26, "progress file", &len)))
    goto done;
  if (saved && (strlen(saved) < rr->id.len || memcmp(saved, rr->id.text, rr->id.len))) {
    say_differs(rr, saved);
    goto done;
  }
  int have = saved != NULL; /* and every .partial: else killed after a rename, start over */
  for (int i = 0; have && i < n_out; i++) have = access(rr->partial[i], F_OK) == 0;
  if (have) {
    if ((rc = open_at(rr, saved, n_files)) >= 0) goto done;
    *from = &rr->at;
    if (!quiet && n_files > 0)
      fprintf(stderr, "vitesse: %s --resume: continuing after %lld sentences (%s, line %lld)\n",
              cmd, (long long)rr->at.sentences, files[rr->at.file], (long long)rr->at.lines);
    else if (!quiet)
      fprintf(stderr, "vitesse: %s --resume: continuing after %lld sentences\n", cmd,
              (long long)rr->at.sentences);
  } else {
    for (int i = 0; i < n_out; i++)
      if (!(rr->out[i] = fopen(rr->partial[i], "wb"))) {
        vt_cli_error("%s: cannot create: %s", rr->partial[i], strerror(errno));
        goto done;
      }
    long long zero[2] = {0, 0};
    int err = progress_write(rr, &rr->at, zero); /* the identity, before any output */
    if (err) {
      vt_cli_error("%s: cannot write: %s", rr->progress, strerror(err));
      goto done;
    }
  }
  rc = VT_EXIT_FAIL;
  if (pthread_mutex_init(&rr->mu, NULL)) goto done;
  if (pthread_cond_init(&rr->cv, NULL)) {
    pthread_mutex_destroy(&rr->mu);
    goto done;
  }
  rr->mu_on = 1;
  rr->last = now_s();
  if (pthread_create(&rr->th, NULL, syncer, rr) == 0) rr->th_on = 1;
  rc = -1;
done:
  free(saved);
  return rc;
}

int vt_cli_resume_commit(vt_cli_resume *rr) {
  syncer_stop(rr);
  for (int i = rr->n_out - 1; i >= 0; i--) { /* OUT last: its rename ends the run */
    FILE *f = rr->out[i];
    rr->out[i] = NULL;
    if (fclose(f) != 0 || rename(rr->partial[i], rr->path[i]) != 0) {
      vt_cli_error("%s: cannot rename to %s: %s", rr->partial[i], rr->path[i], strerror(errno));
      return VT_EXIT_FAIL;
    }
    dir_sync(rr->path[i]);
  }
  unlink(rr->progress); /* after the renames: a kill between them only runs again */
  return 0;
}

void vt_cli_resume_discard(vt_cli_resume *rr) {
  syncer_stop(rr);
  for (int i = 0; i < rr->n_out; i++) unlink(rr->partial[i]);
  unlink(rr->progress);
}

int vt_cli_resume_finish(vt_cli_resume *rr, vt_status st, int write_errno, const char *done,
                         int bad_input) {
  int err = vt_cli_resume_durable(rr);
  if (st == VT_ECANCELED && !err) {
    int sig = atomic_load(&vt_cli_stop);
    vt_cli_error("interrupted by %s: %s; %s keeps them, and the same command continues after them",
                 vt_cli_signal_name(sig), done, rr->partial[0]);
    return 128 + (sig ? sig : SIGINT);
  }
  if (write_errno || err) { /* kept: the run continues once there is room */
    vt_cli_error("%s: write failed: %s", rr->partial[0], strerror(write_errno ? write_errno : err));
    return VT_EXIT_FAIL;
  }
  if (st != VT_OK) { /* bad input: nothing half-written is left */
    vt_cli_error("%s", vt_last_error());
    vt_cli_resume_discard(rr);
    return bad_input;
  }
  return vt_cli_resume_commit(rr);
}

void vt_cli_resume_end(vt_cli_resume *rr) {
  syncer_stop(rr);
  for (int i = 0; i < 2; i++)
    if (rr->out[i]) fclose(rr->out[i]);
  if (rr->mu_on) {
    pthread_mutex_destroy(&rr->mu);
    pthread_cond_destroy(&rr->cv);
  }
  vt_cli_resume_id_free(&rr->id);
  free(rr->partial[0]);
  free(rr->partial[1]);
  free(rr->progress);
  free(rr->tmp);
  memset(rr, 0, sizeof *rr);
}
