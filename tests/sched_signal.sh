#!/bin/sh
# tests/sched_signal.sh VITESSE: stopping `vitesse decode` (and `vitesse tag` inside a search).
#   SIGINT with -o OUT: exit 130, a message saying what was done, no OUT and no temp file left.
#   SIGTERM to stdout: exit 143; what was written is complete lines of the first N sentences, in
#     order, N as the message says.
#   A closed stdout (| head): exit 141 (as if killed by SIGPIPE) and nothing on stderr.
#   SIGTERM inside one long search (astar -k 20, naive heuristic, no work budget, on the lattices
#     of a 300-label model trained on random labels: about 4 s and 800 MB on the first sentence
#     of 60 tokens): the run stops within seconds (the search polls the cancel flag as it
#     charges its budget), exit 143, no OUT. With the default budget the same run ends at once:
#     every sentence falls back to kbest-viterbi (--stats budget_fallbacks) with its score list.
#   The same for `vitesse tag` with that model.
# The runs are slow on purpose (kbest-viterbi, k = 64) and are signalled once output appears,
# so no timing is assumed. Background jobs of sh ignore SIGINT (and vitesse keeps an ignored
# SIGINT ignored, as Unix tools do): `env --default-signal=INT` restores it for the test.
set -u
VITESSE=$1
base=$(mktemp -d "${TMPDIR:-/tmp}/vt_signal.XXXXXX") || exit 1
trap 'rm -rf "$base"' EXIT
fails=0
fail() {
  printf 'sched_signal: FAIL: %s\n' "$*" >&2
  fails=$((fails + 1))
}

"$VITESSE" synth -o "$base" --labels 45 --sentences 3000 --seed 5 >/dev/null || exit 1
DATA="--emissions $base/E.npy --lengths $base/N.npy --transitions $base/A.npy --start $base/S.npy
  --end $base/F.npy"
SLOW="--algo kbest-viterbi -k 64 --threads 2 --batch-tokens 16"
mkdir "$base/w"

# wait_for FILE-PATTERN: waits until a non-empty file matching it exists (the run has started
# writing); fails if the run ended first.
wait_for() {
  while :; do
    for f in $1; do
      [ -s "$f" ] && return 0
    done
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.05
  done
}

# 1. SIGINT, output to a file.
# shellcheck disable=SC2086
env --default-signal=INT "$VITESSE" decode $DATA $SLOW -o "$base/w/out" 2>"$base/err1" &
pid=$!
if wait_for "$base/w/.out.tmp.*"; then
  kill -INT "$pid"
  wait "$pid"
  st=$?
  [ $st -eq 130 ] || fail "SIGINT: exit status $st, expected 130"
  grep -q 'interrupted by SIGINT: [0-9]* of 3000 sentences were decoded in order;.*not written' \
    "$base/err1" || fail "SIGINT: message: $(cat "$base/err1")"
  [ -z "$(ls -A "$base/w")" ] || fail "SIGINT: files left behind: $(ls -A "$base/w")"
else
  wait "$pid"
  fail "SIGINT: the run ended before writing anything (status $?): $(cat "$base/err1")"
fi

# 2. SIGTERM, output to stdout (a file here).
# shellcheck disable=SC2086
"$VITESSE" decode $DATA $SLOW >"$base/out2" 2>"$base/err2" &
pid=$!
if wait_for "$base/out2"; then
  kill -TERM "$pid"
  wait "$pid"
  st=$?
  [ $st -eq 143 ] || fail "SIGTERM: exit status $st, expected 143"
  n=$(sed -n 's/.*by SIGTERM: the first \([0-9]*\) of 3000 sentences were written.*/\1/p' \
    "$base/err2")
  if [ -z "$n" ]; then
    fail "SIGTERM: message: $(cat "$base/err2")"
  else
    [ "$(tail -c 1 "$base/out2" | od -An -c | tr -d ' ')" = '\n' ] ||
      fail "SIGTERM: the output does not end with a complete line"
    # Sentences 0 .. n-1, each with its 64 paths, in order.
    awk -F '\t' -v n="$n" '
      { if ($1 != int((NR - 1) / 64) || $2 != (NR - 1) % 64) { bad = 1; exit } }
      END { if (bad || NR != n * 64) { print "lines " NR ", expected " n * 64; exit 1 } }' \
      "$base/out2" || fail "SIGTERM: the output is not the first $n sentences in order"
  fi
