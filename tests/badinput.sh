#!/bin/sh
# tests/badinput.sh VITESSE CASE: runs `VITESSE decode` on a small lattice set with one malformed
# input and checks that it fails cleanly: exit status exactly 2, stderr exactly one line naming
# the offending file and the problem, no output file and no temp file left behind. CASE `good`
# checks that the untouched set decodes (exit 0, one output line per sentence).
# The .npy files are written with printf octal escapes (no python, no numpy needed).
set -u

if [ $# -ne 2 ]; then
  echo "usage: $0 VITESSE CASE" >&2
  exit 64
fi
VITESSE=$1
CASE=$2

base=$(mktemp -d "${TMPDIR:-/tmp}/vt_badinput.XXXXXX") || exit 1
trap 'rm -rf "$base"' EXIT
trap 'exit 130' INT TERM
W=$base/w # the inputs and the output file live here; nothing else may appear
mkdir "$W" || exit 1

fail() {
  printf 'badinput.%s: FAIL: %s\n' "$CASE" "$*" >&2
  if [ -s "$base/stderr" ]; then
    printf -- '--- stderr of vitesse:\n' >&2
    cat "$base/stderr" >&2
  fi
  exit 1
}

# byte, rep, npy FILE DESCR FORTRAN SHAPE DATA [MAJOR] and the element bytes (F0, D1, I2, Q3,
# ...): tests/npy_write.sh.
. "$(dirname "$0")/npy_write.sh"

# listing: the names in $W (hidden ones too), on one line.
listing() {
  (cd "$W" && for f in .* *; do
    case $f in .|..) ;; *) if [ -e "$f" ]; then printf '%s ' "$f"; fi ;; esac
  done)
}


E=$W/E.npy N=$W/N.npy A=$W/A.npy S=$W/S.npy F=$W/F.npy R=$W/R.npy
OUT=$W/out.tsv

# The good set: L = 3 labels, 2 sentences of 2 and 3 tokens.
E_DATA="$F1$F0$FNINF$F0$F1$F0$(rep 3 "$F1$F0$F0")"
npy "$E" '<f4' False '(5, 3)' "$E_DATA"
npy "$N" '<i8' False '(2,)' "$Q2$Q3"
A_DATA="$D0$D1$DNINF$D1$D0$D0$D0$D0$D1"
npy "$A" '<f8' False '(3, 3)' "$A_DATA"
npy "$S" '<f4' False '(3,)' "$F0$F1$F0"
npy "$F" '<f4' False '(3,)' "$F0$F0$F0"
npy "$R" '<i4' False '(3,)' "$I2$I0$I1"

