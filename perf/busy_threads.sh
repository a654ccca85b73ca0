#!/bin/sh
# perf/busy_threads.sh VITESSE ITEMS [BUSY]: one against two threads on a busy machine. Starts
# BUSY (default 4) CPU-bound shell loops (each ends by itself after 10 minutes at most, and all
# are stopped at the end), then runs, alternated three times, `vitesse train --algo lbfgs` (10
# iterations, c1 = c2 = 0.1) on the CRFsuite item file ITEMS and `vitesse tag` of ITEMS with the
# model it wrote, each at --threads 1 and 2; prints each one's best wall and CPU seconds (user +
# sys) and the ratios of two threads to one. The models of 1 and 2 threads must be the same bytes.
# VITESSE_PYTHON=PY also times Python's training (`vitesse.train_items`, what CRF.fit calls; PY
# imports vitesse) the same way at 1 and 2 threads.
set -eu
if [ $# -lt 2 ]; then
  echo "usage: $0 VITESSE ITEMS [BUSY]" >&2
  exit 64
fi
V=$1 I=$2 N=${3:-4}
W=$(mktemp -d "${TMPDIR:-/tmp}/vt_busy.XXXXXX")
pids=""
cleanup() {
  for p in $pids; do kill "$p" 2>/dev/null || true; done
  rm -rf "$W"
}
trap cleanup EXIT
i=0
while [ $i -lt "$N" ]; do
  timeout 600 sh -c 'while :; do :; done' &
  pids="$pids $!"
  i=$((i + 1))
done
# run NAME CMD...: one run, "wall cpu" appended to NAME.
run() {
  name=$1
  shift
  /usr/bin/time -f '%e %U %S' -o "$W/time" "$@" >/dev/null 2>"$W/err" || { cat "$W/err" >&2; exit 1; }
  awk '{printf "%s %.2f\n", $1, $2 + $3}' "$W/time" >>"$W/$name"
}
# Python's CRF training (what CRF.fit and pycrfsuite's Trainer call): argv ITEMS THREADS.
FIT='import sys, vitesse
vitesse.train_items(sys.argv[1], algorithm="lbfgs", c1=0.1, c2=0.1, max_iterations=10,
                    threads=int(sys.argv[2]))'
for r in 1 2 3; do
  for t in 1 2; do
    run "train$t" "$V" train --algo lbfgs --items "$I" --c1 0.1 --c2 0.1 --max-iterations 10 \
      --threads "$t" -o "$W/m$t.model"
    run "tag$t" "$V" tag -m "$W/m$t.model" --threads "$t" "$I"
    if [ -n "${VITESSE_PYTHON:-}" ]; then run "fit$t" "$VITESSE_PYTHON" -c "$FIT" "$I" "$t"; fi
  done
done
cmp -s "$W/m1.model" "$W/m2.model" || echo "the models of 1 and 2 threads differ" >&2
printf '%d busy processes on %d cores\n' "$N" "$(nproc)"
for k in train tag fit; do
  [ -f "$W/${k}1" ] || continue
  w1=$(cut -d' ' -f1 "$W/${k}1" | sort -g | head -1) c1=$(cut -d' ' -f2 "$W/${k}1" | sort -g | head -1)
  w2=$(cut -d' ' -f1 "$W/${k}2" | sort -g | head -1) c2=$(cut -d' ' -f2 "$W/${k}2" | sort -g | head -1)
  printf '%-6s 1 thread %6.2f s wall %6.2f s CPU; 2 threads %6.2f s wall %6.2f s CPU; 2/1: wall %.2f, CPU %.2f\n' \
    "$k" "$w1" "$c1" "$w2" "$c2" "$(awk -v a="$w2" -v b="$w1" 'BEGIN { print a / b }')" \
    "$(awk -v a="$c2" -v b="$c1" 'BEGIN { print a / b }')"
done
