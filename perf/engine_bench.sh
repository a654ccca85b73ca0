#!/bin/sh
# perf/engine_bench.sh BUILD_DIR [WORK_DIR]: the engine's figures for perf/README.md (## Engine).
#   1. Thread scaling of `vitesse decode` on the real CoNLL-2000 joint lattices repeated 20 times
#      (20,000 sentences, 461,880 tokens, 319 labels): 1 and 2 threads side by side in one run,
#      round after round, keeping the rounds during which no other process used the machine
#      (this 2-CPU VM is shared); engine wall time (--stats wall_seconds: reading, decoding and
#      writing, after loading) and process wall time, medians.
#   1b. The same for `vitesse tag` on CoNLL-2000 joint POS|chunk (a 5-epoch perceptron trained
#      here on train.txt with perf/templates/conll2000-joint.tmpl; the test set repeated 20 times:
#      40,240 sentences, 947,540 tokens).
#   2. Memory of a small and a 100x larger synthetic lattice set (vitesse synth, 45 labels): the
#      largest RssAnon (heap, arenas, stacks; sampled from /proc every 20 ms), and from --stats
#      VmRSS and RssAnon when decoding ends and VmHWM (the whole run's peak, loading included).
#   3. The `vitesse topo` plans of two synthetic machines.
# Needs about 2.5 GB in WORK_DIR (default: a temporary directory, removed at the end).
# Environment, no defaults: LAT (for 1: the CoNLL-2000 joint lattice set, a folder holding
# E.npy, N.npy, A.npy, S.npy, F.npy and R.npy), DATA (for 1b: a folder holding CoNLL-2000's
# train.txt and test.txt).
set -eu
BUILD=$1
V=$BUILD/vitesse
ROUNDS=${ROUNDS:-5}

# ONLY="scaling tag mem topo" (default: all) picks sections.
want() { case " ${ONLY:-scaling tag mem topo} " in *" $1 "*) return 0 ;; esac; return 1; }
if want scaling && [ -z "${LAT:-}" ]; then
  echo "$0: set LAT to the CoNLL-2000 joint lattice set (E.npy, N.npy, ... R.npy)" >&2
  exit 64
fi
if want tag && [ -z "${DATA:-}" ]; then
  echo "$0: set DATA to a folder holding CoNLL-2000's train.txt and test.txt" >&2
  exit 64