else
  wait "$pid"
  fail "SIGTERM: the run ended before writing anything: $(cat "$base/err2")"
fi

# 3. A closed stdout.
# shellcheck disable=SC2086
{
  "$VITESSE" decode $DATA --algo viterbi --threads 2 2>"$base/err3"
  echo $? >"$base/st3"
} | head -c 1000 >/dev/null
st=$(cat "$base/st3")
[ "$st" -eq 141 ] || fail "closed stdout: exit status $st, expected 141"
[ ! -s "$base/err3" ] || fail "closed stdout: stderr not empty: $(cat "$base/err3")"

# term_in_search WHAT PID DIR ERR MESSAGE: PID is a run busy in one long search, writing into DIR;
# SIGTERM stops it within 5 s, exit 143, MESSAGE (a pattern) in ERR, nothing left in DIR.
term_in_search() {
  sleep 1
  if kill -0 "$2" 2>/dev/null; then
    t0=$(date +%s)
    kill -TERM "$2"
    wait "$2"
    st=$?
    t1=$(date +%s)
    [ $st -eq 143 ] || fail "$1: exit status $st, expected 143"
    [ $((t1 - t0)) -le 5 ] || fail "$1: it took $((t1 - t0)) s to stop"
    grep -q "$5" "$4" || fail "$1: message: $(cat "$4")"
    [ -z "$(ls -A "$3")" ] || fail "$1: files left: $(ls -A "$3")"
  else
    wait "$2"
    fail "$1: the unbudgeted search ended within a second (status $?)"
  fi
}

# 4. SIGTERM inside one long search: a 300-label model trained on random labels, and its
# lattices on three sentences of 60 random words.
awk 'BEGIN { srand(7); for (s = 0; s < 300; s++) { n = 10 + int(rand() * 30)
  for (i = 0; i < n; i++) print "w" int(rand() * 400), "L" int(rand() * 300); print "" } }' \
  >"$base/rand.txt"
printf 'U00:%%x[0,0]\nU01:%%x[-1,0]\nB\n' >"$base/t.tmpl"
"$VITESSE" train --template "$base/t.tmpl" --train "$base/rand.txt" --epochs 2 --quiet \
  -o "$base/rand.model" || exit 1
awk 'BEGIN { srand(9); for (s = 0; s < 3; s++) { for (i = 0; i < 60; i++) print "w" int(rand() * 400)
  print "" } }' >"$base/rand_test.txt"
"$VITESSE" lattice -m "$base/rand.model" -o "$base/long" "$base/rand_test.txt" 2>/dev/null || exit 1
LONG="--emissions $base/long/E.npy --lengths $base/long/N.npy --transitions $base/long/A.npy
  --start $base/long/S.npy --end $base/long/F.npy --algo astar -k 20 --heuristic naive --threads 1"
mkdir "$base/w4"
# shellcheck disable=SC2086
"$VITESSE" decode $LONG --budget none -o "$base/w4/out" 2>"$base/err4" &
term_in_search "SIGTERM in a search" $! "$base/w4" "$base/err4" \
  'interrupted by SIGTERM: 0 of 3 sentences'
# shellcheck disable=SC2086
"$VITESSE" decode $LONG --stats -o "$base/out5" 2>"$base/err5" ||
  fail "default budget: $(cat "$base/err5")"
grep -q '"budget_fallbacks": 3,' "$base/err5" ||
  fail "default budget: expected 3 fallbacks: $(cat "$base/err5")"
# shellcheck disable=SC2086
"$VITESSE" decode $LONG --algo kbest-viterbi -o "$base/out6" 2>"$base/err6" ||
  fail "kbest-viterbi: $(cat "$base/err6")"
[ "$(cut -f 1-3 "$base/out5")" = "$(cut -f 1-3 "$base/out6")" ] ||
  fail "default budget: the score lists differ from kbest-viterbi's"

# 5. SIGTERM inside one long search of `vitesse tag`.
mkdir "$base/w7"
"$VITESSE" tag -m "$base/rand.model" --algo astar --heuristic naive -k 20 --budget none \
  --threads 1 "$base/rand_test.txt" -o "$base/w7/out" 2>"$base/err7" &
term_in_search "tag, SIGTERM in a search" $! "$base/w7" "$base/err7" 'interrupted by SIGTERM'

[ $fails -eq 0 ] || exit 1
echo "sched_signal: all checks passed"
