/* engine/train/ckpt.c: the checkpoint file of a training run (ckpt.h). */
#define _POSIX_C_SOURCE 200809L
#include "train/ckpt.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/errmsg.h"
#include "io/outfile.h"

#define MAGIC "vitesse-train-checkpoint 1\n"
#define HEAD_MAX (1 << 20) /* the longest head read back */

/* Appends printf(fmt, ...) to the growing string *s; -1 when out of memory. */
static int put(char **s, size_t *len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int put(char **s, size_t *len, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) return -1;
  char *ns = realloc(*s, *len + (size_t)n + 1);
  if (!ns) return -1;
  va_start(ap, fmt);
  vsnprintf(ns + *len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  *s = ns;
  *len += (size_t)n;
  return 0;
}

/* FNV-1a over n bytes from h. */
static uint64_t fnv(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ULL;
  return h;
}

/* The options of `o` that change the model (threads, callbacks and the checkpoint's own do
 * not), as one line "options k=v k=v ...". */
static int options_line(char **s, size_t *len, const vt_train_opts *o) {
  const size_t tl = o->templates ? (o->templates_len ? o->templates_len : strlen(o->templates)) : 0;
  const vt_reader_opts *r = &o->reader;
  return put(s, len,
             "options algorithm=%d epochs=%d seed=%llu label_col=%d min_count=%u decoder=%d/%d "
             "shards=%d minibatch=%d max_sentences=%lld templates=%016llx "
             "reader=%d/%d/%d/%d/%d\n",
             (int)o->algorithm, (int)o->epochs, (unsigned long long)o->seed, (int)o->label_col,
             (unsigned)o->min_count, (int)o->decoder_set, o->decoder_set ? (int)o->decoder : 0,
             (int)o->shards, (int)o->minibatch, (long long)o->max_sentences,
             (unsigned long long)fnv(0xcbf29ce484222325ULL, o->templates, tl), (int)r->sep,
             r->comments, r->conllu, (int)r->max_tokens, (int)r->max_line_bytes) ||
         put(s, len,
             "crf c1=%.17g c2=%.17g max_iterations=%d epsilon=%.17g period=%d delta=%.17g "
             "num_memories=%d linesearch=%d max_linesearch=%d calibration=%.17g/%.17g/%d/%d/%d "
             "min_freq=%.17g possible_states=%d possible_transitions=%d init=%s\n",
             o->c1, o->c2, (int)o->max_iterations, o->epsilon, (int)o->period, o->delta,
             (int)o->num_memories, (int)o->linesearch, (int)o->max_linesearch, o->calibration_eta,
             o->calibration_rate, (int)o->calibration_samples, (int)o->calibration_candidates,
             (int)o->calibration_max_trials, o->min_freq, (int)o->possible_states,
             (int)o->possible_transitions, o->init_model ? "yes" : "no") ||
         put(s, len,
             "online epsilon=%.17g pa_c=%.17g arow_variance=%.17g arow_gamma=%.17g pa_type=%d "
             "pa_error_sensitive=%d pa_averaging=%d crfsuite_learn=%d\n",
             o->online_epsilon, o->pa_c, o->arow_variance, o->arow_gamma, (int)o->pa_type,
             (int)o->pa_error_sensitive, (int)o->pa_averaging,
             (int)(o->crfsuite_learn & ~VT_TRAIN_CALIBRATION_TRIALS));
}

/* The identity lines of a run: the options, then the caller's (made to end in '\n'). */
static char *identity_of(const vt_train_opts *o) {
  char *s = NULL;
  size_t len = 0;
  if (options_line(&s, &len, o)) goto fail;
  if (o->checkpoint_id && o->checkpoint_id[0]) {
    const size_t n = strlen(o->checkpoint_id);
    if (put(&s, &len, "%s%s", o->checkpoint_id, o->checkpoint_id[n - 1] == '\n' ? "" : "\n"))
      goto fail;
  }
  return s;
fail:
  free(s);
  return NULL;
}

/* The line of `s` that holds byte `at`: its start and length. */
static const char *line_at(const char *s, size_t at, size_t *n) {
  const char *b = s + at;
  while (b > s && b[-1] != '\n') b--;
  const char *e = strchr(b, '\n');
  *n = e ? (size_t)(e - b) : strlen(b);
  return b;
}

/* Says in err how the saved identity `was` differs from `now`: the first line that differs, and
 * in it the first word (key=value) that does. */
static void say_differs(const vt_ckpt *ck, const char *was, const char *now, char *err,
                        size_t errlen) {
  size_t i = 0;
  while (was[i] && was[i] == now[i]) i++;
  size_t na, nb;
  const char *a = line_at(was, i, &na), *b = line_at(now, i, &nb);
  /* the word around the first difference */
  size_t w0 = (size_t)(now + i - b), w1 = w0;
  while (w0 > 0 && b[w0 - 1] != ' ') w0--;
  const char *sp = memchr(b, ' ', nb);
  size_t key = sp ? (size_t)(sp - b) : nb; /* the line's first word names it */
  if (w0 > key) {                          /* a word after the line's name: key=value */
    w1 = w0;
    while (w1 < nb && b[w1] != ' ') w1++;
    const char *eqp = memchr(b + w0, '=', w1 - w0);
    size_t klen = eqp ? (size_t)(eqp - (b + w0)) : w1 - w0;
    /* the same word in the saved line */
    const char *aw = NULL;
    for (size_t k = 0; k + klen < na; k++)
      if ((k == 0 || a[k - 1] == ' ') && !memcmp(a + k, b + w0, klen) && a[k + klen] == '=') {
        aw = a + k;
        break;
      }
    size_t alen = 0;
    if (aw)
      while (aw + alen < a + na && aw[alen] != ' ') alen++;
    vt_errorf(err, errlen, NULL,
              "%s: a checkpoint of another run: %.*s %.*s now, %.*s in the checkpoint; remove it "
              "to start over",
              ck->path, (int)key, b, (int)(w1 - w0), b + w0, (int)alen, aw ? aw : "");
    return;
  }
  vt_errorf(err, errlen, NULL,
            "%s: a checkpoint of another run: now \"%.*s\", in the checkpoint \"%.*s\"; remove it "
            "to start over",
            ck->path, (int)(nb > 160 ? 160 : nb), b, (int)(na > 160 ? 160 : na), a);
}

const char *vt_ckpt_trainer(int32_t algorithm) {
  switch (algorithm) {
  case VT_TRAIN_PERCEPTRON: return "perceptron";
  case VT_TRAIN_LBFGS: return "lbfgs";
  case VT_TRAIN_L2SGD: return "l2sgd";
  case VT_TRAIN_AP: return "ap";
  case VT_TRAIN_PA: return "pa";
  case VT_TRAIN_AROW: return "arow";
  default: return "unknown";
  }
}

int vt_ckpt_on_interval(const vt_ckpt *ck, int64_t k, int64_t last) {
  if (!ck || !ck->path || k <= 0 || (last > 0 && k >= last)) return 0;
  if (ck->cancel && !*ck->stopping && ck->cancel(ck->cancel_ctx)) *ck->stopping = 1;
  return *ck->stopping || k % ck->every == 0;
}

vt_status vt_ckpt_stop(const vt_ckpt *ck, int64_t k, int iterations, char *err, size_t errlen) {
  if (!ck || !ck->stopping || !*ck->stopping) return VT_OK;
  return vt_fail_into(err, errlen, VT_ECANCELED,
                      "train: stopped after %s %lld; the checkpoint %s holds it",
                      iterations ? "iteration" : "epoch", (long long)k, ck->path);
}

/* Checkpoints take at most 1 / GATE of the time with the default interval. */
#define GATE 50.0

int vt_ckpt_due(const vt_ckpt *ck, int64_t k, int64_t last) {
  if (!vt_ckpt_on_interval(ck, k, last)) return 0;
  return *ck->stopping || ck->fixed || !ck->writer ||
         vt_clock_seconds() - ck->clock[0] >= GATE * ck->clock[1];
}

vt_status vt_ckpt_setup(vt_ckpt *ck, const vt_train_opts *o, const char *trainer, int writer,
                        char *err, size_t errlen) {
  memset(ck, 0, sizeof *ck);
  if (!o->checkpoint) return VT_OK;
  if (!o->checkpoint[0] || !strcmp(o->checkpoint, "-"))
    return vt_fail_into(err, errlen, VT_EINVAL, "--checkpoint: a file path is needed");
  if (o->checkpoint_every < 0)
    return vt_fail_into(err, errlen, VT_EINVAL, "--checkpoint-every: expected N >= 1");
  const size_t n = strlen(o->checkpoint);
  ck->path = malloc(n + 1);
  ck->tmp = malloc(n + 5);
  ck->clock = calloc(2, sizeof *ck->clock);
  ck->stopping = calloc(1, sizeof *ck->stopping);
  ck->identity = identity_of(o);
  if (!ck->path || !ck->tmp || !ck->clock || !ck->stopping || !ck->identity) {
    vt_ckpt_free(ck);
    return vt_fail_into(err, errlen, VT_ENOMEM, "train: out of memory");
  }
  memcpy(ck->path, o->checkpoint, n + 1);
  snprintf(ck->tmp, n + 5, "%s.tmp", o->checkpoint);
  ck->fixed = o->checkpoint_every > 0;
  ck->every = o->checkpoint_every > 0          ? o->checkpoint_every
              : o->algorithm == VT_TRAIN_LBFGS ? VT_CHECKPOINT_EVERY_ITERATIONS
                                               : VT_CHECKPOINT_EVERY_EPOCHS;
  ck->writer = writer;
  if (writer) {
    unlink(ck->tmp); /* a checkpoint a kill left half-written */
    ck->mark = o->on_checkpoint;
    ck->resume = o->on_resume;
    ck->ctx = o->ctx;
    ck->cancel = o->on_cancel;
    ck->cancel_ctx = o->ctx;
  }
  vt_ckpt_io io;
  int found = 0;
  vt_status st = vt_ckpt_open(&io, ck, trainer, &found, err, errlen);
  if (st == VT_OK && found) vt_ckpt_abandon(&io);
  if (st != VT_OK) vt_ckpt_free(ck);
  return st;
}

void vt_ckpt_free(vt_ckpt *ck) {
  free(ck->path);
  free(ck->tmp);
  free(ck->identity);
  free(ck->clock);
  free(ck->stopping);
  memset(ck, 0, sizeof *ck);
}

/* Hashes one chunk of the state: its length, then its bytes 8 at a time (a multiply-xorshift
 * of each word), the last ones byte by byte. */
static void hash_chunk(vt_ckpt_io *io, const void *p, size_t n) {
  const unsigned char *b = p;
  uint64_t h = (io->hash ^ (uint64_t)n) * 0x9E3779B97F4A7C15ULL;
  for (; n >= 8; b += 8, n -= 8) {
    uint64_t v;
    memcpy(&v, b, 8);
    h = (h ^ v) * 0x9E3779B97F4A7C15ULL;
    h ^= h >> 29;
  }
  io->hash = fnv(h, b, n);
}

/* Writes the buffer's chunk (hashed). */
static void flush_chunk(vt_ckpt_io *io) {
  if (io->len == 0) return;
  hash_chunk(io, io->buf, io->len);
  if (!io->bad && fwrite(io->buf, 1, io->len, io->fp) != io->len) io->bad = 1;
  io->len = 0;
}

vt_status vt_ckpt_begin(vt_ckpt_io *io, const vt_ckpt *ck, const char *trainer, int64_t done,
                        char *err, size_t errlen) {
  memset(io, 0, sizeof *io);
  io->writing = 1;
  io->ck = ck;
  io->hash = 0xcbf29ce484222325ULL;
  io->t0 = vt_clock_seconds();
  if (!(io->buf = malloc(VT_CKPT_CHUNK)))
    return vt_fail_into(err, errlen, VT_ENOMEM, "train: out of memory");
  if (!(io->fp = fopen(ck->tmp, "wb"))) {
    free(io->buf);
    io->buf = NULL;
    return vt_fail_into(err, errlen, VT_EIO, "%s: cannot write the checkpoint: %s", ck->tmp,
                        strerror(errno));
  }
  const size_t il = strlen(ck->identity);
  const int64_t mark = ck->mark ? ck->mark(ck->ctx) : -1;
  if (fprintf(io->fp, "%sidentity %zu\n%strainer %s\nat %lld %lld\nstate\n", MAGIC, il,
              ck->identity, trainer, (long long)done, (long long)mark) < 0)
    io->bad = 1;
  return VT_OK;
}

void vt_ckpt_put(vt_ckpt_io *io, const void *p, size_t n) {
  const unsigned char *b = p;
  while (n > 0 && !io->bad) {
    if (io->len == 0 && n >= VT_CKPT_CHUNK) { /* a whole chunk: straight from p */
      hash_chunk(io, b, VT_CKPT_CHUNK);
      if (fwrite(b, 1, VT_CKPT_CHUNK, io->fp) != VT_CKPT_CHUNK) io->bad = 1;
      b += VT_CKPT_CHUNK;
      n -= VT_CKPT_CHUNK;
      continue;
    }
    size_t k = VT_CKPT_CHUNK - io->len;
    if (k > n) k = n;
    memcpy(io->buf + io->len, b, k);
    io->len += k;
    b += k;
    n -= k;
    if (io->len == VT_CKPT_CHUNK) flush_chunk(io);
  }
}

vt_status vt_ckpt_commit(vt_ckpt_io *io, char *err, size_t errlen) {
  const vt_ckpt *ck = io->ck;
  flush_chunk(io);
  free(io->buf);
  io->buf = NULL;
  uint64_t h = io->hash;
  int e = 0;
  if (fwrite(&h, sizeof h, 1, io->fp) != 1) io->bad = 1;
  if (io->bad || fflush(io->fp) != 0 || fsync(fileno(io->fp)) != 0) e = errno ? errno : EIO;
  if (fclose(io->fp) != 0 && !e) e = errno ? errno : EIO;
  io->fp = NULL;
  if (!e && rename(ck->tmp, ck->path) != 0) e = errno;
  if (e) {
    unlink(ck->tmp);
    return vt_fail_into(err, errlen, VT_EIO, "%s: cannot write the checkpoint: %s", ck->path,
                        strerror(e));
  }
  vt_dir_sync(ck->path);
  ck->clock[0] = vt_clock_seconds();
  ck->clock[1] = ck->clock[0] - io->t0;
  return VT_OK;
}

/* Reads the line of at most max bytes (its '\n' dropped) into buf; -1 at an end or a longer
 * line. */
static int read_line(FILE *fp, char *buf, size_t max) {
  if (!fgets(buf, (int)max, fp)) return -1;
  size_t n = strlen(buf);
  if (n == 0 || buf[n - 1] != '\n') return -1;
  buf[n - 1] = 0;
  return 0;
}

vt_status vt_ckpt_open(vt_ckpt_io *io, const vt_ckpt *ck, const char *trainer, int *found,
                       char *err, size_t errlen) {
  vt_status st = VT_EIO;
  char line[256];
  char *saved = NULL;
  memset(io, 0, sizeof *io);
  io->ck = ck;
  io->hash = 0xcbf29ce484222325ULL;
  *found = 0;
  if (access(ck->path, F_OK) != 0) return VT_OK;
  *found = 1;
  if (!(io->fp = fopen(ck->path, "rb"))) {
    vt_errorf(err, errlen, NULL, "%s: cannot read the checkpoint: %s", ck->path, strerror(errno));
    goto fail;
  }
  size_t il;
  if (read_line(io->fp, line, sizeof line) || strcmp(line, "vitesse-train-checkpoint 1") ||
      read_line(io->fp, line, sizeof line) || sscanf(line, "identity %zu", &il) != 1 ||
      il > HEAD_MAX) {
    vt_errorf(err, errlen, NULL,
              "%s: not a checkpoint of vitesse train (or of another version); remove it to start "
              "over",
              ck->path);
    st = VT_EFORMAT;
    goto fail;
  }
  if (!(saved = malloc(il + 1))) {
    st = vt_fail_into(err, errlen, VT_ENOMEM, "train: out of memory");
    goto fail;
  }
  if (fread(saved, 1, il, io->fp) != il) goto damaged;
  saved[il] = 0;
  if (strcmp(saved, ck->identity)) {
    say_differs(ck, saved, ck->identity, err, errlen);
    st = VT_EINVAL;
    goto fail;
  }
  if (read_line(io->fp, line, sizeof line) || strncmp(line, "trainer ", 8)) goto damaged;
  if (strcmp(line + 8, trainer)) {
    vt_errorf(err, errlen, NULL,
              "%s: a checkpoint of another run: trainer %s now, %s in the checkpoint; remove it "
              "to start over",
              ck->path, trainer, line + 8);
    st = VT_EINVAL;
    goto fail;
  }
  long long done, mark;
  if (read_line(io->fp, line, sizeof line) || sscanf(line, "at %lld %lld", &done, &mark) != 2 ||
      done < 1 || read_line(io->fp, line, sizeof line) || strcmp(line, "state"))
    goto damaged;
  io->done = done;
  io->mark = mark;
  struct stat sb; /* the state: what lies between the head and the trailing hash */
  const long head = ftell(io->fp);
  if (fstat(fileno(io->fp), &sb) != 0 || head < 0 || (int64_t)sb.st_size - head < 8) goto damaged;
  io->left = (int64_t)sb.st_size - head - 8;
  if (!(io->buf = malloc(VT_CKPT_CHUNK))) {
    st = vt_fail_into(err, errlen, VT_ENOMEM, "train: out of memory");
    goto fail;
  }
  free(saved);
  return VT_OK;
damaged:
  vt_errorf(err, errlen, NULL, "%s: damaged or truncated checkpoint; remove it to start over",
            ck->path);
  st = VT_EFORMAT;
fail:
  free(saved);
  if (io->fp) fclose(io->fp);
  io->fp = NULL;
  return st;
}

void vt_ckpt_rw(vt_ckpt_io *io, void *p, size_t n) {
  if (io->writing)
    vt_ckpt_put(io, p, n);
  else
    vt_ckpt_get(io, p, n);
}

void vt_ckpt_get(vt_ckpt_io *io, void *p, size_t n) {
  unsigned char *b = p;
  while (n > 0) {
    if (io->at == io->len && n >= VT_CKPT_CHUNK && io->left >= (int64_t)VT_CKPT_CHUNK &&
        !io->bad) { /* a whole chunk: straight into p */
      if (fread(b, 1, VT_CKPT_CHUNK, io->fp) != VT_CKPT_CHUNK) {
        io->bad = 1;
        memset(b, 0, n);
        return;
      }
      hash_chunk(io, b, VT_CKPT_CHUNK);
      io->left -= (int64_t)VT_CKPT_CHUNK;
      b += VT_CKPT_CHUNK;
      n -= VT_CKPT_CHUNK;
      continue;
    }
    if (io->at == io->len) { /* the next chunk */
      const size_t k = io->left < (int64_t)VT_CKPT_CHUNK ? (size_t)io->left : VT_CKPT_CHUNK;
      if (io->bad || k == 0 || fread(io->buf, 1, k, io->fp) != k) {
        io->bad = 1;
        memset(b, 0, n);
        return;
      }
      hash_chunk(io, io->buf, k);
      io->left -= (int64_t)k;
      io->len = k;
      io->at = 0;
    }
    size_t k = io->len - io->at;
    if (k > n) k = n;
    memcpy(b, io->buf + io->at, k);
    io->at += k;
    b += k;
    n -= k;
  }
}

void vt_ckpt_abandon(vt_ckpt_io *io) {
  if (io->fp) fclose(io->fp);
  free(io->buf);
  io->fp = NULL;
  io->buf = NULL;
}

void vt_ckpt_bad(vt_ckpt_io *io) { io->bad = 1; }

vt_status vt_ckpt_close(vt_ckpt_io *io, char *err, size_t errlen) {
  uint64_t h = 0;
  const uint64_t want = io->hash;
  int ok = !io->bad && io->left == 0 && io->at == io->len && fread(&h, sizeof h, 1, io->fp) == 1 &&
           h == want && fgetc(io->fp) == EOF;
  vt_ckpt_abandon(io);
  if (ok) {
    if (io->ck->resume) io->ck->resume(io->ck->ctx, io->mark, io->done);
    return VT_OK;
  }
  return vt_fail_into(err, errlen, VT_EFORMAT,
                      "%s: damaged or truncated checkpoint; remove it to start over", io->ck->path);
}
