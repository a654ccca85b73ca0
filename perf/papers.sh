#!/bin/sh
# perf/papers.sh BUILD_DIR DIR [SENTENCES] [LIMIT_S]: the decoding-speed tables of
# Kaji et al. 2010 (Tables 1 and 4) and Huang et al. 2012 (Tables 4 and 5) again, one row per
# decoder the papers list, on the closest real tasks we have:
#   pos    CoNLL-2000 POS tags (45 labels in the papers; 44 here): a tagger vitesse trains on
#          train.txt (10 epochs, perf/templates/conll2000-joint.tmpl), lattices of test.txt
#   joint  CoNLL-2000 POS|chunk (319 labels): DIR/lattices/conll2000-joint
#   greek  AGLDT Greek morphology (945 labels), standing in for supertagging (2,602 labels):
#          DIR/lattices/agldt-greek
# each cut to its first SENTENCES sentences (default 500; perf/npy_head.py). Every decoder runs
# once per task, one thread, `vitesse decode --budget none --stats` (each algorithm as published,
# never handed over to Viterbi by the work budget), all in this one run, so the ratios to
# Viterbi are taken side by side; a run over LIMIT_S seconds (default 120) is stopped and shown
# as "< rate", one over 6 GB of memory (VT_PAPERS_MEM_KB) as failed. Prints markdown tables
# (perf/papers.md has the last ones and what they mean), ending with the raw rates; with
# VT_PAPERS_FROM=FILE (a previous output) it measures nothing and prints the tables again.
# DIR (no default): a folder holding data/conll2000/{train,test}.txt and the lattice sets
# lattices/conll2000-joint/ and lattices/agldt-greek/.
set -eu
B=${1:-build}
SH=${2:-}
if [ -z "$SH" ] && [ -z "${VT_PAPERS_FROM:-}" ]; then
  echo "usage: $0 BUILD_DIR DIR [SENTENCES] [LIMIT_S] (DIR: see the top of this file)" >&2
  exit 64
fi
N=${3:-500}
LIMIT=${4:-120}
MEM_KB=${VT_PAPERS_MEM_KB:-6000000} # per decoder run
P=$(cd "$(dirname "$0")" && pwd)
V=$(cd "$(dirname "$B/vitesse")" && pwd)/vitesse
W=$(mktemp -d "${TMPDIR:-/tmp}/vt_papers.XXXXXX")
trap 'rm -rf "$W"' EXIT

# ---- the lattices ----------------------------------------------------------------------------
lattices() {
  awk '{ if (NF) print $1, $2; else print "" }' "$SH/data/conll2000/train.txt" >"$W/pos.train"
  awk '{ if (NF) print $1, $2; else print "" }' "$SH/data/conll2000/test.txt" >"$W/pos.test"
  "$V" train --template "$P/templates/conll2000-joint.tmpl" --train "$W/pos.train" --epochs 10 \
  --quiet -o "$W/pos.model"
  "$V" lattice -m "$W/pos.model" -o "$W/pos.all" "$W/pos.test" 2>/dev/null
  python3 "$P/npy_head.py" "$W/pos.all" "$W/pos" "$N" >&2
  python3 "$P/npy_head.py" "$SH/lattices/conll2000-joint" "$W/joint" "$N" >&2
  python3 "$P/npy_head.py" "$SH/lattices/agldt-greek" "$W/greek" "$N" >&2
}
[ -n "${VT_PAPERS_FROM:-}" ] || lattices

# ---- one decoder on one task: "<rate>" or "< <bound>" into $W/TASK.KEY --------------------------
run() { # run TASK KEY DECODER-ARGS...
  task=$1 key=$2
  shift 2
  d=$W/$task
  status=0
  # A search that ignores SIGTERM inside a sentence is killed 5 s later; memory is
  # capped (the naive A* heuristics grow to gigabytes on the large label sets).
  (
    ulimit -v "$MEM_KB"
    exec timeout -k 5 "$LIMIT" "$V" decode --emissions "$d/E.npy" --lengths "$d/N.npy" \
      --transitions "$d/A.npy" --start "$d/S.npy" --end "$d/F.npy" --rank "$d/R.npy" \
      --threads 1 --budget none --stats "$@" -o /dev/null 2>"$W/$task.$key.json"
  ) || status=$?
  if [ $status -eq 0 ]; then
    sed -n 's/.*"sentences_per_second": \([0-9.e+-]*\).*/\1/p' "$W/$task.$key.json" >"$W/$task.$key"
  elif [ $status -eq 124 ] || [ $status -eq 137 ]; then
    echo "< $(awk -v n="$N" -v s="$LIMIT" 'BEGIN { printf "%.3g", n / s }')" >"$W/$task.$key"
  else
    echo "failed" >"$W/$task.$key" # out of memory (MEM_KB) or another failure: the .json says
    sed 's/^/  /' "$W/$task.$key.json" | head -3 >&2
  fi
  echo "$task $key: $(cat "$W/$task.$key")" >&2
}

