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
if [ $# -lt 2 ]; then
  echo "usage: $0 VITESSE DIR [ROUNDS] [THREADS] [OPTIONS...]" >&2
  exit 64
fi
V=$1 D=$2 R=${3:-6} T=${4:-1}
shift $(($# < 4 ? $# : 4))
post=0
for a in "$@"; do [ "$a" = --posteriors ] && post=1; done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
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
i=0
while [ "$i" -lt "$R" ]; do
  for mode in plain resume; do
    rm -f "$tmp/o.$mode" "$tmp/o.$mode.npy"
    s=$(date +%s.%N)
    run "$mode" "$D" "$tmp/o.$mode" perf stat -x, -e task-clock -o "$tmp/st"
    e=$(date +%s.%N)
    printf '%s %s %s\n' "$mode" "$(grep task-clock "$tmp/st" | cut -d, -f1)" \
      "$(awk -v a="$s" -v b="$e" 'BEGIN { printf "%.3f", b - a }')" >>"$tmp/times"
  done
  cmp -s "$tmp/o.plain" "$tmp/o.resume" || { echo "outputs differ" >&2; exit 1; }
  [ $post -eq 0 ] || cmp -s "$tmp/o.plain.npy" "$tmp/o.resume.npy" ||
    { echo "posteriors differ" >&2; exit 1; }
  i=$((i + 1))
done
# stat FIELD: "min median" of column FIELD of the lines in standard input.
stat() { sort -n -k"$1" | awk -v f="$1" '{ v[NR] = $f } END { print v[1], v[int((NR + 1) / 2)] }'; }
for mode in plain resume; do
  printf '%s: cpu ms (min median) %s; wall s (min median) %s\n' "$mode" \
    "$(grep "^$mode " "$tmp/times" | stat 2)" "$(grep "^$mode " "$tmp/times" | stat 3)"
done
T=1
for mode in plain resume; do
  run "$mode" "${VT_CALLGRIND_DIR:-$D}" "$tmp/c.$mode" valgrind --tool=callgrind \
    --callgrind-out-file="$tmp/cg" 2>&1 | sed -n "s/.*Collected : /$mode instructions: /p"
done
