/* engine/sched/corpus_feed.h: the reader side of the corpus jobs (tag_job.c, chunk_job.c): cuts
 * the corpus files, one after the other, into batches of whole sentences for the scheduler. */
#ifndef VT_SCHED_CORPUS_FEED_H
#define VT_SCHED_CORPUS_FEED_H

#include "conll.h"
#include "scheduler.h"

typedef struct vt_corpus_feed {
  const vt_reader_opts *ro;
  const char *const *files; /* n_files of them; none: standard input */
  int n_files, file;        /* the file being read */
  vt_conll *r;
  int64_t budget;     /* tokens per batch (the reader counts 16 bytes a token line) */
  int64_t read_sents; /* sentences read so far */
} vt_corpus_feed;

/* Fills `sb` (cleared first) with the next batch and describes it in `b` (first, items, tokens).
 * Returns 1 when it did, 0 at the end of the last file, or a negative vt_status with the reader's
 * one-line message in b->err: a vt_sched_job read callback's contract. */
int vt_corpus_feed_read(vt_corpus_feed *f, vt_sentbatch *sb, vt_sched_batch *b);

/* Closes the file being read, if any. */
void vt_corpus_feed_close(vt_corpus_feed *f);

#endif
