# tests/kill_rerun.sh: sourced by the kill tests (tag_resume.sh, decode_resume.sh, train_ckpt.sh):
# a job is SIGKILLed at random fractions of an uninterrupted run's time, rerun until it ends, and
# what it wrote must be the uninterrupted run's bytes. The caller defines fail MESSAGE, times its
# uninterrupted run with `timed` and then calls kill_rerun with the job's command; it may redefine
# the hooks below (after sourcing this file) for what its job keeps besides OUT.

# now_ms: the wall clock in milliseconds.
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# timed CMD...: runs CMD; $took is its wall time in ms (the kills land within it, so a test does
# not depend on the machine's speed).
timed() {
  t0=$(now_ms)
  "$@"
  rc=$?
  took=$(($(now_ms) - t0))
  return $rc
}
# delay HALVINGS [SPAN]: a delay in seconds of 5% .. 5+SPAN% (SPAN 0.65 unless given) of the last
# timed run, halved HALVINGS times: from the $n_delay-th number of a stream seeded by the shell's
# pid (seeds in a row give numbers in a row). It is called in $(...), a subshell, so the caller
# steps $n_delay: kill_rerun does before each run's delay.
n_delay=0
delay() {
  awk -v s="$$" -v n="$n_delay" -v ms="$took" -v h="$1" -v span="${2:-0.65}" \
    'BEGIN { srand(s); for (i = 0; i <= n; i++) r = rand()
      printf "%.3f\n", ms * (0.05 + r * span) / 1000 / 2 ^ h }'
}

# The --resume jobs (tag, decode; train --checkpoint does not read it) make their place durable
# often, so that kills land between them.
VITESSE_RESUME_INTERVAL=0.01
export VITESSE_RESUME_INTERVAL

# Hooks (the defaults do nothing but kill_delay):
# kill_before: before each run, the last one too ($try is "last" then); it may set $kill_args,
#   words added to the run's command line.
kill_before() { :; }
# kill_wait PID: once the run started, before the delay (e.g. until it wrote a checkpoint).
kill_wait() { :; }
# kill_delay: prints the delay before the kill: `delay $misses` (shorter after each run that ended
#   before its kill).
kill_delay() { delay "$misses"; }
# kill_after ENDED: after each killed run (ENDED 0), or one that ended before the kill (ENDED 1,
#   OUT removed already: remove what else it wrote, to start the job over).
kill_after() { :; }
kill_args=

# kill_rerun TRIES KILLS REF OUT CMD...: runs CMD (which writes OUT, stderr to ./stderr) in the
# background up to TRIES times, each SIGKILLed after kill_wait and kill_delay, until KILLS runs
# were killed before their end; a run that ended first is started over. A progress file
# OUT.progress, where the job keeps one, must name a place. Then CMD runs to its end: it must
# succeed and OUT must be REF's bytes. Leaves $kills, $misses (runs that ended first) and the last
# run's ./stderr for the caller's own checks.
kill_rerun() {
  tries=$1
  want=$2
  ref=$3
  out=$4
  shift 4
  kills=0
  misses=0
  try=0
  while [ $try -lt "$tries" ] && [ $kills -lt "$want" ]; do
    kill_before
    # shellcheck disable=SC2086
    "$@" $kill_args 2>stderr &
    pid=$!
    kill_wait $pid
    n_delay=$((n_delay + 1))
    sleep "$(kill_delay)"
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
    try=$((try + 1))
    if [ -f "$out" ]; then # it ended before the kill: start the job over
      rm -f "$out"
      misses=$((misses + 1))
      kill_after 1
    else
      kills=$((kills + 1))
      kill_after 0
    fi
    if [ -f "$out.progress" ]; then
      grep -q '^at ' "$out.progress" || fail "a progress file without a place"
    fi
  done
  [ $kills -gt 0 ] || fail "no run was killed: the data is too small for this machine"
  try=last
  kill_before
  # shellcheck disable=SC2086
  "$@" $kill_args 2>stderr || fail "the last rerun failed: $*"
  cmp -s "$ref" "$out" || fail "the resumed output differs from an uninterrupted run's: $*"
}

# kill_once_there FILE WAITS CMD...: runs CMD in the background (stderr to ./stderr) and SIGKILLs it
# once FILE is there, polled every 10 ms at most WAITS times (e.g. a run stopped once its progress
# file or checkpoint exists).
kill_once_there() {
  file=$1
  waits=$2
  shift 2
  "$@" 2>stderr &
  pid=$!
  n=0
  while [ ! -f "$file" ] && [ $n -lt "$waits" ]; do
    sleep 0.01
    n=$((n + 1))
  done
  kill -9 $pid 2>/dev/null
  wait $pid 2>/dev/null
}

# term_in_time PID OUT: SIGTERM to the job PID (writing OUT with --resume, stderr in ./stderr) once
# some output is durable in OUT.partial (a loaded machine may start it late; 30 s at most), and
# not before 40% of the last timed run. Returns 1 when the job ended before the signal (OUT there);
# otherwise it must have exited 143 saying that OUT.partial keeps the output.
term_in_time() {
  sleep "$(awk -v ms="$took" 'BEGIN { printf "%.3f\n", ms * 0.4 / 1000 }')"
  n=0
  while [ ! -s "$2.partial" ] && kill -0 "$1" 2>/dev/null && [ $n -lt 600 ]; do
    sleep 0.05
    n=$((n + 1))
  done
  kill -TERM "$1" 2>/dev/null
  wait "$1"
  rc=$?
  [ ! -f "$2" ] || return 1
  [ $rc -eq 143 ] || fail "exit $rc after SIGTERM, want 143"
  grep -q "$2.partial keeps them" stderr || fail "the message does not say what is kept"
}

# stop_at_progress OUT CMD...: runs the --resume job CMD (writing OUT) and SIGKILLs it once
# OUT.progress is there (5 s at most), then keeps a copy of it in ./saved.progress. The case is
# skipped (exit 0, a SKIP line naming $SUITE.$CASE) when the job ended first.
stop_at_progress() {
  out=$1
  shift
  kill_once_there "$out.progress" 500 "$@"
  if [ -f "$out" ]; then
    echo "$SUITE.$CASE: SKIP: the run ended before it could be stopped" >&2
    exit 0
  fi
  [ -f "$out.progress" ] || fail "no progress file beside OUT"
  cp "$out.progress" saved.progress
}
# refused_kept OUT WHAT CMD...: the rerun CMD of the job stopped by stop_at_progress is refused as
# expect_refused says (tests/expect_bad.sh, sourced by the caller), OUT is not written and its
# progress file is unchanged.
refused_kept() {
  out=$1
  shift
  expect_refused "$@"
  shift
  [ ! -e "$out" ] || fail "OUT written: $*"
  cmp -s saved.progress "$out.progress" || fail "the progress file changed: $*"
}
