#!/bin/sh
# tests/confidence_cli.sh VITESSE: `vitesse decode --posteriors P.npy --logz`: the .npy has the
# shape (sum T, L) float32 and the size that says; --logz adds logZ and prob columns, prob <= 1
# and the k probabilities non-increasing; both are byte-identical for --threads 1, 2 and batch
# sizes; a failing run leaves neither file; --help lists the options.
set -u
VITESSE=$1
base=$(mktemp -d "${TMPDIR:-/tmp}/vt_conf.XXXXXX") || exit 1
trap 'rm -rf "$base"' EXIT
fails=0
fail() {
  printf 'confidence_cli: FAIL: %s\n' "$*" >&2
  fails=$((fails + 1))
}
"$VITESSE" synth -o "$base" --labels 19 --sentences 40 --seed 5 >/dev/null || exit 1
DATA="--emissions $base/E.npy --lengths $base/N.npy --transitions $base/A.npy --start $base/S.npy
  --end $base/F.npy"

# shellcheck disable=SC2086
"$VITESSE" decode $DATA -k 3 --algo kbest-viterbi --logz --posteriors "$base/p1.npy" \
  --threads 1 -o "$base/o1" 2>"$base/err" || fail "run 1: $(cat "$base/err")"
# shellcheck disable=SC2086
"$VITESSE" decode $DATA -k 3 --algo kbest-viterbi --logz --posteriors "$base/p2.npy" \
  --threads 2 --batch-tokens 7 -o "$base/o2" 2>"$base/err" || fail "run 2: $(cat "$base/err")"
cmp -s "$base/o1" "$base/o2" || fail "--logz output differs between thread counts"
cmp -s "$base/p1.npy" "$base/p2.npy" || fail "posteriors differ between thread counts"

tokens=$(awk -F'\t' '$2 == 0 { n += split($4, a, " ") } END { print n }' "$base/o1")
size=$(wc -c <"$base/p1.npy")
[ "$size" -eq $((128 + tokens * 19 * 4)) ] || fail "posteriors: $size bytes for $tokens tokens"
head -c 128 "$base/p1.npy" | grep -a -q "'descr': '<f4', 'fortran_order': False, 'shape': ($tokens, 19)" ||
  fail "posteriors header: $(head -c 128 "$base/p1.npy")"
awk -F'\t' 'NF != 6 || $6 > 1 || $6 < 0 { bad = 1 }
  $2 > 0 && $6 > prev + 1e-9 { bad = 1 } { prev = $6 }
  END { exit bad }' "$base/o1" || fail "--logz columns: $(head -3 "$base/o1")"
# without --logz the lines are unchanged: the first 4 columns
# shellcheck disable=SC2086
"$VITESSE" decode $DATA -k 3 --algo kbest-viterbi -o "$base/o3" 2>/dev/null
cut -f1-4 "$base/o1" | cmp -s - "$base/o3" || fail "--logz changed the first four columns"

# --labels with --logz: names in the fourth field, the logZ and prob fields untouched
awk 'BEGIN { for (y = 0; y < 19; y++) print "L" y }' >"$base/labels.txt"
# shellcheck disable=SC2086
"$VITESSE" decode $DATA -k 3 --algo kbest-viterbi --logz --labels "$base/labels.txt" \
  -o "$base/o5" 2>"$base/err" || fail "--labels --logz: $(cat "$base/err")"
cut -f1-3,5,6 "$base/o1" >"$base/a" && cut -f1-3,5,6 "$base/o5" | cmp -s - "$base/a" ||
  fail "--labels changed the --logz fields: $(head -2 "$base/o5")"
awk -F'\t' '$4 != "" && $4 !~ /^L[0-9]+( L[0-9]+)*$/ { bad = 1 } END { exit bad }' "$base/o5" ||
  fail "--labels --logz: labels not named: $(head -2 "$base/o5")"

# a failing run (unwritable -o) leaves no posteriors file
rm -f "$base/p3.npy"
# shellcheck disable=SC2086
if "$VITESSE" decode $DATA --posteriors "$base/p3.npy" -o "$base/nodir/out" 2>"$base/err"; then
  fail "unwritable -o accepted"
fi
[ ! -e "$base/p3.npy" ] || fail "a failed run left $base/p3.npy"
# shellcheck disable=SC2086
"$VITESSE" decode $DATA --posteriors - >/dev/null 2>"$base/err"
[ $? -eq 2 ] || fail "--posteriors - (stdout) accepted"
# --forbid-transitions: no label but 3 may start; every decoder agrees on the scores
awk 'BEGIN { for (y = 0; y < 19; y++) if (y != 3) print "<s>", y; print "# comment"; print "" }' \
  >"$base/forbid"
for algo in viterbi staggered-col astar iter-viterbi-astar; do
  # shellcheck disable=SC2086
  "$VITESSE" decode $DATA --algo $algo --forbid-transitions "$base/forbid" --logz \
    -o "$base/f_$algo" 2>"$base/err" || fail "forbid $algo: $(cat "$base/err")"
  awk -F'\t' '$4 != "" { split($4, a, " "); if (a[1] != 3) bad = 1 } END { exit bad }' \
    "$base/f_$algo" || fail "forbid $algo: a path does not start with label 3"
  cut -f1-3,5 "$base/f_viterbi" | cmp -s - "$(cut -f1-3,5 "$base/f_$algo" >"$base/fc"; echo "$base/fc")" ||
    fail "forbid: $algo's scores differ from viterbi's"
done
printf '0 1\n2 19\n' >"$base/badforbid"
# shellcheck disable=SC2086
"$VITESSE" decode $DATA --forbid-transitions "$base/badforbid" -o "$base/o4" 2>"$base/err"
[ $? -eq 2 ] && grep -q "badforbid:2: '19' is not a label" "$base/err" && [ ! -e "$base/o4" ] ||
  fail "bad forbid file: $(cat "$base/err")"
"$VITESSE" decode --help | grep -q -- '--forbid-transitions' || fail "--help lacks --forbid"
"$VITESSE" decode --help | grep -q -- '--posteriors' || fail "--help lacks --posteriors"
"$VITESSE" decode --help | grep -q -- '--logz' || fail "--help lacks --logz"
[ "$fails" -eq 0 ] && echo "confidence_cli: ok"
exit "$fails"
