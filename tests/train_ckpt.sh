#!/bin/sh
# tests/train_ckpt.sh VITESSE CASE [VITESSE_MPI MPIEXEC NPFLAG]: `vitesse train --checkpoint CK`
# on data this script writes. Cases:
#   kill_perceptron  a perceptron job (sequential, --minibatch, --shards) is SIGKILLed at random
#                    points several times, each rerun (with --threads 1 or 2, alternately)
#                    continues from CK, and the model is the bytes of an uninterrupted run;
#   kill_crf         the same for L-BFGS over item files (its --log the same lines, timings
#                    aside) and over templates, OWL-QN, l2sgd and ap;
#   lbfgs_same       with --checkpoint, L-BFGS runs lbfgs.c instead of liblbfgs: the models are
#                    the same bytes for several data sets, line searches and c1/c2 (and on the
#                    items of $VITESSE_TEST_ITEMS, a path, when it is set: a larger real set);
#   refuse           a CK of another run (other options, a changed input, another algorithm) is
#                    refused with one line naming what differs, exit 2, CK kept, no model; a
#                    damaged CK, standard input and --checkpoint-every alone are refused;
#   mpi              vitesse-mpi train --checkpoint: ranks SIGKILLed once CK is there, the job
#                    rerun on another number of ranks writes the model vitesse train writes;
#   term             SIGTERM during a run with CK: the checkpoint is written at the next epoch
#                    or iteration whatever its interval, exit 143, no model; the rerun continues
#                    from it to an uninterrupted run's bytes.
# shellcheck source-path=SCRIPTDIR
set -u
if [ $# -lt 2 ]; then
  echo "usage: $0 VITESSE CASE [VITESSE_MPI MPIEXEC NPFLAG]" >&2
  exit 64
fi
VITESSE=$1
CASE=$2
HERE=$(cd "$(dirname "$0")" && pwd)
base=$(mktemp -d "${TMPDIR:-/tmp}/vt_train_ckpt.XXXXXX") || exit 1
trap 'rm -rf "$base"' EXIT
trap 'exit 130' INT TERM
cd "$base" || exit 1
. "$HERE/kill_rerun.sh"

fail() {
  printf 'train_ckpt.%s: FAIL: %s\n' "$CASE" "$*" >&2
  [ -s stderr ] && { printf -- '--- stderr:\n' >&2; tail -5 stderr >&2; }
  exit 1
}

# corpus N SEED WORDS: N sentences of "WORD<TAB>SHAPE<TAB>LABEL" lines, 5 labels.
corpus() {
  awk -v n="$1" -v seed="$2" -v nw="$3" 'BEGIN { srand(seed); for (s = 0; s < n; s++) {
    T = 3 + int(rand() * 12); for (t = 0; t < T; t++) { w = int(rand() * nw)
      printf "w%d\t%s\t%s\n", w, (w % 7 < 3 ? "X" : "Y"), substr("ABCDE", 1 + (w + t) % 5, 1) }
    print "" } }'
}
# items N SEED WORDS: N sequences of CRFsuite items, 5 labels, weighted attributes.
items() {
  awk -v n="$1" -v seed="$2" -v nw="$3" 'BEGIN { srand(seed); for (i = 0; i < n; i++) {
    T = 1 + int(rand() * 8); for (t = 0; t < T; t++) { w = int(rand() * nw)
      printf "%s\tw=%d\tc=%d:0.5\tp=%d\n", substr("ABCDE", 1 + (w * 3 + t) % 5, 1), w, t % 2,
        int(rand() * 40) }
    print "" } }'
}
template() { printf 'U00:%%x[0,0]\nU01:%%x[-1,0]\nU02:%%x[0,1]\nU03:%%x[1,0]/%%x[0,0]\nB\n' >tmpl; }

# ck_id: the checkpoint's inode and modification time ("none" without one): a new checkpoint
# is a new file renamed over the old one.
ck_id() { if [ -f ck ]; then stat -c '%i %y' ck; else echo none; fi; }

