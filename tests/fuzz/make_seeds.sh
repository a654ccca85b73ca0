#!/bin/sh
# tests/fuzz/make_seeds.sh VITESSE [DIR]: writes the seed corpora of the fuzz targets into
# DIR/<target>/ (default: tests/fuzz/seeds next to this script), from scratch: small valid inputs
# made with the project's own binary (`vitesse synth`, `vitesse train`, `vitesse train
# --joint-chunk`, and tests/crfsuite_seeds for the CRFsuite targets) and the malformed inputs of the bad-input tests (tests/badinput.sh,
# tests/chunk_badinput.sh), each a few KB at most. Deterministic: the same binary writes the same
# bytes. Crashes found by fuzzing are not written here: they are committed as files named
# crash-* in the seed directories by hand, and this script leaves those alone.
set -eu
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 VITESSE [DIR]" >&2
  exit 64
fi
VITESSE=$1
OUT=${2:-$(dirname "$0")/seeds}
W=$(mktemp -d "${TMPDIR:-/tmp}/vt_seeds.XXXXXX")
trap 'rm -rf "$W"' EXIT
for t in npy lattice conll template textmodel chunkmodel crfpp wapiti crfsmodel crfsitems crftrain; do
  mkdir -p "$OUT/$t"
  find "$OUT/$t" -type f ! -name 'crash-*' -exec rm -f {} +
done

# ---- .npy files (as tests/badinput.sh writes them: printf escapes, no numpy) -----------------
# byte, rep, npy FILE DESCR FORTRAN SHAPE DATA [MAJOR] and the element bytes, as tests/badinput.sh
# uses them.
. "$(dirname "$0")/../npy_write.sh"
E_DATA="$F1$F0$FNINF$F0$F1$F0$(rep 3 "$F1$F0$F0")"
A_DATA="$D0$D1$DNINF$D1$D0$D0$D0$D0$D1"

# good_set DIR: the control set of tests/badinput.sh (L = 3, sentences of 2 and 3 tokens).
good_set() {
  mkdir -p "$1"
  npy "$1/E" '<f4' False '(5, 3)' "$E_DATA"
  npy "$1/N" '<i8' False '(2,)' "$Q2$Q3"
  npy "$1/A" '<f8' False '(3, 3)' "$A_DATA"
  npy "$1/S" '<f4' False '(3,)' "$F0$F1$F0"
  npy "$1/F" '<f4' False '(3,)' "$F0$F0$F0"
  npy "$1/R" '<i4' False '(3,)' "$I2$I0$I1"
}
# lattice NAME DIR: the lattice target's input: DIR's E N A S F R concatenated.
lattice() { cat "$2/E" "$2/N" "$2/A" "$2/S" "$2/F" "$2/R" >"$OUT/lattice/$1"; }

good_set "$W/good"
for f in E N A S F R; do cp "$W/good/$f" "$OUT/npy/good_$f.npy"; done
lattice good "$W/good"
cat "$W/good/E" "$W/good/N" "$W/good/A" >"$OUT/lattice/good_no_SFR"
cat "$W/good/E" "$W/good/N" >"$OUT/lattice/good_no_A"
npy "$OUT/npy/v2.npy" '<f8' False '(2, 2)' "$D1$D0$D0$D1" 2
npy "$OUT/npy/v3.npy" '<i4' False '(3,)' "$I1$I2$I3" 3
npy "$OUT/npy/scalar.npy" '<f8' False '()' "$D1"
npy "$OUT/npy/empty_dim.npy" '<f4' False '(0, 7)' ""
npy "$OUT/npy/unaligned.npy" '<f8' False '(1,)' "$D1"
printf '\223NUMPY\001\000\065\000{"descr":"<f8","fortran_order":False,"shape":(1,)}\n'"$D1" \
  >"$OUT/npy/dquote_unaligned.npy"

