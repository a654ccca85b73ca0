#!/bin/sh
# perf/crfsuite_ratio.sh CRFSUITE MODEL ITEMS VITESSE [VITESSE_BEFORE]: `crfsuite tag` beside
# one-thread `vitesse tag` (and a VITESSE_BEFORE build, for a change's effect) on a CRFsuite
# model and item file, three rounds taken in turn; each command's CPU time (user + sys, the whole
# process: loading included) and peak RSS, the range over the rounds and the ratio of the best
# times. Every output is compared with crfsuite's (it must be the same bytes). Also the floor of
# reading the input (`wc -l`, CPU) and the count of attribute lookups (fields after the label).
set -eu
if [ $# -lt 4 ]; then
  echo "usage: $0 CRFSUITE MODEL ITEMS VITESSE [VITESSE_BEFORE]" >&2
  exit 64
fi
C=$1 M=$2 I=$3 V=$4 B=${5:-}
W=$(mktemp -d "${TMPDIR:-/tmp}/vt_crfs_ratio.XXXXXX")
trap 'rm -rf "$W"' EXIT
# run NAME CMD...: one run; appends "cpu_s rss_kb" to NAME.times, the output to NAME.out.
run() {
  name=$1
  shift
  /usr/bin/time -f '%U %S %M' -o "$W/time" "$@" >"$W/$name.out"
  awk '{printf "%.3f %s\n", $1 + $2, $3}' "$W/time" >>"$W/$name.times"
}
names="crfsuite vitesse"
[ -n "$B" ] && names="$names before"
for r in 1 2 3; do
  run crfsuite "$C" tag -m "$M" "$I"
  run vitesse "$V" tag -m "$M" --threads 1 "$I"
  [ -n "$B" ] && run before "$B" tag -m "$M" --threads 1 "$I"
  run wc wc -l "$I"
done
for n in $names; do
  cmp -s "$W/crfsuite.out" "$W/$n.out" || echo "$n: output differs from crfsuite tag's" >&2
done
printf 'sequences %d, items %d, attribute lookups %d\n' "$(grep -c '^$' "$I")" \
  "$(grep -vc '^$' "$I")" "$(awk -F '\t' 'NF { n += NF - 1 } END { print n }' "$I")"
best() { cut -d' ' -f1 "$W/$1.times" | sort -g | head -1; }
div() { awk -v a="$1" -v b="$2" 'BEGIN { print (b > 0 ? a / b : 0) }'; }
for n in $names wc; do
  printf '%-9s cpu %s s (%s .. %s)  peak RSS %.1f MB\n' "$n" "$(best "$n")" \
    "$(cut -d' ' -f1 "$W/$n.times" | sort -g | head -1)" \
    "$(cut -d' ' -f1 "$W/$n.times" | sort -g | tail -1)" \
    "$(div "$(cut -d' ' -f2 "$W/$n.times" | sort -g | tail -1)" 1024)"
done
printf 'crfsuite / vitesse: %.2fx\n' "$(div "$(best crfsuite)" "$(best vitesse)")"
[ -n "$B" ] && printf 'before / vitesse: %.2fx\n' "$(div "$(best before)" "$(best vitesse)")"
exit 0