# killed_run REF ARGS...: `vitesse train ARGS -o out.model --checkpoint ck` (not --quiet: the
# line that says a run continues is counted), each run SIGKILLed a random delay (up to about half
# the last timed run) after it wrote a new checkpoint, until 4 runs were killed before their end
# (at most 16 tries), the reruns with --threads 1 and 2 in turn; then run to its end with
# --threads 2 (tests/kill_rerun.sh): out.model must be REF's bytes, CK gone, and the reruns must
# have continued from the checkpoints.
killed_run() {
  ref=$1
  shift
  rm -f out.model ck ck.tmp
  job=$*
  resumed=0
  kill_rerun 16 4 "$ref" out.model "$VITESSE" train "$@" -o out.model --checkpoint ck
  [ "$before" = none ] || grep -q "continuing from ck" stderr || fail "the rerun ignored ck: $*"
  [ "$before" = none ] || resumed=$((resumed + 1))
  [ ! -e ck ] && [ ! -e ck.tmp ] || fail "the checkpoint is left after the model: $*"
  [ $resumed -gt 1 ] ||
    fail "fewer than 2 reruns continued from a checkpoint ($kills kills, $misses ended first): $*"
}
kill_before() {
  before=$(ck_id)
  kill_args="--threads 2" # the last run; the others 1 and 2 in turn
  [ "$try" = last ] || kill_args="--threads $((try % 2 + 1))"
}
kill_wait() { # until the run wrote a new checkpoint (or ended; 30 s at most)
  n=0
  while [ "$(ck_id)" = "$before" ] && kill -0 "$1" 2>/dev/null && [ $n -lt 3000 ]; do
    sleep 0.01
    n=$((n + 1))
  done
}
# delay 1 after a checkpoint is written: a kill lands somewhere in the epochs or iterations that
# follow it, or the run ends first.
kill_delay() { delay 1 0.85; }
kill_after() {
  [ "$1" -eq 0 ] || rm -f ck # it ended first: start over
  [ "$before" = none ] || grep -q "continuing from ck" stderr || fail "a rerun ignored ck: $job"
  [ "$before" = none ] || resumed=$((resumed + 1))
}

case $CASE in
kill_perceptron)
  template
  corpus 20000 1 4000 >train.txt
  for opts in "--epochs 8" "--epochs 6 --minibatch 8" "--epochs 6 --shards 3"; do
    # shellcheck disable=SC2086
    timed "$VITESSE" train --template tmpl --train train.txt $opts --quiet -o ref.model \
      2>stderr || fail "training failed: $opts"
    # shellcheck disable=SC2086
    killed_run ref.model --template tmpl --train train.txt $opts --checkpoint-every 1
  done
  ;;
kill_crf)
  items 30000 2 3000 >train.items
  timed "$VITESSE" train --algo lbfgs --items train.items --max-iterations 40 --log ref.log \
    --quiet -o ref.model 2>stderr || fail "lbfgs failed"
  killed_run ref.model --algo lbfgs --items train.items --max-iterations 40 --log out.log \
    --checkpoint-every 2
  strip() { sed 's/"[a-z_]*seconds": [-0-9.e+]*//g' "$1"; }
  [ "$(strip out.log)" = "$(strip ref.log)" ] || fail "the resumed --log differs"
  timed "$VITESSE" train --algo lbfgs --c1 0.2 --items train.items --max-iterations 30 --quiet \
    -o ref.model 2>stderr || fail "owl-qn failed"
  killed_run ref.model --algo lbfgs --c1 0.2 --items train.items --max-iterations 30 \
    --checkpoint-every 1
  template
  corpus 16000 3 2000 >train.txt
  timed "$VITESSE" train --algo lbfgs --template tmpl --train train.txt --max-iterations 30 \
    --quiet -o ref.model 2>stderr || fail "lbfgs over templates failed"
  killed_run ref.model --algo lbfgs --template tmpl --train train.txt --max-iterations 30 \
    --checkpoint-every 2
  timed "$VITESSE" train --algo l2sgd --items train.items --max-iterations 8 --quiet \
    -o ref.model 2>stderr || fail "l2sgd failed"
  killed_run ref.model --algo l2sgd --items train.items --max-iterations 8
  timed "$VITESSE" train --algo ap --items train.items --max-iterations 12 --quiet -o ref.model \
    2>stderr || fail "ap failed"
  killed_run ref.model --algo ap --items train.items --max-iterations 12
  ;;
