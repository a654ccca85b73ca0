#!/bin/sh
# tests/mpi_train.sh VITESSE VITESSE_MPI MPIEXEC NPFLAG CASE: `vitesse-mpi train` under mpirun
# with 1..4 ranks (oversubscribed, on this machine) and 1 or 2 threads a rank writes the very
# model `vitesse train` writes from the whole file, on corpora this script writes (sentences
# straddling the ranks' cuts, fewer shards than ranks, values on item attributes): the averaged
# perceptron by --shards over templates, L-BFGS over templates and over CRFsuite item files (with
# enough tokens for 16 gradient batches). Rank 0 prints the lines `vitesse train` prints (the
# losses the same). Failures: exit status 2, one line "vitesse: ..." naming the file and the
# line that rank 0's part would not hold, no model. Each run checks that the job really had P
# ranks. Cases: perceptron crf_templates crf_items errors.
set -u

if [ $# -ne 5 ]; then
  echo "usage: $0 VITESSE VITESSE_MPI MPIEXEC NPFLAG CASE" >&2
  exit 64
fi
VITESSE=$1
VMPI=$2
MPIEXEC=$3
NP=$4
CASE=$5
HERE=$(cd "$(dirname "$0")" && pwd)
base=$(mktemp -d "${TMPDIR:-/tmp}/vt_mpi_train.XXXXXX") || exit 1
trap 'rm -rf "$base"' EXIT
trap 'exit 130' INT TERM
cd "$base" || exit 1

SUITE=mpi_train
. "$HERE/mpi_env.sh"

# corpus N SEED: N sentences "word feature label" of 1..9 tokens, 7 labels.
corpus() {
  awk -v n="$1" -v seed="$2" 'BEGIN {
    split("NN VB DT JJ B-NP I-NP O", lab, " ");
    s = seed;
    for (i = 0; i < n; i++) {
      s = (s * 1103515245 + 12345) % 2147483648; T = 1 + int(s / 65536) % 9; prev = 9;
      for (t = 0; t < T; t++) {
        s = (s * 1103515245 + 12345) % 2147483648; w = int(s / 65536) % 40;
        printf "w%d x%d %s\n", w, w % 3, lab[1 + (w * 5 + prev * 3) % 7]; prev = w;
      }
      printf "\n";
    }
  }'
}

# items: the corpus as CRFsuite items (label, then attributes; some with values).
items() {
  awk 'NF == 0 { print ""; prev = "BOS"; next }
       { printf "%s\tw=%s\tx=%s\tp=%s\tv:%s\n", $3, $1, $2, prev, (length($1) % 4) * 0.25 + 0.5;
         prev = $1 }' "$1"
}

# same_model NAME REF PS THREADS ARGS...: vitesse-mpi train with ARGS on each P of PS and each
# thread count of THREADS writes the bytes of REF; its iteration or epoch lines (without times)
# are those of ref.err.
same_model() {
  name=$1
  ref=$2
  ps=$3
  ths=$4
  shift 4
  sed 's/, [0-9.]* s[,;]*//; s/: [0-9.]* s,/:/; s/ in [0-9.]* s.*//; s/read in .*//' ref.err \
    >ref.lines
  for p in $ps; do
    for th in $ths; do
      rm -f out.bin
      run_mpi "$p" train "$@" --threads "$th" -o out.bin || fail "$name: P=$p threads=$th: rc $rc"
      cmp -s "$ref" out.bin || fail "$name: P=$p threads=$th: the model differs"
      sed 's/, [0-9.]* s[,;]*//; s/: [0-9.]* s,/:/; s/ in [0-9.]* s.*//; s/read in .*//' stderr \
        >out.lines
      cmp -s ref.lines out.lines || {
        diff ref.lines out.lines | head -n 10 >&2
        fail "$name: P=$p threads=$th: the lines differ from vitesse train's"
      }
    done
  done
}

