#!/bin/sh
# perf/mpi_bench.sh VITESSE VITESSE_MPI DATA [REPEAT]: vitesse-mpi on this machine, ranks x
# threads 1x2, 2x1, 2x2 against one `vitesse` process with 2 threads, for tag (CoNLL-2000
# chunking model, 22 labels, the test set repeated REPEAT times, default 20; plain and .gz) and
# decode (viterbi on the CoNLL-2000 joint test lattices, 319 labels). DATA: a folder holding
# conll2000/{train,test}.txt, with the lattice set lattices/conll2000-joint/ beside it (in
# DATA/..). Prints, per run, the wall time of the whole
# command (mpirun's start included), the job's own seconds (--stats "seconds" /
# "decode_seconds") and the slowest rank's phases (read, tag/decode, exchange, write); each
# output is compared with the single process's (cmp). Best of 2 runs each.
set -eu
V=$(realpath "$1")
M=$(realpath "$2")
D=$(realpath "$3")
L=$(realpath "$D/../lattices/conll2000-joint")
REPEAT=${4:-20}
T=$(realpath "$(dirname "$0")/templates")
work=$(mktemp -d "${TMPDIR:-/tmp}/vt_mpi_bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_plm_rsh_agent=
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_hwloc_base_binding_policy=none
now() { date +%s.%N; }

"$V" train --template "$T/conll2000-chunk.tmpl" --train "$D/conll2000/train.txt" --epochs 10 \
  --quiet -o chunk.bin
i=0
while [ "$i" -lt "$REPEAT" ]; do cat "$D/conll2000/test.txt"; i=$((i + 1)); done >corpus.txt
DEC="--emissions $L/E.npy --lengths $L/N.npy --transitions $L/A.npy --start $L/S.npy --end $L/F.npy --algo viterbi"
printf 'corpus: %s bytes, %s sentences\n' "$(stat -c %s corpus.txt)" "$(grep -c '^$' corpus.txt)"

# field NAME FILE: the number after "NAME": in the --stats line.
field() { sed -n "s/.*\"$1\": \([0-9.]*\).*/\1/p" "$2" | head -n 1; }

# one LABEL CMD...: runs twice, keeps the faster; prints wall time and the stats fields.
one() {
  label=$1
  shift
  best=""
  for run in 1 2; do
    t0=$(now)
    "$@" 2>stats.txt
    t1=$(now)
    w=$(echo "$t1 - $t0" | bc -l)
    if [ -z "$best" ] || [ "$(echo "$w < $best" | bc -l)" -eq 1 ]; then
      best=$w
      cp stats.txt best.txt
    fi
  done
  cmp -s ref.out out.txt || { echo "$label: OUTPUT DIFFERS"; exit 1; }
  printf '%-22s wall %6.3f s  job %6.3f s' "$label" "$best" "$(field "$SECONDS_KEY" best.txt)"
  if grep -q mpi_exchange_seconds best.txt; then
    printf '  read %s  %s %s  exchange %s  write %s' "$(field mpi_read_seconds best.txt)" \
      "$PHASE" "$(field "mpi_${PHASE}_seconds" best.txt)" "$(field mpi_exchange_seconds best.txt)" \
      "$(field mpi_write_seconds best.txt)"
  fi
  echo
}

SECONDS_KEY=seconds PHASE=tag
"$V" tag -m chunk.bin corpus.txt -o ref.out
one "tag 1 process x2" "$V" tag -m chunk.bin --threads 2 --stats corpus.txt -o out.txt
for rt in "1 2" "2 1" "2 2"; do
  set -- $rt
  one "tag mpirun $1x$2" mpirun -n "$1" "$M" tag -m chunk.bin --threads "$2" --stats corpus.txt \
    -o out.txt
done
gzip -1 -c corpus.txt >corpus.txt.gz
one "tag .gz 1 process x2" "$V" tag -m chunk.bin --threads 2 --stats corpus.txt.gz -o out.txt
one "tag .gz mpirun 2x1" mpirun -n 2 "$M" tag -m chunk.bin --threads 1 --stats corpus.txt.gz \
  -o out.txt

SECONDS_KEY=decode_seconds PHASE=decode
# shellcheck disable=SC2086
"$V" decode $DEC -o ref.out
# shellcheck disable=SC2086
one "decode 1 process x2" "$V" decode $DEC --threads 2 --stats -o out.txt
for rt in "1 2" "2 1" "2 2"; do
  set -- $rt
  # shellcheck disable=SC2086
  one "decode mpirun $1x$2" mpirun -n "$1" "$M" decode $DEC --threads "$2" --stats -o out.txt
done
t0=$(now); mpirun -n 2 true; t1=$(now)
printf "mpirun -n 2 true: %.3f s\n" "$(echo "$t1 - $t0" | bc -l)"