lbfgs_same)
  same() { # same ITEMS OPTIONS...: the model with and without --checkpoint
    f=$1
    shift
    "$VITESSE" train --algo lbfgs --items "$f" "$@" -o a.model --quiet 2>stderr ||
      fail "liblbfgs: $*"
    "$VITESSE" train --algo lbfgs --items "$f" "$@" -o b.model --quiet --checkpoint ck \
      --checkpoint-every 1000 2>stderr || fail "lbfgs.c: $*"
    cmp -s a.model b.model || fail "lbfgs.c's model differs from liblbfgs's: $f $*"
    n_same=$((n_same + 1))
  }
  n_same=0
  for seed in 5 6 7; do
    items $((seed * 1500)) $seed $((seed * 300)) >s$seed.items
    same s$seed.items
    same s$seed.items --c1 0.3
    same s$seed.items --c1 1 --c2 0.01
    same s$seed.items --linesearch Backtracking --c2 0.1
    same s$seed.items --linesearch StrongBacktracking
    same s$seed.items --c2 0.001 --max-linesearch 5
  done
  template
  corpus 3000 8 800 >train.txt
  "$VITESSE" train --algo lbfgs --template tmpl --train train.txt -o a.model --quiet 2>stderr &&
    "$VITESSE" train --algo lbfgs --template tmpl --train train.txt -o b.model --quiet \
      --checkpoint ck 2>stderr || fail "lbfgs over templates"
  cmp -s a.model b.model || fail "lbfgs.c's template model differs from liblbfgs's"
  if [ -n "${VITESSE_TEST_ITEMS:-}" ] && [ -f "$VITESSE_TEST_ITEMS" ]; then
    same "$VITESSE_TEST_ITEMS" --threads 2
    echo "train_ckpt.lbfgs_same: also $VITESSE_TEST_ITEMS" >&2
  fi
  ;;
refuse)
  template
  corpus 20000 1 4000 >train.txt
  corpus 20000 2 4000 >other.txt
  cp -p train.txt keep.txt
  # A run stopped once its first checkpoint is there.
  kill_once_there ck 1000 "$VITESSE" train --template tmpl --train train.txt --epochs 50 \
    -o m.model --checkpoint ck --quiet
  [ -f ck ] || fail "no checkpoint after 10 s"
  cp ck saved.ck
  . "$HERE/expect_bad.sh"
  bad() { # bad WHAT ARGS...: refused in one line naming WHAT, exit 2, CK kept, no model
    what=$1
    shift
    expect_refused "$what" "$VITESSE" train "$@"
    [ ! -e m.model ] || fail "a model was written: $*"
    cmp -s saved.ck ck || fail "the checkpoint changed: $*"
  }
  run="--template tmpl --quiet -o m.model --checkpoint ck"
  # shellcheck disable=SC2086
  {
    bad "epochs=40 now, epochs=50 in the checkpoint" --train train.txt --epochs 40 $run
    bad "seed=7 now, seed=1 in the checkpoint" --train train.txt --epochs 50 --seed 7 $run
    bad "minibatch=4 now, minibatch=1 in the checkpoint" --train train.txt --epochs 50 \
      --minibatch 4 $run
    bad "algorithm=1 now, algorithm=0 in the checkpoint" --train train.txt --algo lbfgs $run
    bad "inputs --train=" --train other.txt --epochs 50 $run
    touch train.txt # the same bytes, another time: another input
    bad "inputs --train=" --train train.txt --epochs 50 $run
    cp -p keep.txt train.txt
    bad "standard input" --train - --epochs 50 $run
  }
  bad "needs --checkpoint" --template tmpl --train train.txt --checkpoint-every 2 -o m.model
  # a byte of the state changed: its hash no longer matches
  cp saved.ck ck
  size=$(wc -c <ck)
  printf '\125' | dd of=ck bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
  cmp -s ck saved.ck && printf '\252' | dd of=ck bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
  cp ck flipped.ck
  cp ck saved.ck
  # shellcheck disable=SC2086
  bad "damaged or truncated checkpoint" --train train.txt --epochs 50 $run
  head -c 300 saved.ck >ck
  cp ck saved.ck
  # shellcheck disable=SC2086
  bad "damaged or truncated checkpoint" --train train.txt --epochs 50 $run
  printf 'not a checkpoint\n' >ck
  cp ck saved.ck
  # shellcheck disable=SC2086
  bad "not a checkpoint of vitesse train" --train train.txt --epochs 50 $run
  rm -f ck saved.ck
  ;;
