/* mpi/mpi_cli.h: `vitesse-mpi`, tag and decode across the ranks of an MPI job, writing the very
 * bytes `vitesse tag` / `vitesse decode` write (docs/cluster.md).
 *
 * The options are `vitesse tag`'s and `vitesse decode`'s, parsed by the CLI's own parsers
 * (engine/cli/tag_setup.h, decode_setup.h). Every rank runs the library's engine on its share;
 * the work goes in rounds of bounded size so memory stays flat in the corpus size; each round's
 * outputs are written into one file with collective MPI-IO at offsets from a prefix sum
 * (MPI_Exscan) of the ranks' output sizes. Every rank makes the same collective calls in the same
 * order, failures included: a failing rank's code and message are agreed on (vt_mpi_agree) and
 * every rank stops. */
#ifndef VT_MPI_MPI_CLI_H
#define VT_MPI_MPI_CLI_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "vitesse.h"

/* The job: the world communicator, this rank and the number of ranks. */
typedef struct vt_mpi {
  MPI_Comm comm;
  int rank, size;
} vt_mpi;

/* What a rank's step ended with; the largest code over the ranks wins (vt_mpi_agree). */
enum {
  VT_MPI_OK = 0,
  VT_MPI_CANCELED = 1, /* SIGINT / SIGTERM */
  VT_MPI_FAIL = 2,     /* exit status 1 */
  VT_MPI_BAD = 3       /* bad input, model or option: exit status 2 */
};

/* Shares every rank's `code` (VT_MPI_*) over the job and returns the largest; rank 0 prints the
 * message `msg` (may be NULL or "") of the first rank with that code, as one line
 * "vitesse: MSG". */
int vt_mpi_agree(const vt_mpi *w, int code, const char *msg);

/* The exit status of an agreed code: 0, 128 + the signal, 1 or 2. */
int vt_mpi_exit_status(const vt_mpi *w, int code);

/* The code of a failed library call: its status mapped as `vitesse tag` maps it. */
int vt_mpi_code_of(vt_status st);

/* Gives this rank its share of the node's CPUs (MPI_Comm_split_type SHARED): when every rank of
 * the node may run on the same CPUs (the launcher bound nothing, or bound each rank to the same
 * set), rank i of n gets the i-th n-th of them (at least one), so the engines of a node's ranks
 * plan their workers on different cores. Returns the number of CPUs this rank may use. */
int vt_mpi_node_share(const vt_mpi *w);

/* Runs a setup step whose messages go to stderr (stdout too, for --help) on every rank, and
 * prints only one of them: rank 0's stdout is kept, other ranks' is dropped; each rank's stderr
 * is captured while `fn` runs. Returns the agreed outcome: -1 when every rank may go on, else
 * the exit status of the first failing rank (its captured messages printed by rank 0). */
int vt_mpi_setup(const vt_mpi *w, int (*fn)(void *ctx), void *ctx);

/* A growable buffer that a run's sink appends to (vt_mpi_buf_sink). */
typedef struct vt_mpi_buf {
  char *p;
  size_t len, cap;
} vt_mpi_buf;

/* A vt_sink_fn appending to the vt_mpi_buf `ctx`; VT_ENOMEM when it cannot grow. */
vt_status vt_mpi_buf_sink(void *ctx, const char *data, size_t len);

/* Makes room for `extra` more bytes; 0 or -1 (out of memory). */
int vt_mpi_buf_reserve(vt_mpi_buf *b, size_t extra);

/* One output file that every rank writes into: rank 0 creates a temporary file beside the target
 * (vt_output_open), every rank opens it with MPI-IO; commit renames it over the target after a
 * final barrier, abort removes it. */
typedef struct vt_mpi_out {
  vt_output *of;   /* rank 0: the temporary file */
  MPI_File fh;     /* every rank */
  int open;        /* fh is open */
  MPI_Offset base; /* bytes written by the rounds so far */
  char tmp[4096];  /* the temporary file's path */
} vt_mpi_out;

/* Opens the output `path` on every rank. Returns an agreed code (VT_MPI_*; the message is
 * printed). */
int vt_mpi_out_open(const vt_mpi *w, vt_mpi_out *o, const char *path);

/* Writes every rank's `len` bytes at `data`, in rank order, after what the earlier rounds wrote
 * (one MPI_Exscan, one MPI_Allreduce and collective writes). Returns an agreed code. */
int vt_mpi_out_write(const vt_mpi *w, vt_mpi_out *o, const char *data, size_t len);

/* Sets the file's size, closes it on every rank, and after a barrier rank 0 renames it over the
 * target (when it has one: `of`). Returns an agreed code. */
int vt_mpi_out_commit(const vt_mpi *w, vt_mpi_out *o);

/* Closes the file on every rank and rank 0 removes it (collective; fine after a failed open). */
void vt_mpi_out_abort(const vt_mpi *w, vt_mpi_out *o);

/* Reads a positive integer from environment variable `name`, or returns `def`. */
int64_t vt_mpi_env_size(const char *name, int64_t def);

/* The number of '\n' in p[0, n). */
int64_t vt_mpi_count_lines(const char *p, size_t n);

/* Seconds on the monotonic clock. */
double vt_mpi_now(void);

/* The subcommands. */
int vt_mpi_tag(const vt_mpi *w, int argc, char **argv);
int vt_mpi_decode(const vt_mpi *w, int argc, char **argv);
int vt_mpi_train(const vt_mpi *w, int argc, char **argv);

#endif
