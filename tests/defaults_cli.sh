#!/bin/sh
# tests/defaults_cli.sh VITESSE: `vitesse decode` without --algo takes the default decoder of
# vt_decode_opts_default for the lattices' label count and -k (viterbi / viterbi-astar below 128
# labels, iter-viterbi-astar from 128), prints what it chose in --stats and the same bytes as
# that decoder named explicitly; `--algo astar` without --heuristic is m9; --help states the rule.
set -eu
V=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() {
  echo "defaults_cli: $*" >&2
  exit 1
}
# check L K ALGO: the default for L labels and -k K is ALGO.
check() {
  d=$dir/L$1
  [ -d "$d" ] || { mkdir "$d" && "$V" synth -o "$d" --labels "$1" --sentences 40 --seed 3 >/dev/null 2>&1 ||
    fail "synth --labels $1"; }
  set -- "$1" "$2" "$3" --emissions "$d/E.npy" --lengths "$d/N.npy" --transitions "$d/A.npy" \
    --start "$d/S.npy" --end "$d/F.npy" --rank "$d/R.npy" --threads 1 --quiet
  L=$1 K=$2 A=$3
  shift 3
  "$V" decode "$@" -k "$K" --stats -o "$dir/def.txt" 2>"$dir/stats" || fail "L=$L k=$K: decode"
  grep -q "\"algo\": \"$A\"" "$dir/stats" || fail "L=$L k=$K: expected $A, got $(cat "$dir/stats")"
  "$V" decode "$@" -k "$K" --algo "$A" -o "$dir/named.txt" || fail "L=$L k=$K: --algo $A"
  cmp -s "$dir/def.txt" "$dir/named.txt" || fail "L=$L k=$K: default and --algo $A differ"
  if [ "$K" -gt 1 ]; then
    "$V" decode "$@" -k "$K" --algo astar -o "$dir/a.txt" || fail "L=$L k=$K: astar"
    "$V" decode "$@" -k "$K" --algo astar --heuristic m9 -o "$dir/m9.txt" || fail "astar m9"
    cmp -s "$dir/a.txt" "$dir/m9.txt" || fail "L=$L k=$K: astar's default heuristic is not m9"
  fi
}
check 22 1 viterbi
check 22 3 viterbi-astar
check 127 1 viterbi
check 128 1 iter-viterbi-astar
check 128 4 iter-viterbi-astar
check 130 2 iter-viterbi-astar
"$V" decode --help | grep -q "L < 128 .*viterbi (-k 1), viterbi-astar" || fail "decode --help"
"$V" tag --help | grep -q "L >= 128 .*iter-viterbi-astar" || fail "tag --help"
echo "defaults_cli: ok"
