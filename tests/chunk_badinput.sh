#!/bin/sh
# tests/chunk_badinput.sh VITESSE CASE: the joint label-chunk commands on one bad input fail
# cleanly: exit status exactly 2, stderr exactly one line naming the file (and line, for a
# corpus), no output file and no temp file left behind. CASE `good` trains, saves, reloads and
# tags a small corpus (also through `vitesse train --joint-chunk` and `vitesse tag`).
set -u

if [ $# -ne 2 ]; then
  echo "usage: $0 VITESSE CASE" >&2
  exit 64
fi
VITESSE=$1
CASE=$2
base=$(mktemp -d "${TMPDIR:-/tmp}/vt_chunk_bad.XXXXXX") || exit 1
trap 'rm -rf "$base"' EXIT
W=$base/w
mkdir "$W" || exit 1

fail() {
  printf 'chunk_badinput.%s: FAIL: %s\n' "$CASE" "$*" >&2
  [ -s "$base/stderr" ] && { printf -- '--- stderr:\n' >&2; cat "$base/stderr" >&2; }
  exit 1
}

cat >"$W/train.txt" <<'EOF'
the DT B-NP
cat NN I-NP
sat VBD B-VP
on IN B-PP
the DT B-NP
mat NN I-NP
. . O

a DT B-NP
dog NN I-NP
ran VBD B-VP
EOF
"$VITESSE" chunk-train --train "$W/train.txt" --epochs 3 --quiet -o "$W/m" 2>"$base/stderr" ||
  fail "cannot train the control model"

# expect_bad PATTERN OUTPUT CMD...: CMD fails with status 2, one stderr line matching PATTERN,
# and OUTPUT (a path) does not exist afterwards; no temp file is left in $W.
expect_bad() {
  pattern=$1
  out=$2
  shift 2
  before=$(ls -a "$W" | wc -l)
  "$@" >"$base/stdout" 2>"$base/stderr"
  rc=$?
  [ $rc -eq 2 ] || fail "exit status $rc, expected 2"
  [ "$(wc -l <"$base/stderr")" -eq 1 ] || fail "stderr is not one line"
  grep -q -- "$pattern" "$base/stderr" || fail "stderr does not match '$pattern'"
  [ -e "$out" ] && fail "output $out was written"
  [ "$(ls -a "$W" | wc -l)" -eq "$before" ] || fail "a file was left behind"
  exit 0
}

# u64 FILE OFFSET: the little-endian u64 at OFFSET. le32 V: V as 4 little-endian bytes.
# put FILE OFFSET: overwrites FILE at OFFSET with stdin. crc32: stdin's CRC-32 (zlib's, as
# gzip's trailer holds it), 4 little-endian bytes.
u64() { od -An -t u8 -j "$2" -N 8 "$1" | tr -d ' '; }
le32() { printf "$(printf '\\%03o\\%03o\\%03o\\%03o' $(($1 & 255)) $(($1 >> 8 & 255)) \
  $(($1 >> 16 & 255)) $(($1 >> 24 & 255)))"; }
put() { dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null; }
crc32() { gzip -c | tail -c 8 | head -c 4; }

case $CASE in
good)
  "$VITESSE" train --joint-chunk --train "$W/train.txt" --epochs 3 --quiet -o "$W/m2" \
    2>"$base/stderr" || fail "train --joint-chunk"
  cmp -s "$W/m" "$W/m2" || fail "train --joint-chunk differs from chunk-train"
  "$VITESSE" tag -m "$W/m2" "$W/train.txt" -o "$W/out" 2>"$base/stderr" || fail "tag"
  [ "$(grep -c . "$W/out")" -eq 10 ] || fail "tag printed $(grep -c . "$W/out") token lines"
  awk 'NF && NF != 5 { exit 1 }' "$W/out" || fail "token lines must have 5 columns"
  "$VITESSE" chunk-tag -m "$W/m" --eval "$W/train.txt" >/dev/null 2>"$base/stderr" ||
    fail "chunk-tag --eval"
  grep -q "POS accuracy" "$base/stderr" || fail "no evaluation line"
  # tag parses its options once, then opens the model: the options in any order, the last -m
  # the one (a corpus named first), a model read from a pipe, chunk-tag's own options taken.
  "$VITESSE" chunk-tag -m "$W/m" "$W/train.txt" >"$W/want" 2>"$base/stderr" || fail "chunk-tag"
  "$VITESSE" tag "$W/train.txt" -m "$W/train.txt" --model="$W/m" --max-chunk 3 -o "$W/got" \
    2>"$base/stderr" || fail "tag, -m twice, options after the corpus"
  cmp -s "$W/want" "$W/got" || fail "tag with the last -m differs from chunk-tag"
  rm -f "$W/got"
  cat "$W/m" | "$VITESSE" tag -m /dev/stdin --eval "$W/train.txt" >"$W/got" 2>"$base/stderr" ||
    fail "tag from a pipe"
  cmp -s "$W/want" "$W/got" || fail "tag of a piped model differs from chunk-tag"
  grep -q "POS accuracy" "$base/stderr" || fail "tag --eval: no evaluation line"
  rm -f "$W/got" "$W/want"
  ;;
