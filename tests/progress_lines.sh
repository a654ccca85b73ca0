#!/bin/sh
# tests/progress_lines.sh VITESSE CASE: the --progress lines a job scheduler's log reads, on data
# this script writes.
# Cases:
#   tag     `vitesse tag --progress`: lines of the documented format on stderr (every
#           VITESSE_PROGRESS_INTERVAL seconds, and at the end), counts that never go back, a
#           last line with state=end whose sentences are the corpus's; a resumed run counts the
#           sentences before its start; none without the flag, and stdout the same bytes;
#   decode  the same for `vitesse decode --progress`, the total known from the start, the last
#           line at 100%;
#   train   `vitesse train --progress`: one line an epoch (perceptron: epoch, epochs, errors,
#           sentences, seconds) or an iteration (CRF: iteration, loss, seconds), numbered 1..N,
#           with --quiet too; none without the flag.
set -u
SUITE=progress_lines
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR
. "$HERE/case_env.sh"

# corpus N SEED: N sentences of "WORD<TAB>LABEL" lines, 3 labels.
corpus() {
  awk -v n="$1" -v seed="$2" 'BEGIN { srand(seed); for (s = 0; s < n; s++) {
    T = 2 + int(rand() * 10); for (t = 0; t < T; t++) { w = int(rand() * 300)
      printf "w%d\t%s\n", w, substr("ABC", 1 + (w + t) % 3, 1) }
    print "" } }'
}

# run_lines TOTAL: checks the engine's lines in stderr: each of the documented format, the
# sentences never going back, the last one "state=end" with sentences=total=TOTAL and eta=0;
# prints how many there are and the run's seconds (the last line's elapsed).
run_lines() {
  grep '^vitesse progress:' stderr >lines
  [ -s lines ] || fail "no progress line"
  awk -v want="$1" '
    !/^vitesse progress: sentences=[0-9]+ total=([0-9]+|-) percent=([0-9]+\.[0-9]|-) rate=[0-9]+\.[0-9] eta=([0-9]+|-) elapsed=[0-9]+\.[0-9] state=(running|end)$/ {
      print "bad line: " $0; bad = 1; exit 1 }
    { split($3, a, "="); if (a[2] + 0 < last) { print "went back: " $0; bad = 1; exit 1 }
      last = a[2] + 0; final = $0 }
    END { if (bad) exit 1
      if (final !~ / state=end$/) { print "the last line is not state=end: " final; exit 1 }
      if (final !~ ("sentences=" want " total=" want " ")) { print "the last line does not reach " want ": " final; exit 1 }
      if (final !~ / eta=0 /) { print "the last line has an ETA: " final; exit 1 }
      split($8, e, "="); print NR, e[2] }' lines >verdict || fail "$(cat verdict)"
  cat verdict
}

case $CASE in
tag)
  corpus 1000 1 >train.txt
  printf 'U00:%%x[0,0]\nU01:%%x[-1,0]\nB\n' >tmpl
  "$VITESSE" train --template tmpl --train train.txt --epochs 2 -o m.bin --quiet 2>stderr ||
    fail "training failed"
  corpus 100000 2 >a.txt
  "$VITESSE" tag -m m.bin a.txt -v 2 -o plain.out 2>stderr || fail "tag failed"
  ! grep -q 'progress' stderr || fail "a progress line without --progress"
  # Interval 0: a line at every report of the engine (4 a second), so a run of 0.6 s or more
  # (-v 2 on one thread: about 1 s here) has more than the last.
  VITESSE_PROGRESS_INTERVAL=0 "$VITESSE" tag -m m.bin a.txt -v 2 -o p.out --progress \
    --threads 1 2>stderr || fail "tag --progress failed"
  cmp -s plain.out p.out || fail "--progress changed the output"
  # shellcheck disable=SC2046
  set -- $(run_lines 100000)
  awk -v n="$1" -v s="$2" 'BEGIN { exit !(n >= 2 || s < 0.6) }' ||
    fail "interval 0 gave $1 lines in $2 s"
  # The default interval (10 s): a short run has its last line only.
  "$VITESSE" tag -m m.bin a.txt -o q.out --progress 2>stderr || fail "tag --progress failed"
  # shellcheck disable=SC2046
  set -- $(run_lines 100000)
  awk -v n="$1" -v s="$2" 'BEGIN { exit !(n == 1 || s >= 10) }' ||
    fail "$1 lines in a run shorter than the interval"
  # A resumed run counts from the start: the sentences before its place are done.
  VITESSE_RESUME_INTERVAL=0.01 "$VITESSE" tag -m m.bin a.txt -o r.out --resume --quiet \
    --threads 1 --batch-tokens 100 2>stderr &
  pid=$!
  i=0
  while ! grep -q '^at 0 [1-9]' r.out.progress 2>/dev/null && [ $i -lt 500 ]; do
    sleep 0.01
    i=$((i + 1))
  done
  kill -9 $pid 2>/dev/null
  wait $pid 2>/dev/null
  "$VITESSE" tag -m m.bin a.txt -o r.out --resume --progress 2>stderr || fail "resume failed"
  run_lines 100000 >/dev/null
  cmp -s q.out r.out || fail "the resumed output differs"
  ;;
