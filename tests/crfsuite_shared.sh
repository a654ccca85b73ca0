#!/bin/sh
# tests/crfsuite_shared.sh VITESSE DIR: the CRFsuite sample model of ../shared/peer-models
# (CoNLL-2000 chunking): vitesse's labels, and with -p -i its scores, log Z, probabilities and
# marginals, equal the saved output of crfsuite tag byte for byte, on 1 and 2 threads, from the
# crf1d file and from its native conversion; the native file written back as a crf1d file is the
# model's own bytes. Exit 77 (skipped) when DIR is absent.
set -u
vt=$1
dir=$2
for f in crfsuite.model crfsuite.test crfsuite.out crfsuite.marginals.out; do
  [ -r "$dir/$f" ] || { echo "SKIP: $dir/$f not found"; exit 77; }
done
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # NAME EXPECTED GOT
  if cmp -s "$2" "$3"; then echo "ok   $1"; else echo "FAIL $1"; diff "$2" "$3" | head -5; fail=1; fi
}
"$vt" convert --from crfsuite "$dir/crfsuite.model" -o "$tmp/native.model" || exit 1
for m in "$dir/crfsuite.model" "$tmp/native.model"; do
  for th in 1 2; do
    "$vt" tag -m "$m" --threads $th "$dir/crfsuite.test" > "$tmp/out" || exit 1
    check "labels $m threads $th" "$dir/crfsuite.out" "$tmp/out"
    "$vt" tag -p -i -m "$m" --threads $th "$dir/crfsuite.test" > "$tmp/marg" || exit 1
    check "-p -i $m threads $th" "$dir/crfsuite.marginals.out" "$tmp/marg"
  done
done
# Written back as a crf1d file from the native copy: the very bytes crfsuite learn wrote, so
# crfsuite tag prints what it printed.
"$vt" convert --to crfsuite "$tmp/native.model" -o "$tmp/back.crfsuite" || exit 1
check "crf1d written back" "$dir/crfsuite.model" "$tmp/back.crfsuite"
# Every exact decoder gives the same labels (no exact ties on this set).
for a in viterbi-scalar staggered iter-viterbi-astar carpediem; do
  "$vt" tag -m "$dir/crfsuite.model" --algo $a "$dir/crfsuite.test" > "$tmp/out" || exit 1
  check "labels --algo $a" "$dir/crfsuite.out" "$tmp/out"
done
# -k 5: the first path of each sequence is the 1-best one.
"$vt" tag -m "$dir/crfsuite.model" -k 5 "$dir/crfsuite.test" |
  awk '/^# /{keep = ($2 == 1); next} keep' > "$tmp/k1" || exit 1
check "-k 5 first paths" "$dir/crfsuite.out" "$tmp/k1"
exit $fail