fi
if [ $# -ge 2 ]; then W=$2; mkdir -p "$W"; else W=$(mktemp -d); trap 'rm -rf "$W"' EXIT; fi

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
stat_of() { grep -o "\"$1\": [0-9.-]*" "$2" | head -1 | cut -d' ' -f2; }
# CPU seconds every CPU of the machine has been busy (user, nice, system, irq, softirq, steal).
sys_busy() { awk '/^cpu / { printf "%.2f\n", ($2 + $3 + $4 + $7 + $8 + $9) / 100 }' /proc/stat; }

# timed_run THREADS CMD...: runs CMD --threads THREADS --stats --quiet (stdout to $W/out.THREADS,
# stderr to $W/stats) and prints "ENGINE_WALL PROCESS_WALL OTHERS": OTHERS is the CPU time that
# other processes took meanwhile, as a fraction of the wall time.
timed_run() {
  t=$1
  shift
  b0=$(sys_busy)
  /usr/bin/time -f "%e %U %S" -o "$W/time" "$@" --threads "$t" --stats --quiet >"$W/out.$t" \
    2>"$W/stats"
  b1=$(sys_busy)
  awk -v e="$(stat_of wall_seconds "$W/stats")" -v b0="$b0" -v b1="$b1" \
    '{ o = (b1 - b0 - $2 - $3) / $1; printf "%s %s %.3f\n", e, $1, o < 0 ? 0 : o }' "$W/time"
}

# wait_idle: waits (at most IDLE_WAIT seconds, default 900) until the machine has been idle for
# 2 s (less than 5% of a CPU busy), so that rounds are not wasted while others work.
wait_idle() {
  waited=0
  while [ $waited -lt "${IDLE_WAIT:-900}" ]; do
    b0=$(sys_busy)
    sleep 2
    b1=$(sys_busy)
    awk -v b0="$b0" -v b1="$b1" 'BEGIN { exit !((b1 - b0) / 2 < 0.05) }' && return 0
    waited=$((waited + 2))
  done
}

# scale NAME CMD...: 1 and 2 threads side by side, round after round, until ROUNDS rounds (default
# 5) ran with the machine otherwise idle (other processes took < 3% of a CPU during both runs of
# the round; rounds where they did not are dropped and counted, at most 4 x ROUNDS tried). Prints
# the median engine and process wall times of the clean rounds and their ratios.
scale() {
  name=$1
  shift
  : >"$W/clean"
  tried=0
  while [ "$(wc -l <"$W/clean")" -lt "$ROUNDS" ] && [ $tried -lt $((4 * ROUNDS)) ]; do
    wait_idle
    r1=$(timed_run 1 "$@")
    r2=$(timed_run 2 "$@")
    cmp -s "$W/out.1" "$W/out.2" || { echo "$name: outputs of 1 and 2 threads differ"; exit 1; }
    echo "$r1 $r2" | awk '$3 < 0.03 && $6 < 0.03' >>"$W/clean"
    tried=$((tried + 1))
  done
  n=$(wc -l <"$W/clean")
  if [ "$n" -eq 0 ]; then
    echo "$name: no round ran on an idle machine (tried $tried)"
    return
  fi
  # Each round runs 1 and 2 threads back to back, so its own ratio cancels the slow drifts of
  # this shared machine's speed; the median of those ratios is the figure to quote.
  awk -v a="$name" -v n="$n" -v tried="$tried" \
    -v e1="$(cut -d' ' -f1 "$W/clean" | median)" -v e2="$(cut -d' ' -f4 "$W/clean" | median)" \
    -v p1="$(cut -d' ' -f2 "$W/clean" | median)" -v p2="$(cut -d' ' -f5 "$W/clean" | median)" \
    -v re="$(awk '{ print $1 / $4 }' "$W/clean" | median)" \
    -v rp="$(awk '{ print $2 / $5 }' "$W/clean" | median)" \
    'BEGIN { printf "%-22s engine 1 thread %.3f s, 2 threads %.3f s: %.2fx, per round %.2fx | " \
      "process %.2f s, %.2f s: %.2fx, per round %.2fx  (medians of %d clean rounds, %d tried)\n",
      a, e1, e2, e1 / e2, re, p1, p2, p1 / p2, rp, n, tried }'
  awk '{ printf " %.2f", $1 / $4 }' "$W/clean" | sed 's/^/    engine speed-up of each round:/'
  echo
  tr '{' '\n' <"$W/stats" | awk -F', ' '/"worker":/ {
    for (i = 1; i <= NF; i++) { split($i, kv, ": "); gsub(/[" }\]]/, "", kv[1]); v[kv[1]] = kv[2] }
    printf "    2 threads, worker %s: %s sentences, %s steals, busy %s s, arena high water %s B\n",
      v["worker"], v["sentences"], v["steals"], v["busy_seconds"], v["arena_high_water"] }'
}

echo "== machine: $(nproc) CPUs, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)"
if want scaling; then
echo "== 1. thread scaling, CoNLL-2000 joint x20"
mkdir -p "$W/conll20"
[ -s "$W/conll20/E.npy" ] || "$BUILD/perf/lattice_repeat" "$LAT" 20 "$W/conll20"
D="--emissions $W/conll20/E.npy --lengths $W/conll20/N.npy --transitions $W/conll20/A.npy
   --start $W/conll20/S.npy --end $W/conll20/F.npy --rank $W/conll20/R.npy"
for algo in "viterbi" "staggered-col" "beam --beam 4"; do
  # shellcheck disable=SC2086
  scale "decode $algo" "$V" decode $D --algo $algo
done

fi

if want tag; then
echo "== 1b. thread scaling of vitesse tag, CoNLL-2000 joint POS|chunk (319 labels), test set x20"
mkdir -p "$W/tag"
if [ ! -s "$W/tag/joint.model" ]; then
  awk '{ if (NF) print $1, $2 "|" $3; else print "" }' "$DATA/train.txt" >"$W/tag/train.txt"
  "$V" train --template "$(dirname "$0")/templates/conll2000-joint.tmpl" --quiet \
    --train "$W/tag/train.txt" --epochs 5 -o "$W/tag/joint.model"
fi
if [ ! -s "$W/tag/test20.txt" ]; then
  awk '{ if (NF) print $1, $2 "|" $3; else print "" }' "$DATA/test.txt" >"$W/tag/test.txt"
  for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do cat "$W/tag/test.txt"; done \
    >"$W/tag/test20.txt"
fi
for algo in staggered-col viterbi; do
  scale "tag $algo" "$V" tag -m "$W/tag/joint.model" --algo $algo "$W/tag/test20.txt"
done
fi

if want mem; then
echo "== 2. memory: small vs 100x larger synthetic set (45 labels, --threads 2)"
for n in 2000 200000; do
  mkdir -p "$W/syn$n"
  [ -s "$W/syn$n/E.npy" ] || "$V" synth -o "$W/syn$n" --labels 45 --sentences $n --seed 1 >/dev/null
  S="$W/syn$n"
  "$V" decode --emissions "$S/E.npy" --lengths "$S/N.npy" --transitions "$S/A.npy" \
    --start "$S/S.npy" --end "$S/F.npy" --rank "$S/R.npy" --algo viterbi --threads 2 --quiet \
    --stats >/dev/null 2>"$W/stats.$n" &
  pid=$!
  anon=0
  while kill -0 $pid 2>/dev/null; do
    a=$(sed -n 's/^RssAnon:[[:space:]]*\([0-9]*\).*/\1/p' /proc/$pid/status 2>/dev/null || :)
    [ "${a:-0}" -gt $anon ] && anon=$a
    sleep 0.02
  done
  wait $pid
  esize=$(du -k "$S/E.npy" | cut -f1)
  echo "  $n sentences (E.npy $esize kB): peak RssAnon $anon kB (sampled);" \
    "at the end of decoding VmRSS $(stat_of vm_rss_kb "$W/stats.$n") kB," \
    "RssAnon $(stat_of rss_anon_kb "$W/stats.$n") kB;" \
    "VmHWM $(stat_of vm_hwm_kb "$W/stats.$n") kB; engine $(stat_of wall_seconds "$W/stats.$n") s," \
    "max in flight $(stat_of max_in_flight "$W/stats.$n")"
done

echo "== 2b. memory of vitesse tag: CoNLL-2000 joint test set x1 vs x100 (--threads 2)"
if [ -s "$W/tag/joint.model" ]; then
  [ -s "$W/tag/test100.txt" ] || for i in $(seq 100); do cat "$W/tag/test.txt"; done \
    >"$W/tag/test100.txt"
  for f in test.txt test100.txt; do
    "$V" tag -m "$W/tag/joint.model" --threads 2 --stats --quiet "$W/tag/$f" >/dev/null \
      2>"$W/stats.$f"
    echo "  $f ($(du -k "$W/tag/$f" | cut -f1) kB): VmHWM $(stat_of vm_hwm_kb "$W/stats.$f") kB," \
      "RssAnon at the end $(stat_of rss_anon_kb "$W/stats.$f") kB," \
      "$(stat_of sentences "$W/stats.$f") sentences in $(stat_of wall_seconds "$W/stats.$f") s"
  done
else
  echo "  (run the tag section first: it trains the model)"
fi
fi

if want topo; then
echo "== 3. plans"
for t in "pack:2 numa:2 core:8 pu:2" "numa:4 core:4"; do
  "$V" topo --topology "$t"
  echo
done
fi
