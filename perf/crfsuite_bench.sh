#!/bin/sh
# perf/crfsuite_bench.sh CRFSUITE VITESSE DIR [REPEAT]: `crfsuite tag` (CRFsuite 0.12, built
# outside the repository) beside `vitesse tag` on the CRFsuite sample of DIR
# (../shared/peer-models/conll2000-chunk: crfsuite.model, crfsuite.test), the table of
# perf/README.md ("CRFsuite models"). The test set is repeated REPEAT times (default 20: 10,000
# sequences) into a temporary file; every command writes its output to a file there and the
# outputs are compared with crfsuite's. Each speed is the best of 3 runs, taken in turn in one run
# (the machine is shared: compare ratios only), by wall time and by CPU time (user + sys, all
# threads: on a loaded machine the steadier figure for one thread); load time is tagging an empty
# input (best of 5), and vt_model_open alone (build/perf/model_load); peak RSS from /usr/bin/time (max of the runs).
set -eu
if [ $# -lt 3 ]; then
  echo "usage: $0 CRFSUITE VITESSE DIR [REPEAT]" >&2
  exit 64
fi
C=$1 V=$2 D=$3 R=${4:-20}
W=$(mktemp -d "${TMPDIR:-/tmp}/vt_crfs_bench.XXXXXX")
trap 'rm -rf "$W"' EXIT
i=0
while [ $i -lt "$R" ]; do cat "$D/crfsuite.test"; i=$((i + 1)); done >"$W/test"
: >"$W/empty"
N=$(($(grep -c '^$' "$D/crfsuite.test") * R))
"$V" convert --from crfsuite "$D/crfsuite.model" -o "$W/native.model"

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
  run crfsuite "$C" tag -m "$D/crfsuite.model" "$W/test"
  run vitesse_1 "$V" tag -m "$D/crfsuite.model" --threads 1 "$W/test"
  run vitesse_native_1 "$V" tag -m "$W/native.model" --threads 1 "$W/test"
  run vitesse_2 "$V" tag -m "$D/crfsuite.model" --threads 2 "$W/test"
  run vitesse_k5_1 "$V" tag -m "$D/crfsuite.model" --threads 1 -k 5 "$W/test"
done
for n in vitesse_1 vitesse_native_1 vitesse_2; do
  cmp -s "$W/crfsuite.out" "$W/$n.out" || { echo "$n: output differs from crfsuite tag" >&2; exit 1; }
done
printf 'sequences %d (%d x %s), items %d\n' "$N" "$R" "$D/crfsuite.test" "$(grep -vc '^$' "$W/test")"
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
    crfsuite) set -- "$C" tag -m "$D/crfsuite.model" "$W/empty" ;;
    vitesse_crf1d) set -- "$V" tag -m "$D/crfsuite.model" --threads 1 "$W/empty" ;;
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
[ -x "$ML" ] && "$ML" "$D/crfsuite.model" "$W/native.model"
printf 'model sizes: crf1d %d bytes, native %d bytes\n' "$(stat -c %s "$D/crfsuite.model")" \
  "$(stat -c %s "$W/native.model")"
