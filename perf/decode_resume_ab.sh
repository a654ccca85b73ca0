#!/bin/sh
# perf/decode_resume_ab.sh VITESSE DIR [ROUNDS] [THREADS] [OPTIONS...]: the cost of
# `vitesse decode --resume`. DIR holds a lattice set (vitesse synth -o DIR). Alternates ROUNDS
# (default 6) runs of `vitesse decode` on DIR's lattices with OPTIONS (e.g. --posteriors P.npy:
# written beside OUT under the temporary folder) and -o OUT, without and with --resume, on
# THREADS workers (default 1), and prints each side's minimum and median CPU time (perf stat
# task-clock, ms) and wall time (s); then one callgrind run of each (instructions,
# deterministic; VT_CALLGRIND_DIR names a smaller lattice set for it, default DIR). The outputs
# must be the same bytes.
set -eu
# shellcheck source=perf/ab_loop.sh
. "$(dirname "$0")/ab_loop.sh"
ab_need 2 "VITESSE DIR [ROUNDS] [THREADS] [OPTIONS...]" "$@"
V=$1 D=$2 R=${3:-6} T=${4:-1}
shift $(($# < 4 ? $# : 4))
post=0
for a in "$@"; do [ "$a" = --posteriors ] && post=1; done
ab_workdir vt_decode_resume_ab
# lat DIR: the lattice options of DIR.
lat() {
  printf -- '--emissions %s/E.npy --lengths %s/N.npy --transitions %s/A.npy' "$1" "$1" "$1"
  [ -f "$1/S.npy" ] && printf -- ' --start %s/S.npy --end %s/F.npy' "$1" "$1"
  return 0
}
# run MODE DIR OUT [WRAPPER...]: one decode run, --resume for MODE resume; the posteriors (with
# --posteriors in OPTIONS) go to OUT.npy.
run() {
  mode=$1 dir=$2 out=$3
  shift 3
  extra=
  [ "$mode" = resume ] && extra=--resume
  opts=
  for a in $OPTS; do
    if [ "$a" = @POST@ ]; then opts="$opts $out.npy"; else opts="$opts $a"; fi
  done
  # shellcheck disable=SC2046,SC2086
  "$@" "$V" decode $(lat "$dir") $opts -o "$out" --threads "$T" --quiet $extra
}
# The options, with the value of --posteriors replaced by a name beside OUT.
OPTS=
prev=
for a in "$@"; do
  if [ "$prev" = --posteriors ]; then OPTS="$OPTS @POST@"; else OPTS="$OPTS $a"; fi
  prev=$a
done
# one_side MODE: one timed run, with --resume for MODE resume.
one_side() {
  rm -f "$ab_dir/o.$1" "$ab_dir/o.$1.npy"
  ab_timed "$1" run "$1" "$D" "$ab_dir/o.$1" ab_perf
}
same_outputs() {
  cmp -s "$ab_dir/o.plain" "$ab_dir/o.resume" || { echo "outputs differ" >&2; exit 1; }
  [ $post -eq 0 ] || cmp -s "$ab_dir/o.plain.npy" "$ab_dir/o.resume.npy" ||
    { echo "posteriors differ" >&2; exit 1; }
}
ab_alternate "$R" one_side same_outputs plain resume
ab_times plain resume
T=1
for mode in plain resume; do
  run "$mode" "${VT_CALLGRIND_DIR:-$D}" "$ab_dir/c.$mode" valgrind --tool=callgrind \
    --callgrind-out-file="$ab_dir/cg" 2>&1 | sed -n "s/.*Collected : /$mode instructions: /p"
done