# The decoders (KEY and arguments); A* runs under every heuristic, the best is A* (best).
DECODERS='viterbi|--algo viterbi
scalar|--algo viterbi-scalar
carpediem|--algo carpediem
sd|--algo staggered
sdc|--algo staggered-col
itastar|--algo iter-astar
beam1|--algo beam --beam 1
beam2|--algo beam --beam 2
beam4|--algo beam --beam 4
beam8|--algo beam --beam 8
astar_naive|--algo astar --heuristic naive
astar_m0|--algo astar --heuristic m0
astar_m3|--algo astar --heuristic m3
astar_m6|--algo astar --heuristic m6
astar_m9|--algo astar --heuristic m9
k5viterbi|--algo kbest-viterbi -k 5
k5beam|--algo beam --beam 5 -k 5
k5vastar|--algo viterbi-astar -k 5
k5ivastar|--algo iter-viterbi-astar -k 5
k5astar_naive|--algo astar -k 5 --heuristic naive
k5astar_m0|--algo astar -k 5 --heuristic m0
k5astar_m3|--algo astar -k 5 --heuristic m3
k5astar_m6|--algo astar -k 5 --heuristic m6
k5astar_m9|--algo astar -k 5 --heuristic m9'
measure() {
  for task in pos joint greek; do
    echo "$DECODERS" | while IFS='|' read -r key args; do
      # shellcheck disable=SC2086
      run "$task" "$key" $args
    done
  done
}

if [ -n "${VT_PAPERS_FROM:-}" ]; then # the raw rates of an earlier run: "task: key=rate ..."
  for task in pos joint greek; do
    sed -n "s/^$task: //p" "$VT_PAPERS_FROM" | tr ' ' '\n' | sed 's/=<\(.\)/=< \1/' |
      while IFS='=' read -r key rate; do
        [ -n "$key" ] && printf '%s\n' "$rate" >"$W/$task.$key"
      done
  done
  simd=$(sed -n 's/.*SIMD: \([a-z0-9]*\).*/\1/p' "$VT_PAPERS_FROM" | head -1)
  echo "\"simd\": \"$simd\"" >"$W/pos.viterbi.json"
else
  measure
fi

# ---- the tables --------------------------------------------------------------------------------
get() { cat "$W/$1.$2"; }
best_of() { # best_of TASK KEY...: the largest finite rate among the keys (A* (best))
  task=$1
  shift
  for k in "$@"; do get "$task" "$k"; done | awk '$1 != "<" && $1 != "failed" { if ($1 > m) m = $1 }
    END { if (m == "") print "< " 0; else print m }'
}
for task in pos joint greek; do
  best_of "$task" astar_naive astar_m0 astar_m3 astar_m6 astar_m9 >"$W/$task.astar"
  best_of "$task" k5astar_naive k5astar_m0 k5astar_m3 k5astar_m6 k5astar_m9 >"$W/$task.k5astar"
done