decode)
  "$VITESSE" synth -o l --labels 32 --sentences 10000 --mean-length 15 --seed 3 2>stderr ||
    fail "synth failed"
  set -- --emissions l/E.npy --lengths l/N.npy --transitions l/A.npy --logz
  "$VITESSE" decode "$@" -o plain.out 2>stderr || fail "decode failed"
  ! grep -q 'progress' stderr || fail "a progress line without --progress"
  # --logz on one thread: about 1 s here, several reports of the engine.
  VITESSE_PROGRESS_INTERVAL=0 "$VITESSE" decode "$@" -o p.out --progress --threads 1 2>stderr ||
    fail "decode --progress failed"
  cmp -s plain.out p.out || fail "--progress changed the output"
  # shellcheck disable=SC2046
  set -- $(run_lines 10000)
  awk -v n="$1" -v s="$2" 'BEGIN { exit !(n >= 2 || s < 0.6) }' ||
    fail "interval 0 gave $1 lines in $2 s"
  grep -q 'percent=100.0 ' lines || fail "the last line is not at 100%"
  grep -q 'total=10000 ' lines || fail "the total is not known"
  ;;
train)
  corpus 300 1 >train.txt
  printf 'U00:%%x[0,0]\nU01:%%x[-1,0]\nB\n' >tmpl
  "$VITESSE" train --template tmpl --train train.txt --epochs 3 -o m.bin 2>stderr ||
    fail "train failed"
  ! grep -q 'progress' stderr || fail "a progress line without --progress"
  cp stderr plain.err
  "$VITESSE" train --template tmpl --train train.txt --epochs 3 -o m2.bin --progress 2>stderr ||
    fail "train --progress failed"
  cmp -s m.bin m2.bin || fail "--progress changed the model"
  # The other lines are the same but for times and the model's name.
  grep -v '^vitesse progress:' stderr | sed 's/[0-9.]* s\b/S s/g; s/model m2.bin/model M/' >rest
  sed 's/[0-9.]* s\b/S s/g; s/model m.bin/model M/' plain.err | cmp -s - rest ||
    fail "--progress changed the other lines"
  for q in "" --quiet; do
    "$VITESSE" train --template tmpl --train train.txt --epochs 3 -o m3.bin --progress $q \
      2>stderr || fail "train --progress $q failed"
    grep '^vitesse progress:' stderr >lines
    awk '!/^vitesse progress: epoch=[0-9]+ epochs=3 errors=[0-9]+ sentences=300 seconds=[0-9]+\.[0-9][0-9][0-9]$/ {
           print "bad line: " $0; exit 1 }
         { split($3, a, "="); if (a[2] != NR) { print "epoch " a[2] " on line " NR; exit 1 } }
         END { if (NR != 3) { print NR " lines for 3 epochs"; exit 1 } }' lines >verdict ||
      fail "$(cat verdict)"
  done
  "$VITESSE" train --template tmpl --train train.txt --algo lbfgs --max-iterations 4 -o c.bin \
    --progress --quiet 2>stderr || fail "CRF train --progress failed"
  grep -v '^vitesse progress:' stderr >rest
  [ ! -s rest ] || fail "--quiet --progress printed other lines: $(cat rest)"
  awk '!/^vitesse progress: iteration=[0-9]+ loss=-?[0-9]+\.[0-9][0-9][0-9][0-9][0-9][0-9] seconds=[0-9]+\.[0-9][0-9][0-9]$/ {
         print "bad line: " $0; exit 1 }
       { split($3, a, "="); if (a[2] != NR) { print "iteration " a[2] " on line " NR; exit 1 } }
       END { if (NR < 2 || NR > 4) { print NR " lines for at most 4 iterations"; exit 1 } }' \
    stderr >verdict || fail "$(cat verdict)"
  ;;
*)
  echo "unknown case $CASE" >&2
  exit 64
  ;;
esac
exit 0
