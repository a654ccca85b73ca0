/* io/conll.c: the streaming CoNLL column reader (see conll.h). */
#define _POSIX_C_SOURCE 200809L
#include "io/conll.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/errmsg.h"

/* The read (and zlib) buffer; the fuzzing build uses small ones: inputs of a few hundred bytes
 * then refill, move and grow the buffer, and an open no longer costs ~1 MB of page faults. */
#ifdef VT_FUZZ_SMALL_BUFFERS
#define READ_CHUNK (1u << 9)
#else
#define READ_CHUNK (1u << 18)
#endif

struct vt_conll {
  gzFile gz;
  const char *name;
  vt_conll_opts opts;
  char sep; /* 0 until decided, then '\t' or ' ' */
  char *buf;
  size_t cap, start, end, scan; /* unread bytes buf[start, end); no '\n' in [start, scan) */
  int eof;
  uint64_t lineno;
  int64_t size;       /* bytes of a regular file, -1 for another (a pipe, a terminal) */
  int64_t got;        /* bytes gzread gave (inflated) */
  vt_conll_text text; /* vt_conll_read's cut, kept across calls */
  vt_conll_text *cut; /* while vt_conll_cut runs: the text it fills */
  size_t span;        /* with `cut`: buf[span, start) is consumed but not yet copied into it */
  int cut_failed;     /* copying the span ran out of memory */
  int borrowed;       /* buf is the caller's memory (vt_conll_open_mem): never grown nor freed */
};

void vt_reader_opts_init(vt_reader_opts *o) { vt_conll_opts_init(o); }

void vt_conll_opts_init(vt_conll_opts *o) {
  memset(o, 0, sizeof *o);
  o->sep = VT_SEP_AUTO;
  o->max_tokens = 10000;
  o->max_line_bytes = VT_CONLL_MAX_LINE_BYTES;
}

/* The reader's name for messages, its options and its column separator. */
static void reader_setup(vt_conll *r, const char *name, const vt_conll_opts *opts) {
  r->name = name;
  r->opts = *opts;
  if (opts->conllu || opts->sep == VT_SEP_TAB)
    r->sep = '\t';
  else if (opts->sep == VT_SEP_SPACE)
    r->sep = ' ';
}

vt_status vt_conll_open(vt_conll **out, const char *path, const vt_conll_opts *opts, char *err,
                        size_t errlen) {
  *out = NULL;
  int is_stdin = !path || !strcmp(path, "-");
  const char *name = is_stdin ? "-" : path;
  int fd = is_stdin ? dup(0) : open(path, O_RDONLY);
  if (fd < 0) {
    vt_errorf(err, errlen, name, "cannot open: %s", strerror(errno));
    return VT_EIO;
  }
  struct stat stt;
  if (fstat(fd, &stt) != 0) stt.st_mode = 0; /* nothing known: not a regular file */
  if (S_ISDIR(stt.st_mode)) {
    close(fd);
    vt_errorf(err, errlen, name, "is a directory");
    return VT_EIO;
  }
  vt_conll *r = calloc(1, sizeof *r);
  if (r) r->buf = malloc(READ_CHUNK);
  if (!r || !r->buf) goto nomem;
  r->size = S_ISREG(stt.st_mode) ? (int64_t)stt.st_size : -1;
  r->gz = gzdopen(fd, "rb");
  if (!r->gz) goto nomem;
  fd = -1;
  gzbuffer(r->gz, READ_CHUNK / 8); /* reads of READ_CHUNK / 4 or more skip its buffer */
  reader_setup(r, name, opts);
  r->cap = READ_CHUNK;
  *out = r;
  return VT_OK;
nomem:
  if (fd >= 0) close(fd);
  vt_conll_close(r);
  vt_errorf(err, errlen, name, "out of memory");
  return VT_ENOMEM;
}

