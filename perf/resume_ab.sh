#!/bin/sh
# perf/resume_ab.sh VITESSE MODEL CORPUS [ROUNDS] [THREADS]: the cost of `vitesse tag --resume`.
# Alternates ROUNDS (default 6) runs of `vitesse tag -m MODEL CORPUS -o OUT` without and with
# --resume on THREADS workers (default 1), and prints each side's minimum and median CPU time
# (perf stat task-clock, ms) and wall time (s); then one callgrind run of each on the first
# 100,000 lines of CORPUS (instructions, deterministic). The outputs must be the same bytes.
set -eu
if [ $# -lt 3 ]; then
  echo "usage: $0 VITESSE MODEL CORPUS [ROUNDS] [THREADS]" >&2
  exit 64
fi
V=$1 M=$2 C=$3 R=${4:-6} T=${5:-1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
i=0
while [ "$i" -lt "$R" ]; do
  for mode in plain resume; do
    extra=
    [ "$mode" = resume ] && extra=--resume
    rm -f "$tmp/o.$mode"
    s=$(date +%s.%N)
    perf stat -x, -e task-clock -o "$tmp/st" "$V" tag -m "$M" "$C" -o "$tmp/o.$mode" \
      --threads "$T" --quiet $extra
    e=$(date +%s.%N)
    printf '%s %s %s\n' "$mode" "$(grep task-clock "$tmp/st" | cut -d, -f1)" \
      "$(awk -v a="$s" -v b="$e" 'BEGIN { printf "%.3f", b - a }')" >>"$tmp/times"
  done
  cmp -s "$tmp/o.plain" "$tmp/o.resume" || { echo "outputs differ" >&2; exit 1; }
  i=$((i + 1))
done
# stat FIELD: "min median" of column FIELD of the lines in standard input.
stat() { sort -n -k"$1" | awk -v f="$1" '{ v[NR] = $f } END { print v[1], v[int((NR + 1) / 2)] }'; }
for mode in plain resume; do
  printf '%s: cpu ms (min median) %s; wall s (min median) %s\n' "$mode" \
    "$(grep "^$mode " "$tmp/times" | stat 2)" "$(grep "^$mode " "$tmp/times" | stat 3)"
done
head -n 100000 "$C" >"$tmp/small"
for mode in plain resume; do
  extra=
  [ "$mode" = resume ] && extra=--resume
  valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" "$V" tag -m "$M" "$tmp/small" \
    -o "$tmp/c.$mode" --threads 1 --quiet $extra 2>&1 | sed -n "s/.*Collected : /$mode instructions: /p"
done
