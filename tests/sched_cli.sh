#!/bin/sh
# tests/sched_cli.sh VITESSE: `vitesse decode` on the engine gives byte-identical output for any
# --threads (1, 2, 3), --batch-tokens (1, 7, default), --bind, SIMD level this CPU runs (viterbi;
# the others at the best level), and a 4-node synthetic plan (4 queues, stealing); a write
# error on the workers' ordered commit (-o /dev/full: one line, exit status 1); and
# `vitesse topo` prints the planned placement (for one worker too, which runs plan without it).
set -u
VITESSE=$1
base=$(mktemp -d "${TMPDIR:-/tmp}/vt_schedcli.XXXXXX") || exit 1
trap 'rm -rf "$base"' EXIT
fails=0
fail() {
  printf 'sched_cli: FAIL: %s\n' "$*" >&2
  fails=$((fails + 1))
}

if ! "$VITESSE" synth -o "$base" --labels 45 --sentences 300 --seed 3 >/dev/null; then
  fail synth
  exit 1
fi
DATA="--emissions $base/E.npy --lengths $base/N.npy --transitions $base/A.npy --start $base/S.npy
  --end $base/F.npy --rank $base/R.npy"

# check_same LABEL ARGS...: decode with ARGS into $base/out and compare with $base/ref.
check_same() {
  label=$1
  shift
  # shellcheck disable=SC2086
  if ! "$VITESSE" decode $DATA "$@" -o "$base/out" 2>"$base/err"; then
    fail "$label: exit status $?: $(cat "$base/err")"
    return
  fi
  cmp -s "$base/ref" "$base/out" || fail "$label: output differs from --threads 1"
}

simds=scalar
for level in avx2 avx512; do
  # shellcheck disable=SC2086
  if VITESSE_SIMD=$level "$VITESSE" decode $DATA --algo viterbi --threads 1 2>&1 >/dev/null |
    grep -q 'not supported'; then :; else simds="$simds $level"; fi
done

for algo in "viterbi" "kbest-viterbi -k 3" "beam --beam 4 -k 2" "staggered" \
  "iter-viterbi-astar -k 3"; do
  # shellcheck disable=SC2086
  if ! "$VITESSE" decode $DATA --algo $algo --threads 1 --quiet >"$base/ref" 2>"$base/err"; then
    grep -q 'not implemented' "$base/err" && continue
    fail "$algo: reference run failed: $(cat "$base/err")"
    continue
  fi
  n=$(cut -f1 "$base/ref" | sort -un | wc -l)
  [ "$n" -eq 300 ] || fail "$algo: $n sentences in the output, expected 300"
  # Every SIMD level for viterbi (the kernels); the level this CPU picks for the others.
  levels=$simds
  [ "$algo" = viterbi ] || levels=$(echo "$simds" | awk '{ print $NF }')
  for simd in $levels; do
    VITESSE_SIMD=$simd
    export VITESSE_SIMD
    for threads in 1 2 3; do
      for bt in 1 7 4096; do
        # shellcheck disable=SC2086
        check_same "$algo simd=$simd threads=$threads batch-tokens=$bt" \
          --algo $algo --threads $threads --batch-tokens $bt
      done
    done
    unset VITESSE_SIMD
  done
  # shellcheck disable=SC2086
  {
    check_same "$algo --bind none" --algo $algo --bind none --threads 3
    check_same "$algo --bind numa" --algo $algo --bind numa --threads 2
    check_same "$algo 4 nodes" --algo $algo --topology "numa:4 core:1" --threads 4 \
      --batch-tokens 5
    check_same "$algo pack:2 numa:2" --algo $algo --topology "pack:2 numa:2 core:8 pu:2" \
      --threads 6 --batch-tokens 40
  }
done

# Stealing and per-node queues show in --stats on a 4-node plan.
# shellcheck disable=SC2086
"$VITESSE" decode $DATA --algo viterbi --topology "numa:4 core:1" --threads 4 --batch-tokens 3 \
  --stats >/dev/null 2>"$base/stats" || fail "stats run"
grep -q '"queues": 4' "$base/stats" || fail "4 queues expected in --stats: $(cat "$base/stats")"

# The workers write (the ordered commit): --stats says so, and what they write is counted as
# theirs (write_cpu_seconds is part of worker_cpu_seconds).
grep -q '"write_on_workers": true' "$base/stats" ||
  fail "write_on_workers expected in --stats: $(cat "$base/stats")"

# A write error on a worker's write: one line and exit status 1, as any write error of the CLI
# (tests/rough.sh), whatever the thread count.
if [ -w /dev/full ]; then
  for threads in 1 3; do
    # shellcheck disable=SC2086
    "$VITESSE" decode $DATA --algo viterbi --threads $threads --batch-tokens 50 --quiet \
      -o /dev/full 2>"$base/err"
    rc=$?
    [ "$rc" -eq 1 ] || fail "decode -o /dev/full, $threads threads: exit status $rc, want 1"
    [ "$(wc -l <"$base/err")" -eq 1 ] && grep -q '^vitesse: .*No space left on device' "$base/err" ||
      fail "decode -o /dev/full, $threads threads: $(cat "$base/err")"
  done
fi

# vitesse topo: the plan of a synthetic machine.
"$VITESSE" topo --topology "pack:2 numa:2 core:8 pu:2" --threads 5 >"$base/topo" ||
  fail "topo exit $?"
grep -q '^plan: 5 worker(s), bind core, 4 queue(s), 4 model replica(s)' "$base/topo" ||
  fail "topo plan line: $(cat "$base/topo")"
# worker 4 goes back to NUMA node 0, its second core (core 1, PU 2).
grep -Eq '^ +4 +2 +2 +1 +0 +0 +0$' "$base/topo" || fail "topo worker 4 line: $(cat "$base/topo")"
grep -q '^queue/replica 0: NUMA node 0 (os 0), 2 worker(s): 0 4$' "$base/topo" ||
  fail "topo queue 0 line"
# One worker is planned without the machine (its runs on plain files need none), but topo shows
# the plan a run that gives it a thread of its own makes: this machine's, bound to a core.
"$VITESSE" topo --threads 1 >"$base/topo1" || fail "topo --threads 1 exit $?"
grep -q '^topology: this machine$' "$base/topo1" &&
  grep -q '^plan: 1 worker(s), bind core, 1 queue(s)' "$base/topo1" ||
  fail "topo --threads 1: $(cat "$base/topo1")"
"$VITESSE" topo --topology "not a topology" >/dev/null 2>&1
[ $? -eq 2 ] || fail "topo with a bad topology must exit 2"

[ $fails -eq 0 ] || exit 1
echo "sched_cli: all checks passed (SIMD levels: $simds)"