vt_status vt_conll_open_mem(vt_conll **out, const char *name, const char *data, size_t len,
                            uint64_t first_line, const vt_conll_opts *opts, char *err,
                            size_t errlen) {
  vt_conll *r = calloc(1, sizeof *r);
  *out = NULL;
  if (!r) {
    vt_errorf(err, errlen, name, "out of memory");
    return VT_ENOMEM;
  }
  r->buf = (char *)(uintptr_t)data; /* only read: next_line never refills at eof */
  r->borrowed = 1;
  r->cap = r->end = len;
  r->eof = 1;
  r->size = (int64_t)len;
  r->lineno = first_line;
  reader_setup(r, name, opts);
  *out = r;
  return VT_OK;
}

int64_t vt_conll_offset(const vt_conll *r, int64_t *size) {
  *size = r->size;
  if (r->borrowed) return (int64_t)r->start;
  z_off_t at = gzoffset(r->gz); /* -1 where the file has no offset (a pipe) */
  return at < 0 ? r->got : (int64_t)at;
}

int64_t vt_conll_where(const vt_conll *r, uint64_t *lines, char *sep) {
  *lines = r->lineno;
  *sep = r->sep;
  if (r->borrowed) return (int64_t)r->start;
  return r->got - (int64_t)(r->end - r->start);
}

vt_status vt_conll_skip(vt_conll *r, int64_t offset, uint64_t lines, char sep, char *err,
                        size_t errlen) {
  /* gzdirect reads the head to tell plain from gzip: a plain file then seeks, not reads. */
  if (r->borrowed || r->got || r->end || (gzdirect(r->gz), 0) ||
      gzseek(r->gz, (z_off_t)offset, SEEK_SET) != (z_off_t)offset) {
    vt_errorf(err, errlen, r->name, "cannot seek to byte %lld", (long long)offset);
    return VT_EIO;
  }
  r->got = offset;
  r->lineno = lines;
  if (sep) r->sep = sep;
  return VT_OK;
}

void vt_conll_close(vt_conll *r) {
  if (!r) return;
  if (r->gz) gzclose(r->gz);
  free(r->text.data);
  if (!r->borrowed) free(r->buf);
  free(r);
}

static int grow(void **p, size_t elem, size_t need, size_t *cap);

/* Copies the lines consumed since the last copy, buf[span, start), as they are, into the cut
 * being filled (if any): whole runs of lines at once, not line by line. */
static void span_flush(vt_conll *r) {
  if (!r->cut || r->start <= r->span) return;
  vt_conll_text *t = r->cut;
  size_t n = r->start - r->span;
  if (grow((void **)&t->data, 1, t->len + n, &t->cap)) {
    r->cut_failed = 1; /* reported when the cut ends */
    r->span = r->start;
    return;
  }
  memcpy(t->data + t->len, r->buf + r->span, n);
  t->len += n;
  r->span = r->start;
}

/* Next line (without '\n'): 1 and [*line, *len) valid until the next call; 0 at the end;
 * negative status on error. */
static int next_line(vt_conll *r, char **line, size_t *len, char *err, size_t errlen) {
  size_t limit =
      r->opts.max_line_bytes > 0 ? (size_t)r->opts.max_line_bytes : (size_t)VT_CONLL_MAX_LINE_BYTES;
  for (;;) {
    char *nl = memchr(r->buf + r->scan, '\n', r->end - r->scan);
    size_t have = (nl ? (size_t)(nl - r->buf) : r->end) - r->start; /* bytes of the line so far */
    if (have > limit) { /* refused before the buffer grows past it */
      vt_errorf(err, errlen, NULL, "%s:%llu: line longer than %zu bytes (--max-line-bytes)",
                r->name, (unsigned long long)r->lineno + 1, limit);
      return VT_EFORMAT;
    }
    if (nl) {
      *line = r->buf + r->start;
      *len = (size_t)(nl - *line);
      r->start = r->scan = (size_t)(nl - r->buf) + 1;
      r->lineno++;
      return 1;
    }
    r->scan = r->end;
    if (r->eof) {
      if (r->end == r->start) return 0;
      *line = r->buf + r->start;
      *len = r->end - r->start;
      r->start = r->scan = r->end;
      r->lineno++;
      return 1;
    }
    span_flush(r); /* the buffer is about to move */
    if (r->start > 0) {
      r->span -= r->start;
      memmove(r->buf, r->buf + r->start, r->end - r->start);
      r->end -= r->start;
      r->scan -= r->start;
      r->start = 0;
    }
    if (r->cap - r->end < READ_CHUNK / 2) {
      char *nb = realloc(r->buf, r->cap * 2);
      if (!nb) {
        vt_errorf(err, errlen, r->name, "out of memory (a line of %zu bytes)", r->end);
        return VT_ENOMEM;
      }
      r->buf = nb;
      r->cap *= 2;
    }
    size_t want = r->cap - r->end;
    int n = gzread(r->gz, r->buf + r->end, (unsigned)(want > INT_MAX ? INT_MAX : want));
    if (n < 0) {
      int code;
      const char *msg = gzerror(r->gz, &code);
      if (code == Z_ERRNO) {
        vt_errorf(err, errlen, r->name, "read error: %s", strerror(errno));
        return VT_EIO;
      }
      vt_errorf(err, errlen, r->name, "corrupt gzip data: %s", msg);
      return VT_EFORMAT;
    }
    if (n == 0) {
      int code;
      const char *msg = gzerror(r->gz, &code);
      if (code != Z_OK && code != Z_STREAM_END) {
        vt_errorf(err, errlen, r->name, "corrupt or truncated gzip data: %s", msg);
        return code == Z_ERRNO ? VT_EIO : VT_EFORMAT;
      }
      r->eof = 1;
    }
    r->end += (size_t)n;
    r->got += n;
  }
}

