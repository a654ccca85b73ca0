#!/bin/sh
# perf/train_bench.sh: 10 epochs of training at 1 and 2 threads, side by side, on the
# CoNLL-2000 joint task (319 labels) and the AGLDT Greek treebank (945 labels) of DATA.
#
#   DATA=DIR sh perf/train_bench.sh VITESSE [WORKDIR]
#
# DATA (required, no default): a folder holding conll2000/{train,test}.txt and
# agldt-greek/{train,test}.tsv.
#
# For each round (ROUNDS, default 1) and each setting (SCHEMES, default "seq mb8 shards2": the
# sequential perceptron, --minibatch 8, --shards 2) it runs 1 thread then 2 threads (the
# sequential one once), one task after the other, and prints one line per run: the trainer's
# own time for the epochs, then wall, user CPU and peak RSS (KB) of the whole command (loading
# and the per-epoch dev evaluation included), and the last dev (= test) accuracy.
set -eu
if [ $# -lt 1 ]; then
  echo "usage: $0 VITESSE [WORKDIR]" >&2
  exit 64
fi
V=$1
D=${DATA:?set DATA to a folder holding conll2000/ and agldt-greek/ (see the top of this file)}
W=${2:-$(mktemp -d)}
HERE=$(cd "$(dirname "$0")" && pwd)
T=$HERE/templates
mkdir -p "$W"
awk '{ if (NF) print $1, $2 "|" $3; else print "" }' "$D/conll2000/train.txt" >"$W/train.joint"
awk '{ if (NF) print $1, $2 "|" $3; else print "" }' "$D/conll2000/test.txt" >"$W/test.joint"
run() { # TASK SCHEME THREADS ARGS...
  task=$1 scheme=$2 t=$3
  shift 3
  /usr/bin/time -f "%e %U %M" -o "$W/time" "$V" train "$@" --epochs 10 --threads "$t" \
    -o "$W/model.bin" >/dev/null 2>"$W/err"
  echo "$task $scheme threads=$t: $(grep -o 'epochs in [0-9.]* s' "$W/err" | tail -1);" \
    "wall/user/KB $(cat "$W/time"); $(grep -o 'dev token accuracy [0-9.]*%' "$W/err" | tail -1)"
}
for r in $(seq 1 "${ROUNDS:-1}"); do
  for scheme in ${SCHEMES:-seq mb8 shards2}; do
    case $scheme in
    seq) extra="" threads=1 ;;
    mb*) extra="--minibatch ${scheme#mb}" threads="1 2" ;;
    shards*) extra="--shards ${scheme#shards}" threads="1 2" ;;
    *) echo "$0: unknown scheme $scheme" >&2 && exit 64 ;;
    esac
    for t in $threads; do
      # shellcheck disable=SC2086 # $extra is empty or two words
      run joint "$scheme" "$t" --template "$T/conll2000-joint.tmpl" --train "$W/train.joint" \
        --dev "$W/test.joint" $extra
      # shellcheck disable=SC2086
      run greek "$scheme" "$t" --template "$T/agldt-greek.tmpl" --train "$D/agldt-greek/train.tsv" \
        --dev "$D/agldt-greek/test.tsv" --comments --sep tab $extra
    done
  done
done
