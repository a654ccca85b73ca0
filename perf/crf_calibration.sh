#!/bin/sh
# perf/crf_calibration.sh: do the probabilities vitesse prints mean something? On CoNLL-2000
# chunking (22 labels), the mean sentence probability of the best path against the test set's
# exact-match rate (the share of sentences tagged entirely right), for
#   - the L2 CRF trained from item files (vitesse train --algo lbfgs, CRFsuite's defaults),
#     printed by `vitesse tag -p` (CRFsuite's @probability);
#   - the averaged perceptron over the CoNLL-2000 chunking templates, printed by `tag -v 1`.
# A calibrated model's two figures agree; perf/README.md, "CRF training", holds the results.
#
#   sh perf/crf_calibration.sh [VITESSE_BIN] [ITERS]
#
# Environment: DATA (required, no default: a folder holding conll2000/{train,test}.txt),
# ITEMS_DIR (chunk.train.items and chunk.test.items from perf/crf_items.py; made when absent),
# WORK (default mktemp -d).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
V=${1:-$HERE/../build-rel/vitesse}
ITERS=${2:-200}
DATA=${DATA:?set DATA to a folder holding conll2000/train.txt and test.txt}
WORK=${WORK:-$(mktemp -d "${TMPDIR:-/tmp}/vt_crf_cal.XXXXXX")}
mkdir -p "$WORK"
[ -x "$V" ] || { echo "$0: no vitesse at $V" >&2; exit 69; }
[ -f "$DATA/conll2000/train.txt" ] || { echo "$0: no CoNLL-2000 under $DATA" >&2; exit 69; }
if [ -n "${ITEMS_DIR:-}" ] && [ -f "$ITEMS_DIR/chunk.train.items" ]; then
  cp "$ITEMS_DIR/chunk.train.items" "$ITEMS_DIR/chunk.test.items" "$WORK/"
else
  python3 "$HERE/crf_items.py" chunk train --data "$DATA" >"$WORK/chunk.train.items"
  python3 "$HERE/crf_items.py" chunk test --data "$DATA" >"$WORK/chunk.test.items"
fi
cd "$WORK"

# The CRF: @probability per sequence; exact match from the reference labels (first field).
"$V" train --algo lbfgs --items chunk.train.items --max-iterations "$ITERS" --quiet \
  -o crf.model
"$V" tag -m crf.model -p chunk.test.items >crf.out
# crf.out has two @ lines before each sequence: drop them to pair labels with references.
grep -v '^@' crf.out >crf.labels
cut -f1 chunk.test.items >ref.col
paste -d '\t' crf.labels ref.col >crf.pair
grep '^@probability' crf.out | cut -f2 >crf.prob
awk -F'\t' -v iters="$ITERS" '
  NR == FNR { p += $1; n++; next }
  $1 == "" { if (started) { right += ok; m++ } started = 0; next }
  { if (!started) { started = 1; ok = 1 } if ($1 != $2) ok = 0 }
  END { if (started) { right += ok; m++ }
        printf "CRF (L2, lbfgs, %s iterations): mean sentence probability %.4f, exact match %.4f (%d sentences, %d scored)\n", iters, p / n, right / m, m, n }
' crf.prob crf.pair

# The perceptron: "# PROB" per sentence with tag -v 1 (a line of two fields: WSJ has "#" tokens);
# the label column is LABEL/MARGINAL.
"$V" train --template "$HERE/templates/conll2000-chunk.tmpl" \
  --train "$DATA/conll2000/train.txt" --epochs 10 --quiet -o perc.model
"$V" tag -m perc.model -v 1 "$DATA/conll2000/test.txt" >perc.out
awk '
  /^# / && NF == 2 { p += $2; n++; ok = 1; started = 1; next }
  NF == 0 { if (started) { right += ok; started = 0 } next }
  { split($NF, a, "/"); if (a[1] != $(NF - 1)) ok = 0 }
  END { if (started) right += ok
        printf "perceptron (10 epochs): mean sentence probability %.4f, exact match %.4f (%d sentences)\n", p / n, right / n, n }
' perc.out
echo "work: $WORK"