static int grow(void **p, size_t elem, size_t need, size_t *cap) {
  if (need <= *cap) return 0;
  size_t ncap = *cap ? *cap : 64;
  while (ncap < need) ncap *= 2;
  void *np = realloc(*p, ncap * elem);
  if (!np) return -1;
  *p = np;
  *cap = ncap;
  return 0;
}

#define GROW32(ptr, n, capf)                                                                       \
  do {                                                                                             \
    size_t cap_ = (capf);                                                                          \
    if (grow((void **)&(ptr), sizeof *(ptr), (size_t)(n), &cap_)) goto nomem;                      \
    (capf) = (uint32_t)cap_;                                                                       \
  } while (0)

/* Bit i: byte i of the 64 at p is a blank or a tab (p + 64 must be readable). */
static inline uint64_t blanks64(const char *p) {
  uint64_t bits = 0;
#if defined(__SSE2__)
  const __m128i sp = _mm_set1_epi8(' '), tab = _mm_set1_epi8('\t');
  for (int k = 0; k < 64; k += 16) {
    const __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + k));
    const __m128i e = _mm_or_si128(_mm_cmpeq_epi8(v, sp), _mm_cmpeq_epi8(v, tab));
    bits |= (uint64_t)(uint32_t)_mm_movemask_epi8(e) << k;
  }
#else
  for (int k = 0; k < 64; k++) bits |= (uint64_t)(p[k] == ' ' || p[k] == '\t') << k;
#endif
  return bits;
}

/* Appends the fields of line [s, s + len) split at runs of blanks and tabs to fl[*nf..] as
 * (offset from base, length) pairs, 64 bytes at a time (s + len + 64 must be readable: the bytes
 * past the line count as blanks); returns how many. fl has room for (len + 1) / 2 fields. */
static int32_t split_blanks(const char *s, size_t len, uint32_t base, uint32_t *fl, uint32_t *nf) {
  int32_t n = 0;
  uint32_t at = *nf, start = 0;
  uint64_t prev_blank = 1; /* before the line */
  for (size_t blk = 0; blk < len; blk += 64) {
    uint64_t ws = blanks64(s + blk);
    if (len - blk < 64) ws |= ~0ull << (len - blk);
    const uint64_t before = ws << 1 | prev_blank; /* bit i: byte i - 1 is a blank */
    const uint64_t starts = ~ws & before;         /* the other changes end a field */
    prev_blank = ws >> 63;
    for (uint64_t ch = ws ^ before; ch; ch &= ch - 1) { /* starts and ends, in turn */
      const uint32_t i = (uint32_t)(blk + (size_t)__builtin_ctzll(ch));
      if (starts >> (i - blk) & 1) {
        start = i;
      } else {
        fl[at++] = base + start;
        fl[at++] = i - start;
        n++;
      }
    }
  }
  if (!prev_blank) { /* a field up to the end of a line of whole blocks */
    fl[at++] = base + start;
    fl[at++] = (uint32_t)len - start;
    n++;
  }
  *nf = at;
  return n;
}

