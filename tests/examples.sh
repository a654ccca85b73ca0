#!/bin/sh
# examples.sh DIR VITESSE: runs the example programs in DIR (examples/*.c, built) and checks that
# each writes the bytes the CLI writes for the same input: tag_corpus = vitesse tag, tag_tokens =
# vitesse tag -k 5, decode_npy = vitesse decode, and train's model = vitesse train's model.
set -eu
dir=$1
vitesse=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
fail() { echo "examples: $*" >&2; exit 1; }

# train: the model trained in memory is the model `vitesse train` makes from the same corpus.
"$dir/train" --templates >t.tmpl
"$dir/train" --corpus >corpus.txt
"$dir/train" mem.model >train.out
grep -q "tagged right" train.out || fail "train printed no accuracy"
"$vitesse" train --template t.tmpl --train corpus.txt --epochs 5 --seed 1 --quiet -o cli.model
cmp mem.model cli.model || fail "train: the in-memory model differs from vitesse train's"

# tag_tokens: 5-best tagging of sentences held in memory = vitesse tag -k 5.
"$dir/tag_tokens" --corpus >tokens.txt
"$dir/tag_tokens" mem.model >tokens.api
"$vitesse" tag -m mem.model -k 5 tokens.txt -o tokens.cli
cmp tokens.api tokens.cli || fail "tag_tokens differs from vitesse tag -k 5"
test "$(grep -c '^# ' tokens.api)" -gt 4 || fail "tag_tokens printed no k-best paths"

# tag_corpus: the engine over a corpus file, any thread count = vitesse tag.
"$vitesse" tag -m mem.model corpus.txt -o corpus.cli
for threads in 1 2 3; do
  "$dir/tag_corpus" mem.model corpus.txt corpus.api $threads 2>/dev/null
  cmp corpus.api corpus.cli || fail "tag_corpus ($threads threads) differs from vitesse tag"
done

# decode_npy: score lattices through the engine = vitesse decode.
mkdir lat
"$vitesse" synth -o lat --labels 40 --sentences 120 --seed 7
for spec in "viterbi 1" "staggered-col 1" "iter-viterbi-astar 3"; do
  set -- $spec
  "$dir/decode_npy" lat "$1" "$2" >dec.api 2>/dev/null
  "$vitesse" decode --emissions lat/E.npy --lengths lat/N.npy --transitions lat/A.npy \
    --start lat/S.npy --end lat/F.npy --rank lat/R.npy --algo "$1" -k "$2" -o dec.cli
  cmp dec.api dec.cli || fail "decode_npy $1 -k $2 differs from vitesse decode"
done
echo "examples: passed"
