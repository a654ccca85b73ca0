#!/bin/sh
# perf/serial_bench.sh OLD_BUILD NEW_BUILD OUT_CSV DATA LATTICES: the serial thread's share
#, two builds side by side, interleaved: for each round, task, thread count and
# output directory, one run of the old and one of the new `vitesse` with --stats and -o a file
# there, then a byte comparison of the two outputs (a "DIFF" line on stderr when they differ).
# Tasks: `tag` on the CoNLL-2000 joint task (a 5-epoch perceptron trained here with
# --decoder staggered-col; the test set x20, 40,240 sentences), `tag` with the AGLDT Greek
# tagger ($GREEK_MODEL, else a 1-epoch perceptron trained here; the test set x10, 18,410
# sentences), and `decode --algo staggered-col` on the real joint and Greek lattices x10.
# CSV columns: round,task,threads,dir,build,sentences,sentences_per_second,serial_cpu_seconds,
# worker_cpu_seconds,write_cpu_seconds (empty when the build does not report it),worker/serial.
# Env: ROUNDS (2), THREADS ("1 2"), DIRS (output directories: "/dev/shm" (tmpfs) and a directory
# on the disk; default "/dev/shm $TMPDIR-or-/tmp"). DATA (no default): a folder holding
# conll2000/{train,test}.txt and agldt-greek/{train,test}.tsv; LATTICES (no default): a folder
# holding the lattice sets conll2000-joint/ and agldt-greek/. Scratch files go to a temporary
# directory.
set -eu
if [ $# -lt 5 ]; then
  echo "usage: $0 OLD_BUILD NEW_BUILD OUT_CSV DATA LATTICES" >&2
  exit 64
fi
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OLD=$(cd "$1" && pwd)/vitesse
NEWB=$(cd "$2" && pwd)
NEW=$NEWB/vitesse
CSV=$3
D=$4
LAT=$5
ROUNDS=${ROUNDS:-2}
THREADS=${THREADS:-1 2}
W=$(mktemp -d "${TMPDIR:-/tmp}/vt_serial_bench.XXXXXX")
DIRS=${DIRS:-/dev/shm $W}
trap 'rm -rf "$W"' EXIT

json() { grep -o "\"$1\": [0-9.e+-]*" "$2" | head -1 | cut -d' ' -f2; }

awk '{ if (NF) print $1, $2 "|" $3; else print "" }' "$D/conll2000/train.txt" >"$W/train.joint"
awk '{ if (NF) print $1, $2 "|" $3; else print "" }' "$D/conll2000/test.txt" >"$W/test.joint"
for _ in $(seq 20); do cat "$W/test.joint"; done >"$W/test20.joint"
for _ in $(seq 10); do cat "$D/agldt-greek/test.tsv"; done >"$W/greek10.tsv"
"$NEW" train --template "$ROOT/perf/templates/conll2000-joint.tmpl" --train "$W/train.joint" \
  --epochs 5 --decoder staggered-col --quiet -o "$W/joint.bin"
G=${GREEK_MODEL:-}
if [ -z "$G" ]; then
  G=$W/greek.bin
  "$NEW" train --template "$ROOT/perf/templates/agldt-greek.tmpl" --train "$D/agldt-greek/train.tsv" \
    --comments --sep tab --epochs 1 --quiet -o "$G"
fi
for l in conll2000-joint agldt-greek; do
  mkdir -p "$W/$l"
  "$NEWB/perf/lattice_repeat" "$LAT/$l" 10 "$W/$l" >/dev/null
done

# run VITESSE TASK THREADS OUT: one run, its --stats in $W/stats.
run() {
  case $2 in
  tagjoint) "$1" tag -m "$W/joint.bin" --threads "$3" --stats --quiet "$W/test20.joint" \
    -o "$4" 2>"$W/stats" ;;
  taggreek) "$1" tag -m "$G" --threads "$3" --stats --quiet --comments --sep tab \
    "$W/greek10.tsv" -o "$4" 2>"$W/stats" ;;
  *)
    l=$W/conll2000-joint
    [ "$2" = decgreek ] && l=$W/agldt-greek
    "$1" decode --emissions "$l/E.npy" --lengths "$l/N.npy" --transitions "$l/A.npy" \
      --start "$l/S.npy" --end "$l/F.npy" --rank "$l/R.npy" --algo staggered-col \
      --threads "$3" --stats --quiet -o "$4" 2>"$W/stats"
    ;;
  esac
}
echo "round,task,threads,dir,build,sentences,sentences_per_second,serial_cpu_seconds,worker_cpu_seconds,write_cpu_seconds,worker_per_serial" >"$CSV"
for r in $(seq "$ROUNDS"); do
  for task in tagjoint taggreek decjoint decgreek; do
    for th in $THREADS; do
      for dir in $DIRS; do
        for b in old new; do
          v=$OLD
          [ $b = new ] && v=$NEW
          run "$v" $task "$th" "$dir/vt_serial_bench.$b.out"
          s=$(json serial_cpu_seconds "$W/stats")
          w=$(json worker_cpu_seconds "$W/stats")
          echo "$r,$task,$th,$dir,$b,$(json sentences "$W/stats"),$(json sentences_per_second \
            "$W/stats"),$s,$w,$(json write_cpu_seconds "$W/stats"),$(echo "$w $s" |
            awk '{ printf "%.0f", ($2 > 0 ? $1 / $2 : 0) }')" >>"$CSV"
        done
        cmp -s "$dir/vt_serial_bench.old.out" "$dir/vt_serial_bench.new.out" ||
          echo "DIFF: $task, $th threads, $dir: the outputs differ" >&2
        rm -f "$dir/vt_serial_bench.old.out" "$dir/vt_serial_bench.new.out"
      done
    done
  done
done
cat "$CSV"
