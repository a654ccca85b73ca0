#!/bin/sh
# perf/ckpt_ab.sh VITESSE ROUNDS TRAIN-ARGS...: the cost of `vitesse train --checkpoint` at the
# default interval (CKPT_EVERY=N in the environment: --checkpoint-every N). Alternates ROUNDS runs of `vitesse train TRAIN-ARGS -o MODEL` without and
# with --checkpoint CK (in the temporary folder, on the same file system as the model), and
# prints each side's minimum and median CPU time (perf stat task-clock, ms) and wall time (s).
# The two models must be the same bytes (for L-BFGS: liblbfgs's
# without, lbfgs.c's with).
set -eu
if [ $# -lt 3 ]; then
  echo "usage: $0 VITESSE ROUNDS TRAIN-ARGS..." >&2
  exit 64
fi
V=$1 R=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
i=0
while [ "$i" -lt "$R" ]; do
  for mode in plain ckpt; do
    rm -f "$tmp/m.$mode" "$tmp/ck"
    s=$(date +%s.%N)
    if [ "$mode" = ckpt ]; then
      perf stat -x, -e task-clock -o "$tmp/st" "$V" train "$@" -o "$tmp/m.$mode" --quiet \
        --checkpoint "$tmp/ck" ${CKPT_EVERY:+--checkpoint-every "$CKPT_EVERY"}
    else
      perf stat -x, -e task-clock -o "$tmp/st" "$V" train "$@" -o "$tmp/m.$mode" --quiet
    fi
    e=$(date +%s.%N)
    printf '%s %s %s\n' "$mode" "$(grep task-clock "$tmp/st" | cut -d, -f1)" \
      "$(awk -v a="$s" -v b="$e" 'BEGIN { printf "%.3f", b - a }')" >>"$tmp/times"
  done
  cmp -s "$tmp/m.plain" "$tmp/m.ckpt" || { echo "models differ" >&2; exit 1; }
  i=$((i + 1))
done
# stat FIELD: "min median" of column FIELD of the lines in standard input.
stat() { sort -n -k"$1" | awk -v f="$1" '{ v[NR] = $f } END { print v[1], v[int((NR + 1) / 2)] }'; }
for mode in plain ckpt; do
  printf '%s: cpu ms (min median) %s; wall s (min median) %s\n' "$mode" \
    "$(grep "^$mode " "$tmp/times" | stat 2)" "$(grep "^$mode " "$tmp/times" | stat 3)"
done