# bad CASE FILE DESCR FORTRAN SHAPE DATA [MAJOR]: a malformed file of tests/badinput.sh, alone
# (npy target) and in place of its file in the good set (lattice target).
bad() {
  name=$1 which=$2
  shift 2
  rm -rf "$W/b"
  cp -r "$W/good" "$W/b"
  npy "$W/b/$which" "$@"
  cp "$W/b/$which" "$OUT/npy/bad_$name.npy"
  lattice "bad_$name" "$W/b"
}
bad fortran E '<f4' True '(5, 3)' "$E_DATA"
bad bigendian A '>f8' False '(3, 3)' "$A_DATA"
bad wrongdtype E '<i2' False '(5, 3)' "$(rep 15 '\001\000')"
bad wrongshape_A A '<f8' False '(3, 4)' "$(rep 12 "$D0")"
bad wrongshape_E E '<f4' False '(15,)' "$E_DATA"
bad lengths_mismatch N '<i8' False '(2,)' "$Q2$Q4"
bad negative_length N '<i8' False '(2,)' "$Q6$QM1"
bad truncated_data E '<f4' False '(5, 3)' "$(rep 14 "$F0")"
bad badversion E '<f4' False '(5, 3)' "$E_DATA" 9
bad nan_E E '<f4' False '(5, 3)' "$(rep 4 "$F1$F0$F0")$F0$FNAN$F0"
bad posinf_A A '<f8' False '(3, 3)' "$D0$D1$DNINF$D1$D0$DPINF$D0$D0$D1"
bad nan_S S '<f4' False '(3,)' "$F0$FNAN$F0"
bad rank_not_permutation R '<i4' False '(3,)' "$I2$I0$I2"
bad rank_out_of_range R '<i4' False '(3,)' "$I0$I3$I1"
bad three_dims E '<f4' False '(1, 5, 3)' "$E_DATA"
bad huge_shape E '<f4' False '(4611686018427387904, 4)' "$E_DATA"
printf "\\223NUMPY\\001\\000\\166\\000{'descr': '<i8', 'fortr" >"$OUT/npy/bad_truncated_header.npy"
printf 'PK\003\004 this is a zip file, not a .npy file\n' >"$OUT/npy/bad_badmagic.npy"
: >"$OUT/npy/bad_empty.npy"

mkdir -p "$W/synth"
"$VITESSE" synth -o "$W/synth" --labels 6 --sentences 3 --mean-length 4 --seed 13 >/dev/null
for f in E N A S F R; do cp "$W/synth/$f.npy" "$W/synth/$f"; done
lattice synth_L6 "$W/synth"

# ---- corpora --------------------------------------------------------------------------------
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

Dogs NNS B-NP
bark VBP B-VP
loudly RB B-ADVP
! . O
EOF
C=$OUT/conll
cp "$W/train.txt" "$C/spaces.txt"
tr ' ' '\t' <"$W/train.txt" >"$C/tabs.txt"
sed 's/$/\r/' "$W/train.txt" >"$C/crlf.txt"
printf '# a comment\nthe\tDT\n# another\ncat\tNN\n\n#only a comment\n\n' >"$C/comments.txt"
printf '# sent_id = 1\n# text = Don'"'"'t go.\n1-2\tDon'"'"'t\t_\t_\t_\t_\t_\t_\t_\t_\n1\tDo\tdo\tAUX\tVBP\t_\t3\taux\t_\t_\n2\tn'"'"'t\tnot\tPART\tRB\t_\t3\tadvmod\t_\t_\n3\tgo\tgo\tVERB\tVB\t_\t0\troot\t_\t_\n3.1\tgo\t_\t_\t_\t_\t_\t_\t_\t_\n4\t.\t.\tPUNCT\t.\t_\t3\tpunct\t_\tSpaceAfter=No\n\n' >"$C/conllu.txt"
printf 'the DT B-NP\ncat NN\n' >"$C/bad_ragged.txt"
printf 'a b c\nd e f\ng h i\nj k l\nm n o\n\n' >"$C/bad_too_long.txt"
printf 'no final newline\tX' >"$C/no_final_newline.txt"
printf '\n\n \t \n\nx y\n\n\n' >"$C/blank_lines.txt"
gzip -9 -n -c "$W/train.txt" >"$C/train.gz"
gzip -9 -n -c "$W/train.txt" | head -c 40 >"$C/bad_truncated.gz"

