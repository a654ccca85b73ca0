/* engine/cli/run.h: `vitesse decode` on the engine: a lattice set cut into batches by a token
 * budget, decoded by the scheduler's workers, written in input order. */
#ifndef VT_CLI_RUN_H
#define VT_CLI_RUN_H

#include "cli.h"
#include "engine_cli.h"

/* Decodes `src` with `opts` on the engine configured by `eng` (already planned: `topo`, `plan`),
 * writing one line per sentence and path to `out` (NULL: no output) in input order:
 *   sentence<TAB>rank<TAB>score<TAB>labels
 * Stops reading after `time_budget` seconds when it is > 0, and when `cancel` (may be NULL)
 * becomes nonzero. When src->E_file is set, pages of E behind the writer are released, so resident
 * memory stays flat however large E is. Fills `stats` (decoder counters summed over workers,
 * wall seconds, sentences written) and `sstats` (may be NULL; its `workers` array is then a
 * copy the caller frees with free((void *)sstats->workers)).
 * Returns VT_OK; VT_ECANCELED after a cancel; VT_EIO when writing failed (*write_errno then
 * holds errno: EPIPE for a closed pipe; may be NULL); another status when decoding failed (the
 * message is printed unless the write failed). */
vt_status vt_cli_decode_run(const vt_cli_engine *eng, const vt_topo *topo, const vt_plan *plan,
                            const vt_trans *trans, const vt_decode_opts *opts,
                            const vt_cli_source *src, FILE *out, double time_budget,
                            const atomic_int *cancel, vt_cli_run_stats *stats,
                            vt_sched_stats *sstats, int *write_errno);

#endif