mpi)
  [ $# -eq 5 ] || fail "usage: $0 VITESSE mpi VITESSE_MPI MPIEXEC NPFLAG"
  VMPI=$3
  MPIEXEC=$4
  NP=$5
  SUITE=train_ckpt
  . "$HERE/mpi_env.sh"
  mpirun_kill() { # SIGKILL the ranks of the mpirun job PID (its children), then the job
    for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do kill -9 "$c" 2>/dev/null; done
    kill -9 "$1" 2>/dev/null
    wait "$1" 2>/dev/null
  }
  # mpi_resume P1 P2 ARGS...: P1 ranks killed once CK is there, P2 ranks to the end
  mpi_resume() {
    p1=$1 p2=$2
    shift 2
    rm -f out.model ck
    "$MPIEXEC" "$NP" "$p1" "$VMPI" train "$@" -o out.model --checkpoint ck --quiet \
      2>stderr </dev/null &
    pid=$!
    i=0
    while [ ! -f ck ] && [ $i -lt 3000 ]; do
      sleep 0.01
      i=$((i + 1))
    done
    mpirun_kill $pid
    [ -f ck ] || fail "no checkpoint after 30 s: $*"
    [ ! -f out.model ] || fail "the job ended before the kill: the data is too small"
    "$MPIEXEC" "$NP" "$p2" "$VMPI" train "$@" -o out.model --checkpoint ck 2>stderr \
      </dev/null || fail "the rerun on $p2 ranks failed: $*"
    grep -q "continuing from ck" stderr || fail "the rerun did not continue from ck: $*"
    cmp -s ref.model out.model || fail "$p1 then $p2 ranks: not vitesse train's model: $*"
  }
  template
  corpus 20000 1 4000 >train.txt
  "$VITESSE" train --template tmpl --train train.txt --epochs 30 --shards 4 --quiet \
    -o ref.model 2>stderr || fail "vitesse train failed"
  mpi_resume 2 3 --template tmpl --train train.txt --epochs 30 --shards 4
  items 30000 2 3000 >train.items
  "$VITESSE" train --algo lbfgs --items train.items --max-iterations 60 --quiet -o ref.model \
    2>stderr || fail "vitesse train lbfgs failed"
  mpi_resume 3 2 --algo lbfgs --items train.items --max-iterations 60 --checkpoint-every 1
  ;;
term)
  template
  corpus 20000 1 4000 >train.txt
  items 30000 2 3000 >train.items
  # (SIGTERM only: a shell starts its background jobs with SIGINT ignored, and so does vitesse)
  for opts in "--template tmpl --train train.txt --epochs 8" \
    "--template tmpl --train train.txt --epochs 6 --shards 3" \
    "--template tmpl --train train.txt --epochs 6 --minibatch 8" \
    "--algo lbfgs --items train.items --max-iterations 40" \
    "--algo lbfgs --template tmpl --train train.txt --max-iterations 25" \
    "--algo l2sgd --items train.items --max-iterations 10" \
    "--algo ap --items train.items --max-iterations 10"; do
    # shellcheck disable=SC2086
    "$VITESSE" train $opts --quiet -o ref.model 2>stderr || fail "training failed: $opts"
    rm -f ck out.model
    # shellcheck disable=SC2086
    "$VITESSE" train $opts -o out.model --checkpoint ck --checkpoint-every 1000 2>stderr &
    pid=$!
    n=0 # the second epoch or iteration is under way: past the reading
    while ! grep -Eq '^(epoch|iteration) 2[:/]' stderr && kill -0 $pid 2>/dev/null &&
      [ $n -lt 6000 ]; do
      sleep 0.01
      n=$((n + 1))
    done
    kill -TERM $pid
    wait $pid
    rc=$?
    [ $rc -eq 143 ] || fail "SIGTERM: exit $rc, not 143: $opts"
    grep -q "interrupted by SIGTERM: train: stopped after .*; the checkpoint ck holds it" stderr ||
      fail "SIGTERM: no line saying where it stopped: $opts"
    [ -f ck ] && [ ! -e out.model ] || fail "SIGTERM: no checkpoint, or a model: $opts"
    # shellcheck disable=SC2086
    "$VITESSE" train $opts -o out.model --checkpoint ck --checkpoint-every 1000 2>stderr ||
      fail "the rerun failed: $opts"
    grep -q "continuing from ck" stderr || fail "the rerun ignored ck: $opts"
    cmp -s ref.model out.model ||
      fail "the continued model differs from an uninterrupted run's: $opts"
    [ ! -e ck ] || fail "the checkpoint is left after the model: $opts"
  done
  ;;
*)
  echo "train_ckpt: unknown case $CASE" >&2
  exit 64
  ;;
esac
exit 0
