#!/bin/sh
# perf/same_bytes.sh OLD NEW [INPUTS]: two vitesse binaries side by side on the commands users
# run, for a change that must keep behaviour: every command's standard output (bytes), exit
# status and, for bad input, its one-line message must be equal. Covers decode with every
# decoder (1-best and k-best) and --posteriors/--logz, tag 1-best, k-best, -v 1/-v 2, tag
# dictionaries, 1 and 2 threads, a joint label-chunk model (tag, --eval), eval, lattice, train
# with every algorithm (templates, CRFsuite items, joint; the model files' bytes), and bad
# inputs; with INPUTS (a folder holding data/conll2000/{train,test}.txt, lattices/conll2000-joint
# and peer-models/conll2000-chunk), the real CoNLL-2000 corpora and lattices
# and the CRF++, CRFsuite and Wapiti models, else small data the script makes with NEW. Prints
# one line per case and "N same, M different"; exits 1 when any differs.
set -u
if [ $# -lt 2 ]; then
  echo "usage: $0 OLD NEW [INPUTS]" >&2
  exit 64
fi
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
OLD=$(abs "$1")
NEW=$(abs "$2")
SH=${3:-}
[ -n "$SH" ] && SH=$(cd "$SH" && pwd)
T=$(cd "$(dirname "$0")" && pwd)/templates
W=$(mktemp -d "${TMPDIR:-/tmp}/vt_same.XXXXXX")
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1
same=0
diff=0

# case NAME ARGS...: runs `BIN ARGS` for both, compares stdout, exit status and (on failure)
# stderr, and the files it wrote. "@" in ARGS stands for the binary's output folder (-o and
# --posteriors files). IN: a file for its standard input (default none).
case_() {
  name=$1
  shift
  for side in old new; do
    bin=$OLD
    [ $side = new ] && bin=$NEW
    rm -rf "out.$side" && mkdir "out.$side"
    args=""
    for a in "$@"; do args="$args '$(printf '%s' "$a" | sed "s|@|out.$side|g")'"; done
    eval "\"$bin\" $args" >"out.$side/stdout" 2>"out.$side/stderr" <"${IN:-/dev/null}"
    echo $? >"out.$side/rc"
    [ "$(cat out.$side/rc)" = 0 ] && : >"out.$side/stderr" # timing lines differ
  done
  if diff -r out.old out.new >/dev/null; then
    same=$((same + 1))
    echo "same  $name ($(wc -c <out.new/stdout) bytes, exit $(cat out.new/rc))"
  else
    diff=$((diff + 1))
    echo "DIFF  $name"
    diff -r out.old out.new | head -5
  fi
}

# ---- data ----
if [ -n "$SH" ] && [ -f "$SH/data/conll2000/train.txt" ]; then
  cp "$SH/data/conll2000/train.txt" train.txt
  head -n 20000 "$SH/data/conll2000/test.txt" >test.txt
else # a small corpus: word, POS, chunk
  awk 'BEGIN { srand(7); split("the a dog cat runs sat on mat big red", w, " ");
    split("DT DT NN NN VBZ VBD IN NN JJ JJ", p, " ");
    for (s = 0; s < 400; s++) { n = 3 + int(rand() * 12);
      for (t = 0; t < n; t++) { i = 1 + int(rand() * 10);
        c = (p[i] == "VBZ" || p[i] == "VBD") ? "B-VP" : (p[i] == "IN" ? "B-PP" : (t && rand() < 0.6 ? "I-NP" : "B-NP"));
        print w[i], p[i], c }
      print "" } }' >all.txt
  awk 'BEGIN { RS = ""; ORS = "\n\n" } NR <= 300' all.txt >train.txt
  awk 'BEGIN { RS = ""; ORS = "\n\n" } NR > 300' all.txt >test.txt
fi
"$NEW" train --template "$T/conll2000-chunk.tmpl" --train train.txt --epochs 3 --quiet \
  -o chunk.model 2>/dev/null || { echo "train failed"; exit 1; }
"$NEW" chunk-train --train train.txt --epochs 3 -o joint.model >/dev/null 2>&1 ||
  { echo "chunk-train failed"; exit 1; }
"$NEW" synth -o syn --labels 45 --sentences 300 --seed 3 >/dev/null 2>&1
"$NEW" lattice -m chunk.model -o lat test.txt >/dev/null 2>&1
"$NEW" tag-dict --word-col 0 --label-col 2 -o dict.txt train.txt 2>/dev/null
printf 'B-NP I-PP\n' >forbid.txt
printf 'x\n\n' >bad.txt
printf '\223NUMPY garbage' >bad.npy

# ---- decode ----
for L in syn lat; do
  D="--emissions $L/E.npy --lengths $L/N.npy --transitions $L/A.npy"
  for a in viterbi viterbi-scalar beam staggered staggered-col astar viterbi-astar iter-astar \
    iter-viterbi-astar carpediem kbest-viterbi; do
    # shellcheck disable=SC2086
    case_ "decode $L --algo $a" decode $D --algo $a --quiet
  done
  for a in kbest-viterbi astar viterbi-astar iter-viterbi-astar beam; do
    # shellcheck disable=SC2086
    case_ "decode $L --algo $a -k 5" decode $D --algo $a -k 5 --beam 8 --quiet
  done
  # shellcheck disable=SC2086
  case_ "decode $L --posteriors --logz" decode $D --posteriors @/post.npy --logz --quiet
  # shellcheck disable=SC2086
  case_ "decode $L --threads 2" decode $D --threads 2 --batch-tokens 64 --quiet