# ---- templates ------------------------------------------------------------------------------
T=$OUT/template
cat >"$T/chunk.tmpl" <<'EOF'
# word and POS features
U00:%x[-2,0]
U01:%x[-1,0]
U02:%x[0,0]
U05:%x[-1,0]/%x[0,0]
U10:%x[0,1]
U16:%x[-1,1]/%x[0,1]
U30:%X[0,0]
B
EOF
cat >"$T/regex.tmpl" <<'EOF'
U30:%m[0,0,".?.?.?$"]
U31:%m[0,0,"^.?.?"]
U32:%t[0,0,"^\u"]
U33:%T[0,0,"\d"]/%X[0,0]
U34:%M[0,0,"\u\l*"]
U35:%m[0,0,"\d\d?"]
U36:%m[-1,0,"B."]
U37:%t[0,0,"^\A*$"]
U38:%m[0,0,"x$"]
U39:%m[0,0,"\p"]
U40:%m[1,1,"\\\w\s\S\a\W"]
EOF
printf 'U00:%%x[-2,0]\r\nU01:%%x[0,0]\r\n  U06:%%x[3,1]  \nU\nB\nB10:%%x[0,1]\n' >"$T/crlf_bigram.tmpl"
printf 'U00:%%x[0,0\n' >"$T/bad_unterminated.tmpl"
printf 'U00:%%x[a,0]\n' >"$T/bad_row.tmpl"
printf 'U00:%%x[2147483647,0]/%%x[-2147483648,0]\n' >"$T/big_rows.tmpl"
printf 'U00:%%x[0,5]/%%m[-1,4,"\\d*"]\nU01:%%x[0,99999999999]\n' >"$T/bad_col.tmpl"
printf 'U00:%%m[0,0,"a**"]\n' >"$T/bad_regex.tmpl"
printf 'U00:%%t[0,0,"\\\\"\n' >"$T/bad_regex_open.tmpl"
printf 'X00:%%x[0,0]\n' >"$T/bad_kind.tmpl"
printf 'U00:%%q[0,0]\n' >"$T/bad_macro.tmpl"
# Patterns that made the recursive matcher exponential (".*" 16 times, then a byte that is not
# there) and deep (200 '?' items): the bounded search answers at once.
awk 'BEGIN { printf "U00:%%t[0,0,\""; for (i = 0; i < 16; i++) printf ".*"; print "Q\"]";
  printf "U01:%%m[0,0,\""; for (i = 0; i < 200; i++) printf "a?"; print "\"]" }' \
  >"$T/regex_bounds.tmpl"

# ---- models ---------------------------------------------------------------------------------
"$VITESSE" train --template "$T/chunk.tmpl" --train "$W/train.txt" --epochs 2 --quiet \
  -o "$OUT/textmodel/chunk.model" >/dev/null
"$VITESSE" train --template "$T/regex.tmpl" --train "$W/train.txt" --epochs 1 --quiet \
  -o "$OUT/textmodel/regex.model" >/dev/null
printf 'U02:%%x[0,0]\nB01:%%x[0,1]\n' >"$W/obsb.tmpl"
"$VITESSE" train --template "$W/obsb.tmpl" --train "$W/train.txt" --epochs 1 --quiet \
  -o "$OUT/textmodel/obs_bigram.model" >/dev/null
# (joint models grow fast with the corpus: a 4-token one keeps the seeds a few KB)
head -n 4 "$W/train.txt" >"$W/short.txt"
"$VITESSE" train --joint-chunk --train "$W/short.txt" --epochs 2 --quiet \
  -o "$OUT/chunkmodel/joint.model" >/dev/null
"$VITESSE" train --joint-chunk --train "$W/short.txt" --epochs 1 --chunk-types all \
  --collapse paper --quiet -o "$OUT/chunkmodel/joint_all_collapsed.model" >/dev/null
head -c 200 "$OUT/chunkmodel/joint.model" >"$OUT/chunkmodel/bad_truncated.model"
head -c 200 "$OUT/textmodel/chunk.model" >"$OUT/textmodel/bad_truncated.model"
cp "$W/train.txt" "$OUT/textmodel/bad_not_a_model"

# The crash fixed before (tests/chunk_badinput.sh, case name_offset_past_section): valid
# checksums, and the first POS name's end offset 1 GiB past the names section.
u64() { od -An -t u8 -j "$2" -N 8 "$1" | tr -d ' '; }
le32() { printf "$(printf '\\%03o\\%03o\\%03o\\%03o' $(($1 & 255)) $(($1 >> 8 & 255)) \
  $(($1 >> 16 & 255)) $(($1 >> 24 & 255)))"; }
put() { dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null; }
crc32() { gzip -c | tail -c 8 | head -c 4; }
c=$OUT/chunkmodel/crash_name_offset_past_section.model
cp "$OUT/chunkmodel/joint.model" "$c"
pos_off=$(u64 "$c" $((64 + 32 + 8)))
pos_size=$(u64 "$c" $((64 + 32 + 16)))
le32 1073741824 | put "$c" $((pos_off + 4))
dd if="$c" bs=1 skip="$pos_off" count="$pos_size" 2>/dev/null | crc32 | put "$c" $((64 + 32 + 24))
le32 0 | put "$c" 24
head -c $((64 + 7 * 32)) "$c" | crc32 | put "$c" 24
# ---- peer models ------------------------------------------------------------------
# CRF++ (binary, text) and Wapiti models written by the test program's own writers
# (tests/peer_write.h): valid ones, a wrong version, truncated ones. TEST_PEER defaults to the
# test_peer next to VITESSE's build tree.
TEST_PEER=${TEST_PEER:-$(dirname "$VITESSE")/tests/test_peer}
"$TEST_PEER" --case write_seeds --write-seeds "$OUT" >/dev/null
# A CRF++ text model whose feature ids overlap (refused), and a Wapiti model whose patterns made
# the recursive matcher exponential and deep (tagged at once now).
printf 'version: 100\ncost-factor: 1\nmaxid: 4\nxsize: 1\n\nA\nB\n\nU:%%x[0,0]\n\n0 U:a\n1 U:b\n\n0.5\n0.25\n1\n2\n' \
  >"$OUT/crfpp/bad_overlap.model.txt"
