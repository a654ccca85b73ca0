#!/bin/sh
# perf/crfsuite_bench.sh CRFSUITE VITESSE MODEL ITEMS [REPEAT]: `crfsuite tag` (CRFsuite 0.12,
# built outside the repository) beside `vitesse tag` on a crf1d MODEL and an item file, the table
# of perf/README.md ("CRFsuite models"). ITEMS is repeated REPEAT times (default 1) into a
# temporary file; every command writes its output to a file there, and the 1-best outputs are
# compared with crfsuite's (sequences that differ are counted). Each speed is the best of 3 runs, taken in turn in one run
# (the machine is shared: compare ratios only), by wall time and by CPU time (user + sys, all
# threads: on a loaded machine the steadier figure for one thread); load time is tagging an empty
# input (best of 5), and vt_model_open alone (build/perf/model_load); peak RSS from /usr/bin/time (max of the runs).
set -eu
if [ $# -lt 4 ]; then
  echo "usage: $0 CRFSUITE VITESSE MODEL ITEMS [REPEAT]" >&2
  exit 64
fi
C=$1 V=$2 M=$3 I=$4 R=${5:-1}
W=$(mktemp -d "${TMPDIR:-/tmp}/vt_crfs_bench.XXXXXX")
trap 'rm -rf "$W"' EXIT
i=0
while [ $i -lt "$R" ]; do cat "$I"; i=$((i + 1)); done >"$W/test"
: >"$W/empty"
N=$(grep -c '^$' "$W/test")
"$V" convert --from crfsuite "$M" -o "$W/native.model"

# run NAME CMD...: one timed run of CMD (output to $W/NAME.out); appends "wall cpu rss_kb".
run() {
  name=$1
  shift
  /usr/bin/time -f '%e %U %S %M' -o "$W/time" "$@" >"$W/$name.out"
  awk '{printf "%s %.3f %s\n", $1, $2 + $3, $4}' "$W/time" >>"$W/$name.times"
}
names="crfsuite vitesse_1 vitesse_native_1 vitesse_2 vitesse_k5_1"
for n in $names; do : >"$W/$n.times"; done
for i in 1 2 3; do
  run crfsuite "$C" tag -m "$M" "$W/test"
  run vitesse_1 "$V" tag -m "$M" --threads 1 "$W/test"
  run vitesse_native_1 "$V" tag -m "$W/native.model" --threads 1 "$W/test"
  run vitesse_2 "$V" tag -m "$M" --threads 2 "$W/test"
  run vitesse_k5_1 "$V" tag -m "$M" --threads 1 -k 5 "$W/test"
done
# seqs FILE: one line per sequence (its labels joined), to count sequences that differ.
seqs() { awk 'NF { s = s $0 " "; next } { print s; s = "" }' "$1"; }
seqs "$W/crfsuite.out" >"$W/cs.seqs"
for n in vitesse_1 vitesse_native_1 vitesse_2; do
  seqs "$W/$n.out" | paste -d '\n' - "$W/cs.seqs" | paste - - | awk -F '\t' '$1 != $2' |
    wc -l | sed "s/^/$n: sequences whose labels differ from crfsuite tag's: /"
done
printf 'sequences %d (%d x %s), items %d\n' "$N" "$R" "$I" "$(grep -vc '^$' "$W/test")"
for n in $names; do
  s=$(cut -d' ' -f1 "$W/$n.times" | sort -g | head -1)
  cpu=$(cut -d' ' -f2 "$W/$n.times" | sort -g | head -1)
  rss=$(cut -d' ' -f3 "$W/$n.times" | sort -g | tail -1)
  printf '%-17s wall %6.3f s %7.0f seq/s   cpu %6.3f s %7.0f seq/s   peak RSS %5.1f MB\n' \
    "$n" "$s" "$(echo "$N / ($s + 0.0005)" | bc -l)" "$cpu" "$(echo "$N / ($cpu + 0.0005)" | bc -l)" \
    "$(echo "$rss / 1024" | bc -l)"
done
# Load time: an empty input (model load, set-up, exit), best of 5.
for n in crfsuite vitesse_crf1d vitesse_native; do : >"$W/$n.load"; done
for i in 1 2 3 4 5; do
  for n in crfsuite vitesse_crf1d vitesse_native; do
    case $n in
    crfsuite) set -- "$C" tag -m "$M" "$W/empty" ;;
    vitesse_crf1d) set -- "$V" tag -m "$M" --threads 1 "$W/empty" ;;
    vitesse_native) set -- "$V" tag -m "$W/native.model" --threads 1 "$W/empty" ;;
    esac
    t0=$(date +%s%N)
    "$@" >/dev/null
    t1=$(date +%s%N)
    echo $(((t1 - t0) / 1000)) >>"$W/$n.load"
  done
done
for n in crfsuite vitesse_crf1d vitesse_native; do
  printf 'load %-15s %6.1f ms (empty input, whole command)\n' "$n" \
    "$(echo "$(sort -g "$W/$n.load" | head -1) / 1000" | bc -l)"
done
ML=$(dirname "$V")/perf/model_load
[ -x "$ML" ] && "$ML" "$M" "$W/native.model"
printf 'model sizes: crf1d %d bytes, native %d bytes\n' "$(stat -c %s "$M")" \
  "$(stat -c %s "$W/native.model")"