tag_tagger_option)
  expect_bad "chunk-tag: unknown option '-v'" "$W/out" \
    "$VITESSE" tag -m "$W/m" "$W/train.txt" -v 1 -o "$W/out"
  ;;
tag_tagger_long_option)
  expect_bad "chunk-tag: unknown option '--verbose'" "$W/out" \
    "$VITESSE" tag -m "$W/m" "$W/train.txt" --verbose 1 -o "$W/out"
  ;;
ragged)
  printf 'the DT B-NP\ncat NN\n' >"$W/bad.txt"
  expect_bad "bad.txt:2" "$W/out" "$VITESSE" chunk-train --train "$W/bad.txt" -o "$W/out"
  ;;
too_few_columns)
  printf 'the DT\ncat NN\n' >"$W/bad.txt"
  expect_bad "bad.txt:1" "$W/out" "$VITESSE" chunk-train --train "$W/bad.txt" -o "$W/out"
  ;;
eval_missing_column)
  printf 'the\ncat\n' >"$W/bad.txt"
  expect_bad "bad.txt:1" "$W/out" "$VITESSE" chunk-tag -m "$W/m" --eval "$W/bad.txt" -o "$W/out"
  ;;
missing_corpus)
  expect_bad "nothere.txt" "$W/out" "$VITESSE" chunk-train --train "$W/nothere.txt" -o "$W/out"
  ;;
truncated_model)
  head -c 200 "$W/m" >"$W/t"
  expect_bad "$W/t: truncated" "$W/out" "$VITESSE" chunk-tag -m "$W/t" "$W/train.txt" -o "$W/out"
  ;;
corrupt_model)
  size=$(wc -c <"$W/m")
  { head -c $((size - 9)) "$W/m"; printf 'X'; tail -c 8 "$W/m"; } >"$W/c"
  expect_bad "$W/c: corrupt model" "$W/out" "$VITESSE" tag -m "$W/c" "$W/train.txt" -o "$W/out"
  ;;
name_offset_past_section)
  # A crafted file with valid checksums: the first POS name's end offset points 1 GiB past the
  # names section. Every offset must be checked against its section before a name is read.
  cp "$W/m" "$W/c"
  pos_off=$(u64 "$W/c" $((64 + 32 + 8)))
  pos_size=$(u64 "$W/c" $((64 + 32 + 16)))
  le32 1073741824 | put "$W/c" $((pos_off + 4))
  dd if="$W/c" bs=1 skip="$pos_off" count="$pos_size" 2>/dev/null | crc32 | put "$W/c" $((64 + 32 + 24))
  le32 0 | put "$W/c" 24
  head -c $((64 + 7 * 32)) "$W/c" | crc32 | put "$W/c" 24
  expect_bad "$W/c: corrupt model file: POS names has bad offsets" "$W/out" \
    "$VITESSE" chunk-tag -m "$W/c" "$W/train.txt" -o "$W/out"
  ;;
not_a_model)
  expect_bad "bad magic" "$W/out" "$VITESSE" chunk-tag -m "$W/train.txt" "$W/train.txt" -o "$W/out"
  ;;
*)
  echo "unknown case $CASE" >&2
  exit 64
  ;;
esac
exit 0
