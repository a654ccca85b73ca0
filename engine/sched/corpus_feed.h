/* engine/sched/corpus_feed.h: the two ends of the corpus job (corpus_job.c): the reader cuts the
 * corpus files, one after the other, into batches of whole sentences for the scheduler (column
 * corpora: the raw lines only, the workers parse them, so the reading thread does byte work only
 * and its CPU time per sentence stays far below a worker's; CRFsuite item files: whole
 * sequences); the writer hands each batch's text to the run's sink and counts what it wrote. */
#ifndef VT_SCHED_CORPUS_FEED_H
#define VT_SCHED_CORPUS_FEED_H

#include "io/conll.h"
#include "io/crfs_items.h"
#include "sched/scheduler.h"
#include "text/batch_tag.h"

typedef struct vt_corpus_feed {
  const vt_reader_opts *ro;
  const char *const *files; /* n_files of them; none: standard input */
  int n_files, file;        /* the file being read */
  vt_conll *r;
  int64_t budget;             /* tokens per batch (the reader counts 16 bytes a token line) */
  int64_t read_sents;         /* sentences read so far */
  int64_t bytes_done;         /* bytes of the files finished */
  int64_t bytes_total;        /* all the files' bytes, 0 = unknown, -1 = not yet looked at */
  const vt_corpus_part *part; /* not NULL: read this piece of memory instead of the files */
  vt_items *items;            /* CRFsuite item files: the file being read */
  const vt_corpus_pos *start; /* not NULL: begin there (vt_engine_tag_from); set the fields
                                 above by vt_corpus_feed_start */
} vt_corpus_feed;

/* Makes `f` (its files, reader options and budget set, not yet read) begin at f->start: its
 * file, the sentences before it counted, the bytes of the files before it counted done; the
 * first read of that file skips to the place. */
void vt_corpus_feed_start(vt_corpus_feed *f);

/* Where the feed is: after the last batch read (call on the reading thread, right after a read
 * that returned 1). */
void vt_corpus_feed_where(const vt_corpus_feed *f, vt_corpus_pos *p);

/* Cuts the next batch of whole sentences into `t` (their raw lines: byte work only, on the
 * reading thread) and describes it in `b` (first, items; tokens are counted by
 * vt_corpus_feed_parse). Returns 1 when it did, 0 at the end of the last file, or a negative
 * vt_status with the reader's one-line message in b->err (`sb` is then scratch): a vt_sched_job
 * read callback's contract. */
int vt_corpus_feed_read(vt_corpus_feed *f, vt_conll_text *t, vt_sentbatch *sb, vt_sched_batch *b);

/* As vt_corpus_feed_read, for CRFsuite item files: the next batch of whole sequences (about 64
 * bytes a token of the budget) into `ib`, with b->tokens its items. */
int vt_corpus_feed_read_items(vt_corpus_feed *f, vt_items_batch *ib, vt_sched_batch *b);

/* Parses the batch `t` cut by vt_corpus_feed_read into `sb` (cleared first) and sets b->tokens:
 * the first step of a worker. Returns VT_OK, or VT_EFORMAT / VT_ENOMEM with the one-line
 * message ("FILE:LINE: problem") in b->err. Safe on several workers at once. */
vt_status vt_corpus_feed_parse(const vt_corpus_feed *f, const vt_conll_text *t, vt_sentbatch *sb,
                               vt_sched_batch *b);

/* Input bytes read so far, and in *total the size of all the input files (0 when one is not a
 * regular file: then no fraction is known). The first call stats every file, once. Call on the
 * thread that reads. */
int64_t vt_corpus_feed_bytes(vt_corpus_feed *f, int64_t *total);

/* Whether reading the feed's input costs little beside tagging it: a piece of memory, or files
 * that are all plain (vt_file_is_plain), not standard input nor gzip (vt_sched_job.read_light).
 * Opens each file once. */
int vt_corpus_feed_light(const vt_corpus_feed *f);

/* Closes the file being read, if any. */
void vt_corpus_feed_close(vt_corpus_feed *f);

/* Where a corpus job's output goes, and what it counts. */
typedef struct vt_corpus_out {
  vt_sink_fn sink;
  void *sink_ctx;
  int write_errno;    /* errno of the failed sink call, 0 while none failed */
  vt_run_report *rep; /* sentences (with a token) and tokens written are added here */
} vt_corpus_out;

/* Hands `tb` (the text of a batch of `sentences` sentences with a token, `tokens` tokens) to the
 * sink and counts them: a vt_sched_job write callback's contract. Returns VT_OK or the sink's
 * failure (o->write_errno then set). */
vt_status vt_corpus_out_write(vt_corpus_out *o, const vt_textbuf *tb, int64_t sentences,
                              int64_t tokens);

#endif
