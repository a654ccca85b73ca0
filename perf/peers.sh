#!/bin/sh
# perf/peers.sh CRF_TEST WAPITI VITESSE PEERDIR [COPIES]: the peer-model measurements of
# perf/README.md ("Bring your own model"): CRF++'s crf_test and Wapiti's `wapiti label` against
# `vitesse tag` with the same models (the peer's file, and converted by `vitesse convert`),
# side by side in one run, on PEERDIR's test set (PEERDIR: a folder holding crfpp.model,
# wapiti.model and test.txt, CoNLL-2000 chunking models the peers trained) repeated
# COPIES times (default 20: 10,000 sentences). CRF_TEST and WAPITI are built from their sources
# outside the repository (see perf/README.md). For each tool: the wall time of the whole run, of a
# one-sentence run (= loading the model, and starting), tagging speed = sentences / (whole -
# one-sentence), peak RSS of the whole run; the best of 5 runs (the machine is shared). Also
# checks that every tool's labels on the test set are the same.
#
# With VT_PEERS_JOINT=DATA (a folder holding conll2000/{train,test}.txt), also the joint POS|chunk
# task at about 200 labels:
# Wapiti trained for 2 L-BFGS iterations on the first 1,000 CoNLL-2000 training sentences (about
# 4 minutes here: enough for a model of the right shape, not an accurate one; CRF++'s crf_learn
# did not finish one iteration in 5 minutes, so it has no row), then wapiti label against
# vitesse tag on the first 500 test sentences.
set -eu
if [ $# -lt 4 ]; then
  echo "usage: $0 CRF_TEST WAPITI VITESSE PEERDIR [COPIES]" >&2
  exit 64
fi
abspath() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
CRF_TEST=$(abspath "$1")
WAPITI=$(abspath "$2")
V=$(abspath "$3")
P=$(cd "$4" && pwd)
COPIES=${5:-20}
W=$(mktemp -d "${TMPDIR:-/tmp}/vt_peers.XXXXXX")
trap 'rm -rf "$W"' EXIT
cd "$W"

i=0
while [ "$i" -lt "$COPIES" ]; do cat "$P/test.txt"; i=$((i + 1)); done >big.txt
awk '{ print } !NF { exit }' "$P/test.txt" >one.txt
N=$(awk '!NF { n++ } END { print n }' big.txt)
"$V" convert "$P/crfpp.model" -o crfpp.vt
"$V" convert "$P/wapiti.model" -o wapiti.vt

# run NAME CMD...: the command with its input file as the last argument ("IN"), output to a file.
# Prints "wall rss" of its best of 5 (wall from date, rss from /usr/bin/time).
measure() {
  in=$1
  shift
  best=
  for r in 1 2 3 4 5; do
    t0=$(date +%s.%N)
    /usr/bin/time -f %M -o rss.txt "$@" "$in" >out.txt 2>/dev/null
    t1=$(date +%s.%N)
    w=$(echo "$t1 - $t0" | bc -l)
    if [ -z "$best" ] || [ "$(echo "$w < $best" | bc -l)" -eq 1 ]; then
      best=$w
      rss=$(cat rss.txt)
    fi
  done
  echo "$best $rss"
}

row() {
  name=$1
  shift
  set -- "$@"
  full=$(measure big.txt "$@")
  one=$(measure one.txt "$@")
  fw=${full% *}
  rss=${full#* }
  ow=${one% *}
  sps=$(echo "$N / ($fw - $ow)" | bc -l)
  printf '| %s | %.3f s | %.0f | %.1f ms | %.1f MB |\n' "$name" "$fw" "$sps" \
    "$(echo "$ow * 1000" | bc -l)" "$(echo "$rss / 1024" | bc -l)"
}

echo "$N sentences ($(grep -c . big.txt) tokens), $(nproc) cores"
echo "| tool, model | whole run | sentences/s (tagging) | one sentence (load) | peak RSS |"
echo "|---|---|---|---|---|"
row "crf_test, crfpp.model (1 thread)" "$CRF_TEST" -m "$P/crfpp.model"
row "vitesse tag, crfpp.model, 1 thread" "$V" tag --threads 1 -m "$P/crfpp.model"
row "vitesse tag, crfpp.model converted, 1 thread" "$V" tag --threads 1 -m crfpp.vt
row "vitesse tag, crfpp.model converted, 2 threads" "$V" tag --threads 2 -m crfpp.vt
row "wapiti label, wapiti.model (1 thread)" "$WAPITI" label -m "$P/wapiti.model"
row "vitesse tag, wapiti.model, 1 thread" "$V" tag --threads 1 -m "$P/wapiti.model"
row "vitesse tag, wapiti.model converted, 1 thread" "$V" tag --threads 1 -m wapiti.vt
row "vitesse tag, wapiti.model converted, 2 threads" "$V" tag --threads 2 -m wapiti.vt

# the same labels, token for token, on the test set
"$CRF_TEST" -m "$P/crfpp.model" "$P/test.txt" | awk 'NF { print $NF }' >c.txt
"$V" tag -m crfpp.vt "$P/test.txt" | awk 'NF { print $NF }' >vc.txt
"$WAPITI" label -m "$P/wapiti.model" "$P/test.txt" 2>/dev/null | awk 'NF { print $NF }' >w.txt
"$V" tag -m wapiti.vt "$P/test.txt" | awk 'NF { print $NF }' >vw.txt
cmp -s c.txt vc.txt && echo "labels: vitesse = crf_test on every token" ||
  echo "labels: vitesse and crf_test DIFFER"
cmp -s w.txt vw.txt && echo "labels: vitesse = wapiti label on every token" ||
  echo "labels: vitesse and wapiti label DIFFER"

[ -n "${VT_PEERS_JOINT:-}" ] || exit 0
awk '{ if (NF) print $1, $2 "|" $3; else print "" }' "$VT_PEERS_JOINT/conll2000/train.txt" |
  awk '{ print } !NF { if (++n == 1000) exit }' >tr.joint
awk '{ if (NF) print $1, $2 "|" $3; else print "" }' "$VT_PEERS_JOINT/conll2000/test.txt" |
  awk '{ print } !NF { if (++n == 500) exit }' >big.txt
awk '{ print } !NF { exit }' big.txt >one.txt
N=500
printf 'u00:%%x[-2,0]\nu01:%%x[-1,0]\nu02:%%x[0,0]\nu03:%%x[1,0]\nu04:%%x[2,0]\n' >joint.pat
printf 'u05:%%x[-1,0]/%%x[0,0]\nu06:%%x[0,0]/%%x[1,0]\nu99:bias\nb\n' >>joint.pat
t0=$(date +%s)
"$WAPITI" train -a l-bfgs -i 2 -t 1 -p joint.pat tr.joint joint.wapiti >/dev/null 2>&1
echo "joint: wapiti train, 2 iterations, $(($(date +%s) - t0)) s; $(sed -n 's/^#qrk#//p' joint.wapiti | head -1) labels"
"$V" convert joint.wapiti -o joint.vt
echo "| tool, model | whole run | sentences/s (tagging) | one sentence (load) | peak RSS |"
echo "|---|---|---|---|---|"
row "wapiti label, joint (1 thread)" "$WAPITI" label -m joint.wapiti
row "vitesse tag, joint, 1 thread" "$V" tag --threads 1 -m joint.wapiti
row "vitesse tag, joint converted, 1 thread" "$V" tag --threads 1 -m joint.vt
row "vitesse tag, joint converted, 2 threads" "$V" tag --threads 2 -m joint.vt
"$WAPITI" label -m joint.wapiti big.txt 2>/dev/null | awk 'NF { print $NF }' >w.txt
"$V" tag -m joint.vt big.txt | awk 'NF { print $NF }' >vw.txt
cmp -s w.txt vw.txt && echo "labels: vitesse = wapiti label on every token" ||
  echo "labels: vitesse and wapiti label DIFFER"
