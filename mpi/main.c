/* mpi/main.c: `vitesse-mpi`, vitesse's tag and decode across the ranks of an MPI job (mpirun,
 * srun): the same options and the same output bytes as `vitesse tag` / `vitesse decode`. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/engine_opts.h"
#include "mpi_cli.h"

static void usage(FILE *f) {
  fprintf(f,
          "vitesse-mpi %s: vitesse tag, decode and train across the ranks of an MPI job\n"
          "\n"
          "usage: mpirun -n P vitesse-mpi tag -m MODEL [vitesse tag options] FILE... -o OUT\n"
          "       mpirun -n P vitesse-mpi decode [vitesse decode options] -o OUT\n"
          "       mpirun -n P vitesse-mpi train [vitesse train options] -o MODEL\n"
          "\n"
          "The options are those of vitesse tag / vitesse decode (see their --help), and OUT\n"
          "holds the bytes they write, for any number of ranks and threads. -o OUT is required\n"
          "(every rank writes into it; it appears only when the job succeeds). The ranks on one\n"
          "node share its cores (each rank's workers run on its share). Work goes in rounds:\n"
          "VITESSE_MPI_ROUND_BYTES (tag, bytes of input per rank, default 16777216) and\n"
          "VITESSE_MPI_ROUND_SENTENCES (decode, default 65536) bound each rank's memory.\n"
          "A plain file is cut by byte ranges at blank lines, every rank reading its own;\n"
          "standard input and .gz files are read (inflated) by rank 0 and scattered.\n"
          "Every model vitesse tag takes works here: tagger models, joint POS + chunk models\n"
          "(chunk-tag's options, --eval summed over the ranks) and CRFsuite models (item files,\n"
          "cut at empty lines; -p, -i, -l).\n"
          "\n"
          "train takes vitesse train's options and writes the very model vitesse train writes,\n"
          "for any number of ranks and --threads: the perceptron by --shards S (every rank\n"
          "trains whole shards; S >= P keeps every rank busy) and --algo lbfgs (every rank\n"
          "evaluates whole gradient batches; the sums over ranks are exact), over templates\n"
          "or --items. The training file must be a plain file: every rank reads its own byte\n"
          "range. Rank 0 prints the progress and --log, reads --dev and writes the model.\n",
          vt_version());
}

int main(int argc, char **argv) {
  int provided = 0, rc = VT_EXIT_USAGE;
  /* A rank that waits on the others yields its core: each rank runs worker threads of its own,
   * and the trainers meet at a collective every few sentences (--shards), so ranks that spin in
   * Open MPI's progress loop take the cores the working ranks need (the shard test of 4 ranks
   * of 2 threads on 2 cores: 66 s spinning, 0.6 s yielding). The user's setting wins. */
  setenv("OMPI_MCA_mpi_yield_when_idle", "1", 0);
  /* train's OpenMP teams wait passively too, as `vitesse train`'s (engine/cli/omp_wait.c): run
   * again before MPI starts (3 ranks of 2 threads on 2 cores with --dev: 20 s spinning, 1.2 s). */
  if (argc >= 2 && !strcmp(argv[1], "train")) vt_cli_omp_passive(argv);
  if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    fprintf(stderr, "vitesse: MPI_Init_thread failed\n");
    return VT_EXIT_FAIL;
  }
  vt_mpi w = {MPI_COMM_WORLD, 0, 1};
  MPI_Comm_rank(w.comm, &w.rank);
  MPI_Comm_size(w.comm, &w.size);
  /* VITESSE_MPI_SHOW_SIZE: rank 0 says how many ranks the job has (the tests check it). */
  const char *show = getenv("VITESSE_MPI_SHOW_SIZE");
  if (show && *show && w.rank == 0) fprintf(stderr, "vitesse-mpi: %d ranks\n", w.size);
  /* mpirun may SIGKILL the ranks soon after the SIGTERM it passes on (Open MPI: after
   * odls_base_sigkill_timeout seconds, default 1): rank 0 removes the temporary output file at
   * the signal already, so no file is left even when the clean-up cannot finish. */
  vt_cli_signals_unlink_first(1);
  const char *cmd = argc >= 2 ? argv[1] : "";
  opterr = 0; /* a refused option is reported in one line by vt_cli_bad_option */
  if (!strcmp(cmd, "tag"))
    rc = vt_mpi_tag(&w, argc - 1, argv + 1);
  else if (!strcmp(cmd, "decode"))
    rc = vt_mpi_decode(&w, argc - 1, argv + 1);
  else if (!strcmp(cmd, "train"))
    rc = vt_mpi_train(&w, argc - 1, argv + 1);
  else if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
    if (w.rank == 0) usage(stdout);
    rc = VT_EXIT_OK;
  } else if (!strcmp(cmd, "--version")) {
    if (w.rank == 0) printf("vitesse-mpi %s\n", vt_version());
    rc = VT_EXIT_OK;
  } else {
    if (w.rank == 0) {
      if (*cmd) vt_cli_error("unknown command '%s'", cmd);
      usage(stderr);
    }
  }
  fflush(stdout);
  MPI_Finalize();
  return rc;
}
