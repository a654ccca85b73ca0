/* engine/sched/corpus_feed.c: corpus files (columns or CRFsuite items) cut into batches of whole
 * sentences, and the batches' text handed on in order (corpus_feed.h). */
#include "sched/corpus_feed.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "io/filemap.h"

#define BYTES_PER_TOKEN 16

int vt_corpus_feed_read(vt_corpus_feed *f, vt_conll_text *t, vt_sentbatch *sb, vt_sched_batch *b) {
  for (;;) {
    if (!f->r) {
      if (f->file >= (f->n_files && !f->part ? f->n_files : 1)) return 0;
      const char *path = f->n_files ? f->files[f->file] : "-";
      const vt_corpus_part *pt = f->part;
      vt_status st =
          pt ? vt_conll_open_mem(&f->r, pt->name ? pt->name : "-", pt->data ? pt->data : "",
                                 pt->len, (uint64_t)pt->first_line, f->ro, b->err, sizeof b->err)
             : vt_conll_open(&f->r, path, f->ro, b->err, sizeof b->err);
      if (st == VT_OK && f->start && f->file == f->start->file && !pt)
        st = vt_conll_skip(f->r, f->start->offset, (uint64_t)f->start->lines, (char)f->start->sep,
                           b->err, sizeof b->err);
      if (st != VT_OK) return st;
    }
    int32_t n = 0;
    size_t max_bytes = (size_t)f->budget * BYTES_PER_TOKEN;
    int32_t max_sents = f->budget < INT32_MAX ? (int32_t)f->budget : INT32_MAX;
    vt_status st = vt_conll_cut(f->r, t, max_sents, max_bytes, 0, &n, b->err, sizeof b->err);
    if (st != VT_OK) {
      /* An error in the lines before the failure comes first in the file, and wins (rare: the
       * parsing is done here, on the reading thread, only on this path). */
      vt_sentbatch_clear(sb);
      vt_status pst = vt_conll_parse(f->ro, t, sb, b->err, sizeof b->err);
      return pst != VT_OK ? pst : st;
    }
    if (n > 0) {
      b->first = f->read_sents;
      b->items = n;
      f->read_sents += n;
      return 1;
    }
    int64_t size, at = vt_conll_offset(f->r, &size);
    f->bytes_done += size >= 0 ? size : at;
    vt_conll_close(f->r);
    f->r = NULL;
    f->file++;
  }
}

int vt_corpus_feed_read_items(vt_corpus_feed *f, vt_items_batch *ib, vt_sched_batch *b) {
  const size_t max_bytes = (size_t)(f->budget > 0 ? f->budget : 4096) * 64;
  for (;;) {
    if (!f->items) {
      if (f->file >= (f->n_files && !f->part ? f->n_files : 1)) return 0;
      const char *path = f->n_files ? f->files[f->file] : "-";
      const vt_corpus_part *pt = f->part;
      vt_status st =
          pt ? vt_items_open_mem(&f->items, pt->name, pt->data, pt->len, (uint64_t)pt->first_line,
                                 f->ro->max_line_bytes, f->ro->max_tokens, b->err, sizeof b->err)
             : vt_items_open(&f->items, path, f->ro->max_line_bytes, f->ro->max_tokens, b->err,
                             sizeof b->err);
      if (st == VT_OK && f->start && f->file == f->start->file && !pt)
        st = vt_items_skip(f->items, f->start->offset, (uint64_t)f->start->lines, b->err,
                           sizeof b->err);
      if (st != VT_OK) return st;
    }
    vt_status st = vt_items_read(f->items, ib, max_bytes, b->err, sizeof b->err);
    if (st != VT_OK) return st;
    if (ib->n_seq > 0) {
      b->first = f->read_sents;
      b->items = ib->n_seq;
      b->tokens = ib->items;
      f->read_sents += ib->n_seq;
      return 1;
    }
    int64_t size, at = vt_items_offset(f->items, &size);
    f->bytes_done += size >= 0 ? size : at;
    vt_items_close(f->items);
    f->items = NULL;
    f->file++;
  }
}

vt_status vt_corpus_feed_parse(const vt_corpus_feed *f, const vt_conll_text *t, vt_sentbatch *sb,
                               vt_sched_batch *b) {
  vt_sentbatch_clear(sb);
  vt_status st = vt_conll_parse(f->ro, t, sb, b->err, sizeof b->err);
  if (st != VT_OK) return st;
  b->tokens = 0;
  for (int32_t s = 0; s < sb->n_sents; s++) b->tokens += sb->sents[s].T;
  return VT_OK;
}

/* The input's size in bytes: the sum of the files' sizes, 0 when one is not a regular file. */
static int64_t input_size(const vt_corpus_feed *f) {
  int64_t sum = 0;
  if (f->part) return (int64_t)f->part->len;
  for (int i = 0; i < (f->n_files ? f->n_files : 1); i++) {
    const char *p = f->n_files ? f->files[i] : "-";
    struct stat st; /* "-": standard input counts when it is a regular file (< FILE) */
    if ((strcmp(p, "-") ? stat(p, &st) : fstat(0, &st)) != 0 || !S_ISREG(st.st_mode)) return 0;
    sum += (int64_t)st.st_size;
  }
  return sum;
}

int vt_corpus_feed_light(const vt_corpus_feed *f) {
  if (f->part) return 1;
  if (!f->n_files) return 0;
  for (int i = 0; i < f->n_files; i++)
    if (!strcmp(f->files[i], "-") || !vt_file_is_plain(f->files[i])) return 0;
  return 1;
}

int64_t vt_corpus_feed_bytes(vt_corpus_feed *f, int64_t *total) {
  int64_t size = 0, at = f->r       ? vt_conll_offset(f->r, &size)
                         : f->items ? vt_items_offset(f->items, &size)
                                    : 0;
  if (f->bytes_total < 0) f->bytes_total = input_size(f);
  *total = f->bytes_total;
  return f->bytes_done + at;
}

void vt_corpus_feed_start(vt_corpus_feed *f) {
  const vt_corpus_pos *p = f->start;
  if (!p) return;
  f->file = p->file;
  f->read_sents = p->sentences;
  for (int i = 0; i < p->file && i < f->n_files; i++) {
    struct stat st;
    if (stat(f->files[i], &st) == 0 && S_ISREG(st.st_mode)) f->bytes_done += (int64_t)st.st_size;
  }
}

void vt_corpus_feed_where(const vt_corpus_feed *f, vt_corpus_pos *p) {
  uint64_t lines = 0;
  char sep = 0;
  memset(p, 0, sizeof *p);
  p->file = f->file;
  p->offset = f->r       ? vt_conll_where(f->r, &lines, &sep)
              : f->items ? vt_items_where(f->items, &lines)
                         : 0;
  p->lines = (int64_t)lines;
  p->sep = sep;
  p->sentences = f->read_sents;
}

void vt_corpus_feed_close(vt_corpus_feed *f) {
  vt_conll_close(f->r);
  f->r = NULL;
  vt_items_close(f->items);
  f->items = NULL;
}

vt_status vt_corpus_out_write(vt_corpus_out *o, const vt_textbuf *tb, int64_t sentences,
                              int64_t tokens) {
  if (tb->len) {
    errno = 0;
    vt_status st = o->sink(o->sink_ctx, tb->p, tb->len);
    if (st != VT_OK) {
      o->write_errno = errno ? errno : EIO;
      return st;
    }
  }
  o->rep->sentences += sentences;
  o->rep->tokens += tokens;
  return VT_OK;
}