printf 'U00:%%x[0,0]\nU01:%%x[-1,0]/%%x[0,0]\nU02:%%x[0,1]\nU03:%%x[1,0]\nB\n' >tmpl
case $CASE in
perceptron)
  corpus 3000 7 >train.txt
  corpus 200 8 >dev.txt
  for s in 3 4; do
    "$VITESSE" train --template tmpl --train train.txt --dev dev.txt --shards "$s" --epochs 4 \
      -o ref.bin 2>ref.err || fail "vitesse train --shards $s exited $?"
    same_model "shards $s" ref.bin "1 2 3 4" "1 2" --template tmpl --train train.txt \
      --dev dev.txt --shards "$s" --epochs 4
  done
  ;;
crf_templates)
  corpus 16000 9 >train.txt
  corpus 200 10 >dev.txt
  "$VITESSE" train --algo lbfgs --template tmpl --train train.txt --dev dev.txt \
    --max-iterations 12 -o ref.bin 2>ref.err || fail "vitesse train --algo lbfgs exited $?"
  same_model lbfgs ref.bin "1 2 3 4" "1 2" --algo lbfgs --template tmpl --train train.txt \
    --dev dev.txt --max-iterations 12
  # OWL-QN (L1), the features cut by --min-count
  "$VITESSE" train --algo lbfgs --c1 0.5 --min-count 2 --template tmpl --train train.txt \
    --max-iterations 8 -o ref1.bin 2>ref.err || fail "vitesse train --c1 exited $?"
  same_model owlqn ref1.bin "3" "2" --algo lbfgs --c1 0.5 --min-count 2 --template tmpl \
    --train train.txt --max-iterations 8
  ;;
crf_items)
  corpus 16000 11 >train.txt
  items train.txt >train.items
  corpus 200 12 >dev.txt
  items dev.txt >dev.items
  "$VITESSE" train --algo lbfgs --items train.items --dev dev.items --max-iterations 12 \
    -o ref.crf 2>ref.err || fail "vitesse train --items exited $?"
  same_model items ref.crf "1 2 3 4" "1 2" --algo lbfgs --items train.items --dev dev.items \
    --max-iterations 12
  "$VITESSE" train --algo lbfgs --items train.items --min-freq 3.5 --possible-states \
    --max-iterations 6 -o ref2.crf 2>ref.err || fail "vitesse train --min-freq exited $?"
  same_model "min-freq" ref2.crf "2 4" "1" --algo lbfgs --items train.items --min-freq 3.5 \
    --possible-states --max-iterations 6
  ;;