static int is_blank(const char *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r') return 0;
  return 1;
}

/* Ends a cut: copies the last run of lines (the input's last line may lack its '\n'). */
static vt_status cut_end(vt_conll *r, vt_status st, char *err, size_t errlen) {
  span_flush(r);
  r->cut = NULL;
  if (r->cut_failed && st == VT_OK) {
    vt_errorf(err, errlen, r->name, "out of memory");
    st = VT_ENOMEM;
  }
  return st;
}

vt_status vt_conll_cut(vt_conll *r, vt_conll_text *t, int32_t max_sents, size_t max_bytes,
                       size_t stored, int32_t *n_read, char *err, size_t errlen) {
  int in_sent = 0;
  *n_read = 0;
  t->len = 0;
  t->name = r->name;
  t->line0 = r->lineno;
  t->sep = r->sep;
  r->cut = t;
  r->span = r->start;
  r->cut_failed = 0;
  for (;;) {
    char *line;
    size_t len;
    int got = next_line(r, &line, &len, err, errlen);
    if (got < 0) return cut_end(r, (vt_status)got, err, errlen);
    if (got == 0) {
      *n_read += in_sent; /* the last sentence ends with the input */
      return cut_end(r, VT_OK, err, errlen);
    }
    if (is_blank(line, len)) {
      if (in_sent) {
        in_sent = 0;
        ++*n_read;
        if (*n_read >= max_sents || stored >= max_bytes) return cut_end(r, VT_OK, err, errlen);
      }
      continue;
    }
    size_t kept = len - (line[len - 1] == '\r');
    if (stored + kept + 1 > UINT32_MAX) {
      vt_errorf(err, errlen, NULL, "%s:%llu: sentence too large (4 GiB)", r->name,
                (unsigned long long)r->lineno);
      return cut_end(r, VT_EFORMAT, err, errlen);
    }
    in_sent = 1;
    if (!r->sep && !((r->opts.comments || r->opts.conllu) && line[0] == '#'))
      t->sep = r->sep = memchr(line, '\t', kept) ? '\t' : ' ';
    stored += kept;
  }
}

