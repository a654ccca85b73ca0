#!/bin/sh
# tests/omp_cli.sh VITESSE: the OpenMP worker team of `vitesse tag` and `vitesse decode`:
# byte-identical output for 1, 2, 3 and 5 threads (more than this machine's cores) and several
# batch sizes; OMP_NUM_THREADS sets the worker count when --threads is not given; a team smaller
# than asked (OMP_THREAD_LIMIT) still gives the same bytes; OMP_PROC_BIND does not change them;
# the --stats keys serial_cpu_seconds and worker_cpu_seconds are there and sane; a bad line
# found by a worker is reported as the reader would, before a later bad line.
set -u
VITESSE=$1
HERE=$(cd "$(dirname "$0")" && pwd)
base=$(mktemp -d "${TMPDIR:-/tmp}/vt_ompcli.XXXXXX") || exit 1
trap 'rm -rf "$base"' EXIT
cd "$base" || exit 1
fails=0
fail() {
  printf 'omp_cli: FAIL: %s\n' "$*" >&2
  fails=$((fails + 1))
}
# json KEY FILE: the value of "KEY": in a --stats line (numbers and strings).
json() { sed -n "s/.*\"$1\": \"\{0,1\}\([a-z0-9.e+-]*\).*/\1/p" "$2"; }

printf 'U00:%%x[0,0]\nU01:%%x[-1,0]/%%x[0,0]\nU02:%%x[0,1]\nB\n' >tmpl
awk -v N=200 -v SEED=7 -f "$HERE/toy_corpus.awk" >train.txt
awk -v N=600 -v SEED=11 -f "$HERE/toy_corpus.awk" >test.txt
"$VITESSE" train --template tmpl --train train.txt --epochs 5 --quiet -o model.bin 2>err ||
  { fail "train: $(cat err)"; exit 1; }

# --- tag ---------------------------------------------------------------------------------------
"$VITESSE" tag -m model.bin --threads 1 test.txt -o ref 2>err || fail "tag reference: $(cat err)"
for th in 1 2 3 5; do
  for bt in 1 7 4096; do
    "$VITESSE" tag -m model.bin --threads $th --batch-tokens $bt test.txt -o out 2>err ||
      fail "tag threads=$th batch-tokens=$bt: $(cat err)"
    cmp -s ref out || fail "tag threads=$th batch-tokens=$bt: output differs from 1 thread"
  done
done

# OMP_NUM_THREADS is the worker count when --threads is absent; --threads wins over it.
for n in 1 3; do
  OMP_NUM_THREADS=$n "$VITESSE" tag -m model.bin --stats test.txt -o out 2>stats ||
    fail "tag OMP_NUM_THREADS=$n: $(cat stats)"
  [ "$(json threads stats)" = "$n" ] || fail "OMP_NUM_THREADS=$n: stats say $(json threads stats)"
  cmp -s ref out || fail "tag OMP_NUM_THREADS=$n: output differs"
done
OMP_NUM_THREADS=3 "$VITESSE" tag -m model.bin --threads 2 --stats test.txt -o out 2>stats
[ "$(json threads stats)" = 2 ] || fail "--threads 2 with OMP_NUM_THREADS=3: $(json threads stats)"

# A team smaller than asked: the workers it got (none: the calling thread works), same bytes.
for lim in 1 2; do
  OMP_THREAD_LIMIT=$lim "$VITESSE" tag -m model.bin --threads 3 --batch-tokens 7 --stats \
    test.txt -o out 2>stats || fail "tag OMP_THREAD_LIMIT=$lim: $(cat stats)"
  cmp -s ref out || fail "tag OMP_THREAD_LIMIT=$lim: output differs"
  [ "$(json threads stats)" = 1 ] || fail "OMP_THREAD_LIMIT=$lim: $(json threads stats) workers"
done