awk 'BEGIN { p1 = "u00:%t[0,0,\""; for (i = 0; i < 16; i++) p1 = p1 ".*"; p1 = p1 "Q\"]";
  p2 = "u01:%m[0,0,\""; for (i = 0; i < 200; i++) p2 = p2 "a?"; p2 = p2 "\"]";
  print "#mdl#2#2"; print "#rdr#2/1/0"; print length(p1) ":" p1 ","; print length(p2) ":" p2 ",";
  print "#qrk#2"; print "1:A,"; print "1:B,"; print "#qrk#2"; print "9:u00:false,"; print "4:u01:,";
  print "0=0x1p-1"; print "3=-0x1p-1" }' >"$OUT/wapiti/regex_bounds.model"

# Size-driven cases, bigger than the fuzzers' default input (run them with -max_len): models
# declaring more labels than the fuzz targets' memory bound allows (2,000: refused before
# allocating), one of 300 labels that loads, and a Wapiti model of 300 labels with 200 bigram
# observations (its weights read as a list, not a dense block per observation).
crfpp_labels() {
  awk -v L="$1" 'BEGIN { printf "version: 100\ncost-factor: 1\nmaxid: %d\nxsize: 1\n\n", L
    for (i = 0; i < L; i++) print "l" i; print ""; print "U00:%x[0,0]"; print ""
    print "0 U00:The"; print ""; for (i = 0; i < L; i++) print (i % 7 ? "0" : "0.5") }'
}
wapiti_labels() { # L O KIND
  awk -v L="$1" -v O="$2" -v K="$3" 'BEGIN { printf "#mdl#2#%d\n#rdr#1/1/0\n9:%s:%%x[0,0],\n", O, K
    printf "#qrk#%d\n", L; for (i = 0; i < L; i++) printf "%d:l%d,\n", length("l" i), i
    printf "#qrk#%d\n", O
    for (o = 0; o < O; o++) printf "%d:%s:%d,\n", length(K ":" o), K, o
    for (o = 0; o < O; o++) printf "%d=0x1p-%d\n", o * (K == "b" ? L * L : L) + o, o % 9 + 1 }'
}
crfpp_labels 2000 >"$OUT/crfpp/size_many_labels.model.txt"
crfpp_labels 300 >"$OUT/crfpp/size_300_labels.model.txt"
wapiti_labels 2000 1 u >"$OUT/wapiti/size_many_labels.model"
wapiti_labels 300 200 b >"$OUT/wapiti/size_bigram_observations.model"

# ---- CRFsuite models and item files (tests/crfsuite_seeds.c, built beside VITESSE) ----------
"$(dirname "$VITESSE")/tests/crfsuite_seeds" "$OUT"

# ---- item files for CRF training (tests/crf_train/items.awk, and bad and escaped items) ------
awk -v N=6 -f "$(dirname "$0")/../crf_train/items.awk" >"$OUT/crftrain/small.items"
printf 'A\tx:nan\n' >"$OUT/crftrain/nan.items"
printf 'B-NP\tw=the\tpos\\:x:2.5\n\ty\nO\t\t\tz:-1e-3\n\n\nI-NP\ta\\\\b\n' >"$OUT/crftrain/escapes.items"
printf 'O\n\n' >"$OUT/crftrain/no_attrs.items"
# refused by the trainer's reader: a CRLF file, a label holding a control byte (0x0b)
printf 'A\tw=1\r\nB\tw=2\r\n\r\nA\r\n' >"$OUT/crftrain/bad_crlf.items"
printf 'A\tw=1\nB\013X\tw=2\n\n' >"$OUT/crftrain/bad_control_label.items"
# a truncated .gz item file (an error naming the file, never the items read so far)
awk -v N=40 -f "$(dirname "$0")/../crf_train/items.awk" | gzip -9 -n -c | head -c 200 \
  >"$OUT/crfsitems/bad_truncated.items.gz"
# a column corpus whose label holds a NUL (read here; the trainer refuses it)
printf 'w1\tA\nw2\tB\000X\n\n' >"$OUT/conll/bad_nul_label.txt"

echo "make_seeds: $(find "$OUT" -type f | wc -l) files, $(du -sk "$OUT" | cut -f1) KB in $OUT"
