#!/bin/sh
# tests/train_parallel.sh VITESSE CASE [DATA]: training on several cores (`--shards`,
# `--threads`) from the command line. The model file is the same bytes for any --threads with
# the same --shards (or --minibatch) and --seed (the tagger and the joint label-chunk trainer),
# --shards 1 and --minibatch 1 are the sequential perceptron, and bad values fail with one line and exit status 2. Case `conll2000`
# repeats the first check on 500 CoNLL-2000 sentences (319 joint labels) from DATA
# (../shared/data); without it the case is skipped (exit 77).
set -u

if [ $# -lt 2 ]; then
  echo "usage: $0 VITESSE CASE [DATA]" >&2
  exit 64
fi
VITESSE=$1
CASE=$2
DATA=${3:-}
base=$(mktemp -d "${TMPDIR:-/tmp}/vt_train_parallel.XXXXXX") || exit 1
trap 'rm -rf "$base"' EXIT
trap 'exit 130' INT TERM
cd "$base" || exit 1

fail() {
  printf 'train_parallel.%s: FAIL: %s\n' "$CASE" "$*" >&2
  if [ -s stderr ]; then
    printf -- '--- stderr of vitesse:\n' >&2
    cat stderr >&2
  fi
  exit 1
}

# A corpus of N sentences "word POS chunk": POS a function of the word, the chunk tag of the
# word and the previous word.
corpus() {
  awk -v n="$1" -v seed="$2" 'BEGIN {
    split("NN VB DT JJ IN NNS PRP", pos, " "); split("B-NP I-NP B-VP O B-PP", chk, " ");
    s = seed;
    for (i = 0; i < n; i++) {
      s = (s * 1103515245 + 12345) % 2147483648; T = 1 + int(s / 65536) % 9; prev = 9;
      for (t = 0; t < T; t++) {
        s = (s * 1103515245 + 12345) % 2147483648; w = int(s / 65536) % 12;
        printf "w%d %s %s\n", w, pos[1 + w % 7], chk[1 + (w * 5 + prev * 3) % 5]; prev = w;
      }
      printf "\n";
    }
  }'
}

cat >tmpl <<'T'
U00:%x[0,0]
U01:%x[-1,0]/%x[0,0]
U02:%x[0,1]
B
T

# train_all NAME ARGS...: trains with ARGS at --threads 1, 2 and 3 into NAME.1 .. NAME.3 and
# fails unless the three model files are the same bytes.
train_all() {
  name=$1
  shift
  for n in 1 2 3; do
    "$VITESSE" "$@" --threads "$n" --quiet -o "$name.$n" 2>stderr || fail "$name: --threads $n"
  done
  cmp -s "$name.1" "$name.2" || fail "$name: --threads 1 and 2 give different models"
  cmp -s "$name.1" "$name.3" || fail "$name: --threads 1 and 3 give different models"
}

# bad ARGS...: vitesse fails with status 2 and exactly one line on stderr, writing no model.
bad() {
  "$VITESSE" "$@" -o bad.model 2>stderr
  rc=$?
  [ "$rc" -eq 2 ] || fail "$*: exit status $rc, expected 2"
  [ "$(wc -l <stderr)" -eq 1 ] || fail "$*: expected one line on stderr"
  grep -q '^vitesse: ' stderr || fail "$*: message without 'vitesse: '"
  [ ! -e bad.model ] || fail "$*: a model file was written"
}

case "$CASE" in
tagger)
  corpus 300 5 >train.txt
  for s in 2 3 4; do
    train_all "t$s" train --template tmpl --train train.txt --epochs 4 --seed 7 --shards "$s"
  done
  cmp -s t2.1 t3.1 && fail "--shards 2 and 3 give the same model"
  # --shards 1 is the sequential perceptron: the same model as without the option
  "$VITESSE" train --template tmpl --train train.txt --epochs 4 --seed 7 --quiet -o seq 2>stderr ||
    fail "sequential"
  train_all one train --template tmpl --train train.txt --epochs 4 --seed 7 --shards 1
  cmp -s seq one.1 || fail "--shards 1 differs from the sequential perceptron"
  # mini-batches (emissions, then decoding overlapped with the ordered updates) and the dev
  # evaluation on the trainer's threads: the same bytes for any --threads
  for b in 4 7; do
    train_all "b$b" train --template tmpl --train train.txt --dev train.txt --epochs 4 --seed 7 \
      --minibatch "$b"
  done
  cmp -s b4.1 seq && fail "--minibatch 4 gives the sequential model"
  train_all bone train --template tmpl --train train.txt --epochs 4 --seed 7 --minibatch 1
  cmp -s seq bone.1 || fail "--minibatch 1 differs from the sequential perceptron"
  ;;
joint)
  corpus 300 9 >train.txt
  for u in vp mmvp; do
    train_all "j$u" train --joint-chunk --train train.txt --epochs 4 --seed 3 --update "$u" \
      --chunk-types all --shards 3
  done
  "$VITESSE" chunk-train --train train.txt --epochs 4 --quiet -o seq 2>stderr || fail "sequential"
  train_all one chunk-train --train train.txt --epochs 4 --shards 1
  cmp -s seq one.1 || fail "--shards 1 differs from the sequential perceptron"
  ;;
bad_options)
  corpus 20 5 >train.txt
  for v in 0 -1 x 1025 ''; do
    bad train --template tmpl --train train.txt --shards "$v"
    bad train --joint-chunk --train train.txt --shards "$v"
  done
  for v in -2 y 4097 ""; do   # 0 is the default, one per core
    bad train --template tmpl --train train.txt --shards 2 --threads "$v"
    bad chunk-train --train train.txt --threads "$v"
  done
  ;;
conll2000)
  D=$DATA/conll2000
  [ -r "$D/train.txt" ] || {
    echo "train_parallel.conll2000: no $D/train.txt, skipped"
    exit 77
  }
  awk 'NF { print $1, $2 "|" $3; next } { print ""; if (++n == 500) exit }' "$D/train.txt" \
    >train.joint
  cat >jtmpl <<'T'
U00:%x[0,0]
U01:%x[-1,0]
U02:%x[1,0]
U03:%m[0,0,".?.?.?$"]
B
T
  train_all c train --template jtmpl --train train.joint --epochs 2 --shards 2
  # batches of 8 at 319 labels: in the first epoch a batch can change more transition cells
  # than vt_trans_update refreshes incrementally (its full rebuild path)
  train_all cb train --template jtmpl --train train.joint --epochs 2 --minibatch 8
  ;;
*)
  echo "unknown case $CASE" >&2
  exit 64
  ;;
esac
exit 0