# OpenMP's own binding changes nothing in the output; the stats name it.
OMP_PROC_BIND=true "$VITESSE" tag -m model.bin --threads 2 --stats test.txt -o out 2>stats ||
  fail "tag OMP_PROC_BIND=true: $(cat stats)"
cmp -s ref out || fail "tag OMP_PROC_BIND=true: output differs"
# (LLVM's runtime reports OMP_PROC_BIND=true as spread, libgomp as true.)
case $(json omp_proc_bind stats) in
true | spread) ;;
*) fail "omp_proc_bind: $(json omp_proc_bind stats)" ;;
esac

# The CPU accounting: serial >= 0, worker > 0 (work was done), per-worker cpu_seconds present.
check_cpu() { # check_cpu LABEL STATS
  s=$(json serial_cpu_seconds "$2")
  w=$(json worker_cpu_seconds "$2")
  [ -n "$s" ] && [ -n "$w" ] || { fail "$1: no serial/worker_cpu_seconds in $(cat "$2")"; return; }
  awk -v s="$s" -v w="$w" 'BEGIN { exit !(s >= 0 && w > 0) }' || fail "$1: serial $s, worker $w"
  grep -q '"worker": 0, .*"cpu_seconds": ' "$2" || fail "$1: no per-worker cpu_seconds"
}
"$VITESSE" tag -m model.bin --threads 2 --stats test.txt -o out 2>stats || fail "tag --stats"
check_cpu tag stats

# A bad line found by a worker (ragged columns in sentence 500) is reported with its line, exit
# 2, no output file; a later too-long line (found by the reader) does not hide it.
awk 'NR == 2000 { print "w1 x1" } { print }' test.txt >bad.txt
line=$(awk 'NR == 2000 { print NR }' bad.txt)
printf 'w%04000d x1 NN\n\n' 1 >>bad.txt
for th in 1 3; do
  "$VITESSE" tag -m model.bin --threads $th --batch-tokens 5 --max-line-bytes 1000 bad.txt \
    -o badout 2>err
  rc=$?
  [ "$rc" -eq 2 ] || fail "bad line, threads=$th: exit $rc, want 2"
  grep -q "^vitesse: bad.txt:$line: 2 columns" err || fail "bad line, threads=$th: $(cat err)"
  [ ! -e badout ] || fail "bad line, threads=$th: output file left behind"
done

# --- decode ------------------------------------------------------------------------------------
"$VITESSE" synth -o lat --labels 30 --sentences 400 --seed 5 >/dev/null || fail synth
DATA="--emissions lat/E.npy --lengths lat/N.npy --transitions lat/A.npy --start lat/S.npy
  --end lat/F.npy --rank lat/R.npy"
# shellcheck disable=SC2086
"$VITESSE" decode $DATA --threads 1 --quiet -o dref 2>err || fail "decode reference: $(cat err)"
for th in 2 3 5; do
  # shellcheck disable=SC2086
  "$VITESSE" decode $DATA --threads $th --batch-tokens 9 --quiet -o out 2>err ||
    fail "decode threads=$th: $(cat err)"
  cmp -s dref out || fail "decode threads=$th: output differs from 1 thread"
done
# shellcheck disable=SC2086
OMP_NUM_THREADS=2 "$VITESSE" decode $DATA --stats --quiet -o out 2>stats ||
  fail "decode OMP_NUM_THREADS=2: $(cat stats)"
[ "$(json threads stats)" = 2 ] || fail "decode OMP_NUM_THREADS=2: $(json threads stats)"
cmp -s dref out || fail "decode OMP_NUM_THREADS=2: output differs"
check_cpu decode stats
# shellcheck disable=SC2086
OMP_THREAD_LIMIT=1 "$VITESSE" decode $DATA --threads 4 --quiet -o out 2>err ||
  fail "decode OMP_THREAD_LIMIT=1: $(cat err)"
cmp -s dref out || fail "decode OMP_THREAD_LIMIT=1: output differs"

[ "$fails" -eq 0 ] || exit 1
echo "omp_cli: all checks passed"