errors)
  mkdir out
  # one_error NAME: the last run failed with status 2, one line "vitesse: ...", no model.
  one_error() {
    [ "$rc" -eq 2 ] || fail "$1: exit status $rc, expected 2"
    [ "$(wc -l <stderr)" -eq 1 ] || fail "$1: expected one line on stderr"
    grep -q '^vitesse: ' stderr || fail "$1: the line does not start with 'vitesse: '"
    [ -z "$(ls -A out 2>/dev/null)" ] || fail "$1: files left in out/: $(ls -A out)"
  }
  # A bad line far into the file: found by a rank other than 0; named with its line number.
  { corpus 300 31; printf 'w1 x1 NN\nw2 x2\n\n'; corpus 30 32; } >bad.txt
  "$VITESSE" train --template tmpl --train bad.txt --shards 2 -o out/ref.bin 2>stderr
  [ $? -eq 2 ] || fail "vitesse train should fail on bad.txt"
  want=$(cat stderr)
  for p in 1 3; do
    run_mpi "$p" train --template tmpl --train bad.txt --shards 2 -o out/m.bin
    one_error "bad line P=$p"
    [ "$(cat stderr)" = "$want" ] || fail "bad line P=$p: '$(cat stderr)', expected '$want'"
  done
  corpus 300 33 >good.txt
  items good.txt >good.items
  printf 'NN\tw=a:x\n\n' >>good.items
  "$VITESSE" train --algo lbfgs --items good.items -o out/ref.crf 2>stderr
  [ $? -eq 2 ] || fail "vitesse train should fail on good.items"
  want=$(cat stderr)
  run_mpi 3 train --algo lbfgs --items good.items -o out/m.crf
  one_error "bad item"
  [ "$(cat stderr)" = "$want" ] || fail "bad item: '$(cat stderr)', expected '$want'"
  gzip -c good.txt >good.gz
  run_mpi 2 train --template tmpl --train good.gz --shards 2 -o out/m.bin
  one_error "gzip"
  run_mpi 2 train --template tmpl --train missing.txt --shards 2 -o out/m.bin
  one_error "missing corpus"
  run_mpi 2 train --template tmpl --train good.txt -o out/m.bin
  one_error "sequential perceptron"
  run_mpi 2 train --template tmpl --train good.txt --algo l2sgd -o out/m.bin
  one_error "l2sgd"
  run_mpi 2 train --template tmpl --train good.txt --shards 2 --threads -1 -o out/m.bin
  one_error "bad option"
  run_mpi 2 train --template tmpl --train good.txt --shards 2 -o out/missing/m.bin
  one_error "unwritable model"
  # An output that is an input: refused before anything is written, the items untouched.
  items good.txt >ok.items
  cp ok.items ok.keep
  run_mpi 2 train --algo lbfgs --items ok.items --log ok.items -o out/m.crf
  one_error "log is the items"
  grep -q 'is the same file as --items ok.items' stderr || fail "log is the items: $(cat stderr)"
  cmp -s ok.items ok.keep || fail "log is the items: the items file was touched"
  # Ranks given different options (MPMD): refused before training, one line, no model.
  "$MPIEXEC" "$NP" 1 "$VMPI" train --algo lbfgs --items ok.items --max-iterations 3 -o out/m.crf \
    : "$NP" 1 "$VMPI" train --algo lbfgs --items ok.items --max-iterations 4 -o out/m.crf \
    2>stderr.all </dev/null
  rc=$?
  grep -v '^vitesse-mpi: [0-9]* ranks$' stderr.all >stderr
  one_error "different options"
  grep -q 'the ranks were given different options' stderr || fail "different options: $(cat stderr)"
  # SIGTERM to every rank (what srun and Slurm's time limit send) while L-BFGS runs: rank 0 says
  # so in one line, every rank dies of the signal (143), no model. Training has begun once the
  # first iteration's line is there.
  corpus 80000 34 >long.txt
  OMPI_MCA_odls_base_sigkill_timeout=10 "$MPIEXEC" "$NP" 2 "$VMPI" train --algo lbfgs \
    --template tmpl --train long.txt --max-iterations 100000 --epsilon 0 --delta 0 \
    -o out/sig.bin 2>stderr.all </dev/null &
  job=$!
  i=0
  while ! grep -q '^iteration 1:' stderr.all 2>/dev/null && kill -0 $job 2>/dev/null &&
    [ $i -lt 6000 ]; do
    sleep 0.05
    i=$((i + 1))
  done
  ranks=$(pgrep -P $job -x vitesse-mpi | tr '\n' ' ')
  [ "$(echo $ranks | wc -w)" -eq 2 ] || { kill -KILL $job; fail "SIGTERM: ranks '$ranks'"; }
  # shellcheck disable=SC2086
  kill -TERM $ranks
  i=0
  while kill -0 $job 2>/dev/null && [ $i -lt 3000 ]; do
    sleep 0.1
    i=$((i + 1))
  done
  kill -0 $job 2>/dev/null && { pkill -KILL -P $job; kill -KILL $job; fail "SIGTERM: hung"; }
  wait $job
  rc=$?
  grep -v '^vitesse-mpi: [0-9]* ranks$' stderr.all | grep -v '^iteration \|^vitesse train:' >stderr
  [ "$rc" -ne 0 ] || fail "SIGTERM: the job exited 0"
  [ "$(grep -c '^vitesse: interrupted by SIGTERM: training stopped; out/sig.bin was not written$' \
    stderr)" -eq 1 ] || fail "SIGTERM: exit status $rc, expected one 'interrupted' line"
  [ -z "$(ls -A out 2>/dev/null)" ] || fail "SIGTERM: files left in out/: $(ls -A out)"
  ;;
*)
  fail "unknown case"
  ;;
esac
exit 0
