#!/bin/sh
# perf/text_bench.sh VITESSE DATA [TASK...]: the text-pipeline measurements of perf/README.md
# ("Text pipeline") on the corpora of DATA (a folder holding conll2000/, ud-english-ewt/,
# agldt-greek/). Tasks: joint chunk ewt greek beam (default: all). Prints one result line per
# measurement; the corpora are converted into a temporary directory, never into the repository.
# Speeds are the best of 3 runs (the machine is shared); tagging excludes model loading.
set -eu
if [ $# -lt 2 ]; then
  echo "usage: $0 VITESSE DATA [joint|chunk|ewt|greek|beam]..." >&2
  exit 64
fi
V=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
D=$2
shift 2
TASKS=${*:-joint chunk ewt greek beam}
T=$(cd "$(dirname "$0")" && pwd)/templates
W=$(mktemp -d "${TMPDIR:-/tmp}/vt_text_bench.XXXXXX")
trap 'rm -rf "$W"' EXIT
cd "$W"

now() { date +%s.%N; }
json() { sed -n "s/.*\"$1\": \([0-9.e+-]*\).*/\1/p" "$2"; }
best() { sort -g | tail -1; } # largest number of its input lines

# train NAME TEMPLATE TRAIN DEV EPOCHS [options...]: trains NAME.bin; prints seconds of the epochs.
train() {
  name=$1 tmpl=$2 tr=$3 dev=$4 ep=$5
  shift 5
  t0=$(now)
  "$V" train --template "$tmpl" --train "$tr" --dev "$dev" --epochs "$ep" "$@" -o "$name.bin" \
    2>"$name.train.log"
  t1=$(now)
  ep_s=$(sed -n 's/.* epochs in \([0-9.]*\) s.*/\1/p' "$name.train.log")
  dec_s=$(sed -n 's/.*(decoding \([0-9.]*\) s).*/\1/p' "$name.train.log")
  total=$(echo "$t1 - $t0" | bc -l)
  size=$(stat -c %s "$name.bin")
  dev_acc=$(grep '^epoch' "$name.train.log" | tail -1 |
    sed -n 's/.*dev token accuracy \([0-9.]*\)%.*/\1/p')
  printf '%s: train %s epochs: %.2f s (decoder %.2f s; whole command %.2f s), model %.2f MB, ' \
    "$name" "$ep" "$ep_s" "$dec_s" "$total" "$(echo "$size / 1000000" | bc -l)"
  printf 'last dev accuracy %s%%\n' "$dev_acc"
}

# tagspeed NAME MODEL TEST THREADS [options...]: best of 3 end-to-end and decoder-only speeds.
tagspeed() {
  name=$1 model=$2 test=$3 th=$4
  shift 4
  : >"$name.speeds"
  for i in 1 2 3; do
    "$V" tag -m "$model" --threads "$th" --stats "$@" "$test" -o "$name.out" 2>"$name.stats"
    echo "$(json sentences_per_second "$name.stats") $(json decode_sentences_per_second \
      "$name.stats")" >>"$name.speeds"
  done
  e2e=$(cut -d' ' -f1 "$name.speeds" | best)
  dec=$(cut -d' ' -f2 "$name.speeds" | best)
  printf '%s: tag %s thread(s): %s sentences/s end to end, decoder %s sentences/s\n' "$name" \
    "$th" "$e2e" "$dec"
}

# decodespeed NAME DIR ALGO [options]: `vitesse decode` alone on lattices from `vitesse lattice`.
decodespeed() {
  name=$1 dir=$2 algo=$3
  shift 3
  : >"$name.speeds"
  for i in 1 2 3; do
    "$V" decode --emissions "$dir/E.npy" --lengths "$dir/N.npy" --transitions "$dir/A.npy" \
      --start "$dir/S.npy" --end "$dir/F.npy" --rank "$dir/R.npy" --algo "$algo" --threads 1 \
      --stats "$@" -o /dev/null 2>"$name.stats"
    json sentences_per_second "$name.stats" >>"$name.speeds"
  done
  printf '%s: vitesse decode --algo %s, 1 thread: %s sentences/s\n' "$name" "$algo" \
    "$(best <"$name.speeds")"
}

joint_data() {
  [ -s train.joint ] && return 0
  for f in train test; do
    awk '{ if (NF) print $1, $2 "|" $3; else print "" }' "$D/conll2000/$f.txt" >"$f.joint"
  done
}

echo "# vitesse text pipeline, $(date -u +%Y-%m-%d), $(nproc) cores," \
  "load: $(cut -d' ' -f1-3 /proc/loadavg)"
for task in $TASKS; do
  case $task in
  joint)
    joint_data
    for dec in staggered-col viterbi; do
      if ! "$V" train --help >/dev/null 2>&1; then break; fi
      train "joint-$dec" "$T/conll2000-joint.tmpl" train.joint test.joint 10 --decoder "$dec" ||
        echo "joint-$dec: decoder not available"
    done
    "$V" tag -m joint-staggered-col.bin test.joint -o joint.out
    "$V" eval --split '|' joint.out | sed 's/^/joint: /'
    for th in 1 2; do tagspeed "joint" joint-staggered-col.bin test.joint "$th"; done
    tagspeed "joint-viterbi" joint-staggered-col.bin test.joint 1 --algo viterbi
    "$V" lattice -m joint-staggered-col.bin -o jlat test.joint 2>/dev/null
    for a in viterbi staggered-col; do decodespeed "joint" jlat "$a"; done
    ;;
  beam)
    joint_data
    [ -s joint-staggered-col.bin ] ||
      "$V" train --template "$T/conll2000-joint.tmpl" --train train.joint --epochs 10 --quiet \
        -o joint-staggered-col.bin
    "$V" tag -m joint-staggered-col.bin --algo viterbi test.joint -o exact.out
    exact=$("$V" eval exact.out | sed -n 's/^tokens.*accuracy: \([0-9.]*\)%/\1/p')
    echo "beam: exact decoders: token accuracy $exact%"
    for B in 1 2 4 8 16 32 64 128 256; do
      tagspeed "beam-$B" joint-staggered-col.bin test.joint 1 --algo beam --beam "$B"
      acc=$("$V" eval "beam-$B.out" | sed -n 's/^tokens.*accuracy: \([0-9.]*\)%/\1/p')
      echo "beam-$B: token accuracy $acc%"
      if [ "$(echo "$exact - $acc < 0.1" | bc -l)" -eq 1 ]; then break; fi
    done
    ;;
  chunk)
    train chunk "$T/conll2000-chunk.tmpl" "$D/conll2000/train.txt" "$D/conll2000/test.txt" 10
    "$V" tag -m chunk.bin "$D/conll2000/test.txt" -o chunk.out
    "$V" eval --chunk chunk.out | sed -n '4p' | sed 's/^/chunk: conlleval /'
    for th in 1 2; do tagspeed chunk chunk.bin "$D/conll2000/test.txt" "$th"; done
    ;;
  ewt)
    E=$D/ud-english-ewt
    for col in UPOS XPOS; do
      train "ewt-$col" "$T/ud-ewt-pos.tmpl" "$E/en_ewt-ud-train.conllu" \
        "$E/en_ewt-ud-dev.conllu" 10 --conllu --label-col "$col"
      "$V" tag -m "ewt-$col.bin" "$E/en_ewt-ud-test.conllu" -o "ewt-$col.out"
      "$V" eval --conllu --gold-col "$col" "ewt-$col.out" | sed -n 2p | sed "s/^/ewt-$col: test /"
      for th in 1 2; do tagspeed "ewt-$col" "ewt-$col.bin" "$E/en_ewt-ud-test.conllu" "$th"; done
    done
    ;;
  greek)
    G=$D/agldt-greek
    train greek "$T/agldt-greek.tmpl" "$G/train.tsv" "$G/test.tsv" 10 --comments --sep tab
    "$V" tag -m greek.bin "$G/test.tsv" -o greek.out
    "$V" eval --comments --sep tab greek.out | sed -n 2p | sed 's/^/greek: test /'
    for th in 1 2; do tagspeed greek greek.bin "$G/test.tsv" "$th"; done
    tagspeed "greek-viterbi" greek.bin "$G/test.tsv" 1 --algo viterbi
    "$V" lattice -m greek.bin -o glat "$G/test.tsv" 2>/dev/null
    for a in viterbi staggered-col; do decodespeed greek glat "$a"; done
    ;;
  *) echo "unknown task $task" >&2 ;;
  esac
done
