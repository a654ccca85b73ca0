#!/bin/sh
# perf/resume_ab.sh VITESSE MODEL CORPUS [ROUNDS] [THREADS]: the cost of `vitesse tag --resume`.
# Alternates ROUNDS (default 6) runs of `vitesse tag -m MODEL CORPUS -o OUT` without and with
# --resume on THREADS workers (default 1), and prints each side's minimum and median CPU time
# (perf stat task-clock, ms) and wall time (s); then one callgrind run of each on the first
# 100,000 lines of CORPUS (instructions, deterministic). The outputs must be the same bytes.
set -eu
# shellcheck source=perf/ab_loop.sh
. "$(dirname "$0")/ab_loop.sh"
ab_need 3 "VITESSE MODEL CORPUS [ROUNDS] [THREADS]" "$@"
V=$1 M=$2 C=$3 R=${4:-6} T=${5:-1}
ab_workdir vt_resume_ab
# one_side MODE: one tagging run, with --resume for MODE resume.
one_side() {
  extra=
  [ "$1" = resume ] && extra=--resume
  rm -f "$ab_dir/o.$1"
  ab_timed "$1" ab_perf "$V" tag -m "$M" "$C" -o "$ab_dir/o.$1" --threads "$T" --quiet \
    $extra
}
same_outputs() {
  cmp -s "$ab_dir/o.plain" "$ab_dir/o.resume" || { echo "outputs differ" >&2; exit 1; }
}
ab_alternate "$R" one_side same_outputs plain resume
ab_times plain resume
head -n 100000 "$C" >"$ab_dir/small"
for mode in plain resume; do
  extra=
  [ "$mode" = resume ] && extra=--resume
  valgrind --tool=callgrind --callgrind-out-file="$ab_dir/cg" "$V" tag -m "$M" "$ab_dir/small" \
    -o "$ab_dir/c.$mode" --threads 1 --quiet $extra 2>&1 |
    sed -n "s/.*Collected : /$mode instructions: /p"
done