# table TITLE BASE ALT ROWS PAPER_BASES: one row per line of ROWS, "name|key|pos|joint|super" with
# the paper's rates; the ratios are to the row of the paper's Viterbi (PAPER_BASES) and to ours:
# BASE (the SIMD viterbi, or kbest-viterbi) and, when ALT is set, ALT (the plain viterbi-scalar
# loop, what the papers' Viterbi was). A pair that differs by over 2x is flagged (against ALT
# when set).
table() {
  title=$1 base=$2 alt=$3 rows=$4 pbase=$5
  echo
  echo "$title"
  echo
  if [ -n "$alt" ]; then
    hdr="ratio: paper / ours (SIMD viterbi) / ours (plain loop)"
  else
    hdr="ratio: paper / ours"
  fi
  echo "| decoder | POS 45: paper | ours | $hdr | joint 319: paper | ours | $hdr | supertag 2602 / Greek 945: paper | ours | $hdr |"
  echo "|---|---:|---:|---|---:|---:|---|---:|---:|---|"
  echo "$rows" | while IFS='|' read -r name key p1 p2 p3; do
    line="| $name"
    i=0
    for task in pos joint greek; do
      i=$((i + 1))
      p=$(echo "$p1 $p2 $p3" | cut -d' ' -f$i)
      pb=$(echo "$pbase" | cut -d' ' -f$i)
      ours=$(get "$task" "$key")
      ob=$(get "$task" "$base")
      oa=$([ -n "$alt" ] && get "$task" "$alt" || echo "")
      line="$line | $p | $ours | $(awk -v p="$p" -v pb="$pb" -v o="$ours" -v ob="$ob" -v oa="$oa" \
        -v own=$([ "$key" = "$base" ] || [ "$key" = "$alt" ] && echo 1 || echo 0) 'BEGIN {
        if (p == "-" || o ~ /failed/) { print "-"; exit }
        pr = p / pb; split(o, f, " "); lt = f[1] == "<"; v = lt ? f[2] : f[1]
        r1 = v / ob; r2 = oa != "" ? v / oa : r1; cmp = oa != "" ? r2 : r1
        flag = (!lt && !own && (pr / cmp > 2 || cmp / pr > 2)) ? " **>2x**" : ""
        printf "%.3g / %s%.3g", pr, lt ? "< " : "", r1
        if (oa != "") printf " / %s%.3g", lt ? "< " : "", r2
        printf "%s", flag }')"
    done
    echo "$line |"
  done
}

echo "# generated by perf/papers.sh $N sentences per task, limit $LIMIT s, $(date -u +%Y-%m-%d)"
echo "# $("$V" --version 2>/dev/null | head -1); CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), SIMD: $(sed -n 's/.*"simd": "\([a-z0-9]*\)".*/\1/p' "$W/pos.viterbi.json")"
table "**1-best, Kaji et al. 2010 Table 1** (sentences/s; ratio = decoder / Viterbi)" \
  viterbi scalar 'Viterbi (ours: SIMD viterbi)|viterbi|4000|77|1.1
Viterbi (ours: viterbi-scalar, the plain loop)|scalar|4000|77|1.1
Carpediem|carpediem|8600|51|0.26
SD (staggered)|sd|8800|850|121
SD+C-EXP (staggered-col)|sdc|14000|1600|300
BEAM (Table 4; ours at B = 1, calibrated B not published)|beam1|18000|2400|180
BEAM, ours at B = 2|beam2|18000|2400|180
BEAM, ours at B = 4|beam4|18000|2400|180
BEAM, ours at B = 8|beam8|18000|2400|180' '4000 77 1.1'
table "**1-best, Huang et al. 2012 Table 4**" viterbi scalar 'Viterbi (ours: SIMD viterbi)|viterbi|2779|51|0.19
Viterbi (ours: viterbi-scalar)|scalar|2779|51|0.19
iterative Viterbi (ours: staggered-col)|sdc|5833|972|213
Carpediem|carpediem|2638|14|0.15
A* (best of naive, m0, m3, m6, m9)|astar|802|131|8
iterative A*|itastar|1112|84|3
beam (width not published; ours at B = 1)|beam1|7252|1381|395
beam, ours at B = 8|beam8|7252|1381|395' '2779 51 0.19'
table "**5-best, Huang et al. 2012 Table 5** (ratio to 5-best Viterbi: ours kbest-viterbi -k 5)" \
  k5viterbi "" 'Viterbi (ours: kbest-viterbi)|k5viterbi|19|0.41|0.12
A* (best of naive, m0, m3, m6, m9)|k5astar|205|4|3
Viterbi A*|k5vastar|1266|47|0.1
iterative Viterbi A*|k5ivastar|788|200|36
beam (ours: B = 5)|k5beam|2760|461|75' '19 0.41 0.12'
echo
echo "Our decoders' rates per task (sentences/s):"
for task in pos joint greek; do
  printf '%s:' "$task"
  echo "$DECODERS" | while IFS='|' read -r key args; do
    printf ' %s=%s' "$key" "$(get "$task" "$key" | tr -d ' ')" # "< 5" as "<5"
  done
  echo
done