vt_status vt_conll_parse(const vt_conll_opts *o, const vt_conll_text *t, vt_sentbatch *b, char *err,
                         size_t errlen) {
  vt_sentence *cur = NULL;
  uint64_t first_tok_line = 0, lineno = t->line0;
  /* (no text: data may be NULL, and NULL + 0 is undefined) */
  const char *at = t->data, *text_end = t->len ? t->data + t->len : t->data;
  while (at < text_end) {
    const char *nl = memchr(at, '\n', (size_t)(text_end - at));
    const char *line = at;
    size_t len = (size_t)((nl ? nl : text_end) - at);
    at = nl ? nl + 1 : text_end;
    lineno++;
    if (is_blank(line, len)) {
      cur = NULL;
      continue;
    }
    if (len && line[len - 1] == '\r') len--;
    if (b->n_bytes + len + 1 > UINT32_MAX) {
      vt_errorf(err, errlen, NULL, "%s:%llu: sentence too large (4 GiB)", t->name,
                (unsigned long long)lineno);
      return VT_EFORMAT;
    }
    if (!cur) {
      size_t cap = (size_t)b->cap_sents;
      if (grow((void **)&b->sents, sizeof *b->sents, (size_t)b->n_sents + 1, &cap)) goto nomem;
      b->cap_sents = (int32_t)cap;
      cur = &b->sents[b->n_sents++];
      memset(cur, 0, sizeof *cur);
      cur->file = t->name;
      cur->line0 = b->n_lines;
      cur->tok0 = b->n_toks;
      cur->field0 = b->n_fields / 2;
    }
    GROW32(b->lines, b->n_lines + 1, b->cap_lines);
    size_t bcap = b->cap_bytes; /* 64 bytes past the line: split_blanks reads them */
    if (grow((void **)&b->bytes, 1, b->n_bytes + len + 64, &bcap)) goto nomem;
    b->cap_bytes = bcap;
    uint32_t off = (uint32_t)b->n_bytes;
    memcpy(b->bytes + off, line, len);
    b->n_bytes += len;
    vt_sentline *ln = &b->lines[b->n_lines++];
    ln->off = off;
    ln->len = (uint32_t)len;
    ln->tok = -1;
    ln->lineno = lineno;
    cur->nlines++;
    if ((o->comments || o->conllu) && len && line[0] == '#') continue;

    const char sep = t->sep;
    cur->sep = sep;
    /* Split into fields, appended provisionally; a pass-through line takes them back. */
    const char *p = b->bytes + off, *end = p + len;
    uint32_t nf0 = b->n_fields;
    int32_t ncols = 0;
    if (sep == '\t') {
      for (;;) {
        const char *tab = memchr(p, '\t', (size_t)(end - p));
        const char *fe = tab ? tab : end;
        GROW32(b->fields, b->n_fields + 2, b->cap_fields);
        b->fields[b->n_fields++] = (uint32_t)(p - b->bytes);
        b->fields[b->n_fields++] = (uint32_t)(fe - p);
        ncols++;
        if (!tab) break;
        p = tab + 1;
      }
    } else {
      GROW32(b->fields, (size_t)b->n_fields + len + 2, b->cap_fields); /* (len + 1) / 2 fields */
      ncols = split_blanks(p, len, off, b->fields, &b->n_fields);
    }
    if (o->conllu) {
      const char *id = b->bytes + b->fields[nf0];
      uint32_t idlen = b->fields[nf0 + 1];
      if (memchr(id, '-', idlen) || memchr(id, '.', idlen)) {
        b->n_fields = nf0;
        continue;
      }
    }
    if (cur->T == 0) {
      cur->ncols = ncols;
      first_tok_line = lineno;
    } else if (ncols != cur->ncols) {
      vt_errorf(err, errlen, NULL,
                "%s:%llu: %d columns, but the sentence's first token (line %llu) has %d", t->name,
                (unsigned long long)lineno, ncols, (unsigned long long)first_tok_line, cur->ncols);
      return VT_EFORMAT;
    }
    if (cur->T >= o->max_tokens) {
      vt_errorf(err, errlen, NULL, "%s:%llu: sentence longer than %d tokens (--max-tokens)",
                t->name, (unsigned long long)lineno, o->max_tokens);
      return VT_EFORMAT;
    }
    GROW32(b->tok_line, b->n_toks + 1, b->cap_toks);
    b->tok_line[b->n_toks++] = b->n_lines - 1;
    ln->tok = cur->T++;
  }
  return VT_OK;
nomem:
  vt_errorf(err, errlen, t->name, "out of memory");
  return VT_ENOMEM;
}

vt_status vt_conll_read(vt_conll *r, vt_sentbatch *b, int32_t max_sents, size_t max_bytes,
                        int32_t *n_read, char *err, size_t errlen) {
  vt_status st = vt_conll_cut(r, &r->text, max_sents, max_bytes, b->n_bytes, n_read, err, errlen);
  /* After a failed cut, the lines before the failure are parsed too: an error in them comes
   * first in the file, and wins. */
  vt_status pst = vt_conll_parse(&r->opts, &r->text, b, err, errlen);
  return pst != VT_OK ? pst : st;
}

vt_status vt_conll_each(const char *path, const vt_conll_opts *ro, vt_conll_fn fn, void *ctx,
                        char *err, size_t errlen) {
  vt_conll *r = NULL;
  vt_sentbatch b;
  memset(&b, 0, sizeof b);
  vt_status st = vt_conll_open(&r, path, ro, err, errlen);
  while (st == VT_OK) {
    int32_t n;
    vt_sentbatch_clear(&b);
    st = vt_conll_read(r, &b, 1024, 8u << 20, &n, err, errlen);
    if (st != VT_OK || n == 0) break;
    st = fn(ctx, &b, err, errlen);
  }
  vt_conll_close(r);
  vt_sentbatch_free(&b);
  return st;
}
