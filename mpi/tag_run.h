/* mpi/tag_run.h: what the three parts of `vitesse-mpi tag` share: the command (tag.c: options,
 * one file after the other, --stats), the readers that cut a file into the ranks' parts round
 * by round (tag_input.c), and the round's tagging and writing (tag_round.c). */
#ifndef VT_MPI_TAG_RUN_H
#define VT_MPI_TAG_RUN_H

#include "cli/chunk_cli.h"
#include "cli/resume.h"
#include "cli/tag_setup.h"
#include "mpi_cli.h"

/* This rank's seconds by phase (--stats reports the slowest rank's). */
typedef struct vt_mpi_phases {
  double read, tag, exchange, write; /* seconds */
} vt_mpi_phases;

/* One `vitesse-mpi tag` run, as this rank sees it. */
typedef struct vt_mpi_tag_run {
  const vt_mpi *w;
  vt_cli_tag t; /* the options (a joint model's too: model, corpus, engine, -o, files) */
  int joint;    /* a joint POS + chunk model: ct holds its options (t.m owns the model) */
  int items;    /* a CRFsuite model: the input is item files (split at empty lines) */
  vt_cli_chunk_tag ct;
  int argc;
  char **argv;
  vt_engine *eng;
  vt_mpi_out out;
  int64_t round_bytes;
  vt_mpi_buf in, outbuf; /* this rank's part and its output */
  vt_run_report tot;     /* this rank's, summed over rounds */
  vt_mpi_phases ph;
  int64_t rounds;
  vt_cli_progress pg;                           /* rank 0 */
  int64_t done_sents, done_tokens, total_bytes; /* job-wide, for the progress */
  double t0;
  /* --resume (tag_resume.c): rank 0 keeps the progress file (rr); every rank knows where the
   * run starts (from: the file, its offset and lines there) and the place after the last round
   * written (at: file, offset, lines, sentences of the job). */
  int resume;
  vt_cli_resume rr;
  vt_corpus_pos from, at;
  double saved_at; /* rank 0: when a place was last made durable */
} vt_mpi_tag_run;

/* Tags this rank's part (r->in), whose first line follows `first_line` lines of file `name`, and
 * writes every rank's output; `bytes_upto`: how far into the input the round got (progress).
 * Returns an agreed code (VT_MPI_*). */
int vt_mpi_tag_round(vt_mpi_tag_run *r, const char *name, int64_t first_line, int64_t bytes_upto);

/* Tags regular uncompressed file `path` of `size` bytes, every rank reading its own byte ranges
 * (tag_input.c); `sep`: the file's separator (VT_SEP_AUTO: as given). Returns an agreed code. */
int vt_mpi_tag_ranges(vt_mpi_tag_run *r, const char *path, int64_t size, int sep);

/* Tags standard input ("-") or a .gz file: rank 0 reads and inflates it and scatters the parts
 * (tag_input.c); `comments`: '#' lines are comments (for the separator's rule), `sep_given`: the
 * separator is the options'. Returns an agreed code. */
int vt_mpi_tag_stream(vt_mpi_tag_run *r, const char *path, int comments, int sep_given);

/* --resume, before the first file (collective): rank 0 checks the run and its identity
 * (vt_cli_tag_resume_id; uncompressed named files only) and opens OUT.partial where the run
 * continues (vt_cli_resume_begin); every rank learns the place (r->from) and opens OUT.partial
 * with MPI-IO after its bytes there (r->out). Unless `quiet`, rank 0 says where it continues.
 * Returns an agreed code (messages printed). */
int vt_mpi_tag_resume_begin(vt_mpi_tag_run *r, int quiet);

/* After a round written (collective): when `force` or about every VITESSE_RESUME_INTERVAL seconds
 * (rank 0's clock, shared), the ranks sync OUT.partial together (MPI_File_sync), then rank 0
 * records r->at with OUT.partial's length in the progress file. Returns an agreed code. */
int vt_mpi_tag_resume_mark(vt_mpi_tag_run *r, int force);

/* Ends a --resume run after the file is closed (vt_mpi_out_commit or _abort) with the job's
 * code: VT_MPI_OK renames OUT.partial to OUT and removes the progress (rank 0); VT_MPI_BAD
 * (bad input) removes both; else both are kept for a rerun. Returns the agreed code. */
int vt_mpi_tag_resume_end(vt_mpi_tag_run *r, int code);

#endif
