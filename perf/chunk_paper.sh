#!/bin/sh
# perf/chunk_paper.sh BUILD_DIR CONLL2000_DIR: Shimizu & Haas (2006), Table 7, again.
# CONLL2000_DIR (no default): a folder holding CoNLL-2000's train.txt and test.txt.
# Trains on the first 447 sentences of CoNLL-2000 train.txt, tests on all 2,012 of test.txt, POS
# collapsed to 5 tags (Table 3), NP chunks against O: the joint model with the perceptron (VP)
# and max-margin (MMVP) updates, 10 epochs each (Table 8), and the VP+VP cascade built from
# vitesse's own linear-chain perceptron (`vitesse train` / `tag` / `eval`): a POS tagger (30
# epochs), then an NP chunker (70 epochs) fed the predicted POS tags. Same observations in every
# system: words at -1, 0, +1, the token type of Table 5, lexicalized transitions (x[r-1], x[r]).
# Prints the measures and the timings; the results are in perf/README.md. Derived corpora live
# in a temp dir only.
set -eu
B=${1:-build}
D=${2:?usage: perf/chunk_paper.sh BUILD_DIR CONLL2000_DIR (holding train.txt and test.txt)}
V=$B/vitesse
T=$(mktemp -d "${TMPDIR:-/tmp}/vt_chunk_paper.XXXXXX")
trap 'rm -rf "$T"' EXIT

echo "== joint models (vitesse chunk-train / chunk-tag)"
for u in vp mmvp; do
  $V chunk-train --train "$D/train.txt" --sentences 447 --collapse paper --epochs 10 --update $u \
    -o "$T/$u.model" 2>"$T/$u.log"
  secs=$(sed -n 's/.*(total \([0-9.]*\) s).*/\1/p' "$T/$u.log" | tail -1)
  printf '%s joint: training %s s; ' $u "$secs"
  $V chunk-tag -m "$T/$u.model" --eval --stats "$D/test.txt" -o "$T/$u.out" 2>"$T/$u.eval"
  cat "$T/$u.eval"
done

echo "== cascade VP+VP (vitesse train / tag / eval, linear-chain averaged perceptron)"
# word type collapsed-POS NP-BIO: the paper's input files (Table 5 types, Table 3 tags)
cat >"$T/derive.awk" <<'EOF'
NF == 0 { print ""; next }
{
  w = $1; p = $2; c = $NF
  if (w ~ /^[A-Z][a-z]+$/) t = "CAPITAL"
  else if (w ~ /^[A-Z]$/) t = "CAP_ONE"
  else if (w ~ /^[A-Z]+$/) t = "CAP_ALL"
  else if (w ~ /^[A-Z]+[a-z]+[A-Z]+[a-z]*$/) t = "CAP_MIX"
  else if (w ~ /[0-9]/) t = "NUMBER"
  else t = "NONE"
  if (p ~ /^NN/) q = "NOUN"; else if (p ~ /^VB/) q = "VERB"; else if (p ~ /^JJ/) q = "JADJ"
  else if (p ~ /^RB/) q = "RBP"; else q = "OTHER"
  print w, t, q, (c == "B-NP" || c == "I-NP") ? c : "O"
}
EOF
awk -f "$T/derive.awk" "$D/train.txt" |
  awk '{ print } NF == 0 && ++s == 447 { exit }' >"$T/train.txt"
awk -f "$T/derive.awk" "$D/test.txt" >"$T/test.txt"
printf 'U00:%%x[-1,0]\nU01:%%x[0,0]\nU02:%%x[1,0]\nU03:%%x[0,1]\nU99:bias\n' >"$T/pos.tmpl"
printf 'B\nB10:%%x[-1,0]\nB11:%%x[0,0]\n' >>"$T/pos.tmpl"
{ cat "$T/pos.tmpl"; printf 'U04:%%x[-1,2]\nU05:%%x[0,2]\nU06:%%x[1,2]\n'; } >"$T/np.tmpl"
t0=$(date +%s.%N)
$V train --template "$T/pos.tmpl" --train "$T/train.txt" --label-col 2 --epochs 30 --quiet \
  -o "$T/pos.model" 2>/dev/null
t1=$(date +%s.%N)
$V train --template "$T/np.tmpl" --train "$T/train.txt" --label-col 3 --epochs 70 --quiet \
  -o "$T/np.model" 2>/dev/null
t2=$(date +%s.%N)
echo "training (wall, with I/O): POS tagger $(echo "$t1 - $t0" | bc) s," \
  "NP chunker $(echo "$t2 - $t1" | bc) s"
$V tag -m "$T/pos.model" "$T/test.txt" -o "$T/test.pos.txt"
awk 'NF { n++; c += $3 == $5 } END { printf "POS tagger: accuracy %.2f%%\n", 100 * c / n }' \
  "$T/test.pos.txt"
awk 'NF == 0 { print ""; next } { print $1, $2, $5, $4 }' "$T/test.pos.txt" >"$T/test.pred.txt"
t3=$(date +%s.%N)
$V tag -m "$T/np.model" "$T/test.pred.txt" -o "$T/test.np.txt"
t4=$(date +%s.%N)
echo "NP chunker on predicted POS (the VP+VP row; tagging $(echo "$t4 - $t3" | bc) s):"
$V eval --chunk "$T/test.np.txt" | sed -n '2,4p'
$V tag -m "$T/np.model" "$T/test.txt" -o "$T/test.gold.txt"
echo "NP chunker on gold POS (the paper's NP-chunking column):"
$V eval --chunk "$T/test.gold.txt" | sed -n '2,4p'