done
if [ -n "$SH" ] && [ -d "$SH/lattices/conll2000-joint" ]; then
  J=$SH/lattices/conll2000-joint
  for a in viterbi staggered-col iter-viterbi-astar; do
    case_ "decode conll2000-joint --algo $a" decode --emissions "$J/E.npy" --lengths "$J/N.npy" \
      --transitions "$J/A.npy" --rank "$J/R.npy" --algo $a --quiet
  done
fi

# ---- tag, eval, lattice ----
case_ "tag" tag -m chunk.model test.txt --quiet
case_ "tag --threads 2" tag -m chunk.model --threads 2 --batch-tokens 50 test.txt --quiet
case_ "tag -k 3" tag -m chunk.model -k 3 test.txt --quiet
case_ "tag -v 1" tag -m chunk.model -v 1 test.txt --quiet
case_ "tag -v 2 -k 2" tag -m chunk.model -v 2 -k 2 test.txt --quiet
case_ "tag --tag-dict" tag -m chunk.model --tag-dict dict.txt test.txt --quiet
case_ "tag --forbid-transitions" tag -m chunk.model --forbid-transitions forbid.txt test.txt --quiet
case_ "tag --algo staggered-col -o" tag -m chunk.model --algo staggered-col -o @/o.txt test.txt --quiet
IN=test.txt case_ "tag stdin" tag -m chunk.model --quiet -
case_ "tag joint" tag -m joint.model test.txt --quiet
case_ "chunk-tag --eval" chunk-tag -m joint.model --eval test.txt --quiet
"$NEW" tag -m chunk.model test.txt --quiet >tagged.txt 2>/dev/null
case_ "eval" eval tagged.txt
case_ "lattice" lattice -m chunk.model -o @/lat test.txt

# ---- train: every algorithm, the model file's bytes ----
TM="$T/conll2000-chunk.tmpl"
awk 'NF { printf "%s\tw=%s\tp=%s\n", $3, $1, $2; next } { print "" }' train.txt >items.txt
awk 'NF { printf "%s\tw=%s\tp=%s\n", $3, $1, $2; next } { print "" }' test.txt >items.dev
case_ "train perceptron" train --template "$TM" --train train.txt --epochs 3 --quiet -o @/m
case_ "train perceptron --dev --shards 2" train --template "$TM" --train train.txt --dev test.txt \
  --epochs 3 --shards 2 --quiet -o @/m
case_ "train perceptron --minibatch 4" train --template "$TM" --train train.txt --epochs 2 \
  --minibatch 4 --quiet -o @/m
case_ "train lbfgs" train --algo lbfgs --template "$TM" --train train.txt --max-iterations 15 \
  --quiet -o @/m
case_ "train lbfgs --c1 (OWL-QN) --dev" train --algo lbfgs --c1 0.1 --template "$TM" \
  --train train.txt --dev test.txt --max-iterations 15 --quiet -o @/m
case_ "train l2sgd" train --algo l2sgd --template "$TM" --train train.txt --max-iterations 3 \
  --calibration-samples 100 --quiet -o @/m
for a in lbfgs l2sgd ap pa arow; do
  case_ "train --items --algo $a" train --algo $a --items items.txt --dev items.dev \
    --max-iterations 5 --quiet -o @/m
done
case_ "train --joint-chunk" train --joint-chunk --train train.txt --test test.txt --epochs 2 \
  --quiet -o @/m
case_ "bad: train no template" train --template nothere.tmpl --train train.txt -o @/m
case_ "bad: train corpus" train --template "$TM" --train bad.txt -o @/m

# ---- peers' models ----
P=${SH:+$SH/peer-models/conll2000-chunk}
if [ -n "$P" ] && [ -d "$P" ]; then
  case_ "tag CRF++ binary" tag -m "$P/crfpp.model" "$P/test.txt" --quiet
  case_ "tag CRF++ text -k 3 -v 1" tag -m "$P/crfpp.model.txt" -k 3 -v 1 "$P/test.txt" --quiet
  case_ "tag Wapiti -k 3" tag -m "$P/wapiti.model" -k 3 "$P/test.txt" --quiet
  case_ "tag CRFsuite" tag -m "$P/crfsuite.model" "$P/crfsuite.test" --quiet
  case_ "tag CRFsuite -p -i" tag -m "$P/crfsuite.model" -p -i "$P/crfsuite.test" --quiet
  case_ "tag CRFsuite -l --threads 2" tag -m "$P/crfsuite.model" -l --threads 2 "$P/crfsuite.test" --quiet
  case_ "convert CRFsuite" convert "$P/crfsuite.model" -o @/native.model
fi

# ---- bad input ----
case_ "bad: no model" tag -m nothere.model test.txt
case_ "bad: corpus" tag -m chunk.model bad.txt
case_ "bad: joint -k 3" tag -m joint.model -k 3 test.txt
case_ "bad: npy" decode --emissions bad.npy --lengths syn/N.npy --transitions syn/A.npy
case_ "bad: labels" decode --emissions syn/E.npy --lengths syn/N.npy --transitions lat/A.npy
case_ "bad: option" tag --no-such-option
case_ "bad: -v on joint" tag -m joint.model -v 1 test.txt
case_ "bad: items on tagger" tag -m chunk.model -p test.txt
echo "$same same, $diff different"
[ "$diff" -eq 0 ]