# Each case breaks one file: BAD is its path, WORD a word the message must contain.
case $CASE in
  good) BAD="" WORD="" ;;
  fortran)
    npy "$E" '<f4' True '(5, 3)' "$E_DATA"
    BAD=$E WORD="Fortran" ;;
  bigendian)
    npy "$A" '>f8' False '(3, 3)' "$A_DATA"
    BAD=$A WORD="big-endian" ;;
  wrongdtype)
    npy "$E" '<i2' False '(5, 3)' "$(rep 15 '\001\000')"
    BAD=$E WORD="dtype" ;;
  wrongshape_A)
    npy "$A" '<f8' False '(3, 4)' "$(rep 12 "$D0")"
    BAD=$A WORD="shape" ;;
  wrongshape_E)
    npy "$E" '<f4' False '(15,)' "$E_DATA"
    BAD=$E WORD="2-D" ;;
  lengths_mismatch)
    npy "$N" '<i8' False '(2,)' "$Q2$Q4"
    BAD=$N WORD="sum" ;;
  negative_length)
    npy "$N" '<i8' False '(2,)' "$Q6$QM1"
    BAD=$N WORD="negative" ;;
  truncated_data)
    npy "$E" '<f4' False '(5, 3)' "$(rep 14 "$F0")"
    BAD=$E WORD="truncated" ;;
  truncated_header)
    printf "\\223NUMPY\\001\\000\\166\\000{'descr': '<i8', 'fortr" >"$N"
    BAD=$N WORD="truncated" ;;
  badmagic)
    printf 'PK\003\004 this is a zip file, not a .npy file\n' >"$A"
    BAD=$A WORD="magic" ;;
  badversion)
    npy "$E" '<f4' False '(5, 3)' "$E_DATA" 9
    BAD=$E WORD="version" ;;
  nan_E)
    npy "$E" '<f4' False '(5, 3)' "$(rep 4 "$F1$F0$F0")$F0$FNAN$F0"
    BAD=$E WORD="[4, 1] is NaN" ;;
  posinf_A)
    npy "$A" '<f8' False '(3, 3)' "$D0$D1$DNINF$D1$D0$DPINF$D0$D0$D1"
    BAD=$A WORD="[1, 2] is +inf" ;;
  huge_E)
    npy "$E" '<f8' False '(5, 3)' "$(rep 4 "$D1$D0$D0")$D0$DHUGE$D0"
    BAD=$E WORD="[4, 1] is 8.9884656743115795e+307, too large" ;;
  huge_A)
    npy "$A" '<f8' False '(3, 3)' "$D0$D1$DNINF$D1$D0$D0$DNHUGE$D0$D1"
    BAD=$A WORD="[2, 0] is -8.9884656743115795e+307, too large" ;;
  nan_S)
    npy "$S" '<f4' False '(3,)' "$F0$FNAN$F0"
    BAD=$S WORD="[1] is NaN" ;;
  rank_not_permutation)
    npy "$R" '<i4' False '(3,)' "$I2$I0$I2"
    BAD=$R WORD="repeats" ;;
  rank_out_of_range)
    npy "$R" '<i4' False '(3,)' "$I0$I3$I1"
    BAD=$R WORD="out of range" ;;
  missing_file)
    rm -f "$F"
    BAD=$F WORD="No such file" ;;
  empty_file)
    : >"$S"
    BAD=$S WORD="empty" ;;
  *)
    echo "badinput.sh: unknown case '$CASE'" >&2
    exit 64 ;;
esac

before=$(listing)
"$VITESSE" decode --emissions "$E" --lengths "$N" --transitions "$A" --start "$S" --end "$F" \
  --rank "$R" --algo viterbi --threads 1 -o "$OUT" >"$base/stdout" 2>"$base/stderr"
status=$?

if [ "$CASE" = good ]; then
  [ "$status" -eq 0 ] || fail "exit status $status, expected 0"
  [ -f "$OUT" ] || fail "no output file $OUT"
  [ ! -s "$base/stderr" ] || fail "unexpected stderr"
  lines=$(wc -l <"$OUT")
  [ "$lines" -eq 2 ] || fail "output has $lines lines, expected 2 (one per sentence)"
  rm -f "$OUT"
  after=$(listing)
  [ "$before" = "$after" ] || fail "stray files in $W: $after"
  exit 0
fi

[ "$status" -eq 2 ] || fail "exit status $status, expected 2"
[ -s "$base/stderr" ] || fail "nothing on stderr"
msg=$(cat "$base/stderr")
printf '%s\n' "$msg" | cmp -s - "$base/stderr" || fail "stderr is not newline-terminated text"
lines=$(wc -l <"$base/stderr")
[ "$lines" -eq 1 ] || fail "stderr has $lines lines, expected exactly 1"
case $msg in
  *"$BAD"*) ;;
  *) fail "stderr does not name $BAD" ;;
esac
case $msg in
  *"$WORD"*) ;;
  *) fail "stderr does not say '$WORD'" ;;
esac
[ ! -e "$OUT" ] || fail "output file $OUT exists after a failure"
after=$(listing)
[ "$before" = "$after" ] || fail "files changed in $W (temp file left?): $after"
exit 0
