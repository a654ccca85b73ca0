#!/bin/sh
# perf/omp_bench.sh BUILD_DIR OUT_DIR DATA LATTICES: the benchmark outputs perf/plot draws
#, as CSV files in OUT_DIR:
#   threads.csv  task,threads,sentences,sentences_per_second,serial_cpu_seconds,worker_cpu_seconds
#                from --stats: `vitesse tag` on the CoNLL-2000 joint POS|chunk task (a 5-epoch
#                perceptron trained here with perf/templates/conll2000-joint.tmpl; the test set
#                repeated 20 times, 40,240 sentences) and `vitesse decode --algo staggered-col`
#                on the real joint (319 labels) and Greek (945 labels) lattices repeated 10
#                times; for each thread count of $THREADS (default "1 2"; "1 2 4 8 16" on a
#                16-core machine), the thread counts interleaved, best of $ROUNDS (3) rounds.
#   labels.csv   vt_bench --csv (one thread): 1-best sentences/s of each decoder on synthetic
#                lattices of 16 to 1024 labels.
#   kbest.csv    vt_bench --csv (one thread): the k-best decoders on the real joint lattices for
#                k = 1, 2, 5, 10, 20, 50.
# DATA (no default): a folder holding conll2000/{train,test}.txt and agldt-greek/test.tsv;
# LATTICES (no default): a folder holding the lattice sets conll2000-joint/ and agldt-greek/.
# Scratch files go to a temporary directory, never into the repository. About 5 minutes on 2
# cores.
set -eu
if [ $# -lt 4 ]; then
  echo "usage: $0 BUILD_DIR OUT_DIR DATA LATTICES" >&2
  exit 64
fi
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "$1" && pwd)
mkdir -p "$2"
OUT=$(cd "$2" && pwd)
D=$3
LAT=$4
THREADS=${THREADS:-1 2}
ROUNDS=${ROUNDS:-3}
V=$B/vitesse
W=$(mktemp -d "${TMPDIR:-/tmp}/vt_omp_bench.XXXXXX")
trap 'rm -rf "$W"' EXIT

# json KEY FILE: the first value of "KEY" in a --stats line (workers have keys of the same name).
json() { grep -o "\"$1\": [0-9.e+-]*" "$2" | head -1 | cut -d' ' -f2; }

# The inputs: the joint task's model and test set x20, the real lattices x10.
awk '{ if (NF) print $1, $2 "|" $3; else print "" }' "$D/conll2000/train.txt" >"$W/train.joint"
awk '{ if (NF) print $1, $2 "|" $3; else print "" }' "$D/conll2000/test.txt" >"$W/test.joint"
for i in $(seq 20); do cat "$W/test.joint"; done >"$W/test20.joint"
"$V" train --template "$ROOT/perf/templates/conll2000-joint.tmpl" --train "$W/train.joint" \
  --epochs 5 --quiet -o "$W/joint.bin"
for l in conll2000-joint agldt-greek; do
  mkdir -p "$W/$l"
  "$B/perf/lattice_repeat" "$LAT/$l" 10 "$W/$l" >/dev/null
done

# run TASK THREADS: one run; appends its CSV line to $W/runs.
run() {
  case $1 in
  tag) "$V" tag -m "$W/joint.bin" --threads "$2" --stats --quiet "$W/test20.joint" \
    -o /dev/null 2>"$W/stats" ;;
  *)
    l=$W/${1#decode-}
    "$V" decode --emissions "$l/E.npy" --lengths "$l/N.npy" --transitions "$l/A.npy" \
      --start "$l/S.npy" --end "$l/F.npy" --rank "$l/R.npy" --algo staggered-col \
      --threads "$2" --stats --quiet -o /dev/null 2>"$W/stats"
    ;;
  esac
  echo "$1,$2,$(json sentences "$W/stats"),$(json sentences_per_second "$W/stats"),$(json \
    serial_cpu_seconds "$W/stats"),$(json worker_cpu_seconds "$W/stats")" >>"$W/runs"
}
: >"$W/runs"
for r in $(seq "$ROUNDS"); do
  for task in tag decode-conll2000-joint decode-agldt-greek; do
    for th in $THREADS; do run "$task" "$th"; done
  done
done
# Best round (most sentences/s) of each task and thread count.
{
  echo "task,threads,sentences,sentences_per_second,serial_cpu_seconds,worker_cpu_seconds"
  sort -t, -k1,1 -k2,2n -k4,4gr "$W/runs" | awk -F, '!seen[$1 "," $2]++'
} >"$OUT/threads.csv"
cat "$OUT/threads.csv"

BENCH="$B/perf/vt_bench --rounds 1 --seconds 0.3"
HEAD="cpu,dataset,labels,algo,k,simd,sentences,sentences_per_second,x_scalar,x_viterbi,iterations,active_labels,pruned_fraction,x_full,fallback"
$BENCH --csv "$W/labels" --algos viterbi,staggered-col,beam,viterbi-astar,iter-viterbi-astar \
  synth:16:2000 synth:45:2000 synth:128:1000 synth:319:500 synth:512:300 synth:1024:100 >/dev/null
{ echo "$HEAD"; cat "$W/labels"; } >"$OUT/labels.csv"
echo "$HEAD" >"$OUT/kbest.csv"
for k in 2 5 10 20 50; do
  rm -f "$W/k.csv"
  $BENCH --csv "$W/k.csv" -k "$k" --heuristic m9 \
    --algos kbest-viterbi,astar,viterbi-astar,iter-viterbi-astar "$LAT/conll2000-joint" >/dev/null
  # The k = 1 rows once (from the first sweep), then each sweep's k rows.
  awk -F, -v k="$k" '$5 == k || (k == 2 && $5 == 1)' "$W/k.csv" >>"$OUT/kbest.csv"
done
echo "wrote $OUT/threads.csv $OUT/labels.csv $OUT/kbest.csv"
