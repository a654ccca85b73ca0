#!/bin/sh
# perf/ckpt_ab.sh VITESSE ROUNDS TRAIN-ARGS...: the cost of `vitesse train --checkpoint` at the
# default interval (CKPT_EVERY=N in the environment: --checkpoint-every N). Alternates ROUNDS runs of `vitesse train TRAIN-ARGS -o MODEL` without and
# with --checkpoint CK (in the temporary folder, on the same file system as the model), and
# prints each side's minimum and median CPU time (perf stat task-clock, ms) and wall time (s).
# The two models must be the same bytes (for L-BFGS: liblbfgs's
# without, lbfgs.c's with).
set -eu
# shellcheck source=perf/ab_loop.sh
. "$(dirname "$0")/ab_loop.sh"
ab_need 3 "VITESSE ROUNDS TRAIN-ARGS..." "$@"
V=$1 R=$2
shift 2
ab_workdir vt_ckpt_ab
# one_side MODE TRAIN-ARGS...: one training run, with --checkpoint for MODE ckpt.
one_side() {
  mode=$1
  shift
  rm -f "$ab_dir/m.$mode" "$ab_dir/ck"
  if [ "$mode" = ckpt ]; then
    ab_timed "$mode" ab_perf "$V" train "$@" -o "$ab_dir/m.$mode" --quiet \
      --checkpoint "$ab_dir/ck" ${CKPT_EVERY:+--checkpoint-every "$CKPT_EVERY"}
  else
    ab_timed "$mode" ab_perf "$V" train "$@" -o "$ab_dir/m.$mode" --quiet
  fi
}
same_models() {
  cmp -s "$ab_dir/m.plain" "$ab_dir/m.ckpt" || { echo "models differ" >&2; exit 1; }
}
ab_alternate "$R" one_side same_models plain ckpt "$@"
ab_times plain ckpt
