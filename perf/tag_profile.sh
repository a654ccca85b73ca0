#!/bin/sh
# perf/tag_profile.sh VITESSE MODEL INPUT [tag options...]: where one-thread `vitesse tag` spends
# its time. Samples the run with `perf record` (linux-perf; 4 kHz CPU clock, no call
# graph: the Release build has no frame pointers) and prints the share of each function over 0.5%
# and of each phase: reading (CoNLL parse), template expansion, hashing and feature lookup
# (hashing is inlined into vt_text_emissions, with the prefetches of the hash slots and records),
# weight-row sums (dense and sparse adds, row-cache copies: memmove), decoding (engine/decode and
# the max-plus kernels), formatting and writing, the rest (kernel, allocator, start-up). With a
# CRFsuite model and item file: reading (the item reader, its line splits and copies, the
# kernel's read), fields + lookup + rows (crfs_rows_level: the field scan, the hashes, the probes
# and the row additions are one inlined loop per instruction set), the model's load.
set -eu
if [ $# -lt 3 ]; then
  echo "usage: $0 VITESSE MODEL INPUT [tag options...]" >&2
  exit 64
fi
V=$1 M=$2 IN=$3
shift 3
P=$(mktemp "${TMPDIR:-/tmp}/vt_tag_profile.XXXXXX")
trap 'rm -f "$P" "$P.txt"' EXIT
perf record -q -o "$P" -F 4000 "$V" tag -m "$M" --threads 1 "$@" "$IN" -o /dev/null 2>/dev/null
perf report -i "$P" --no-children --stdio --sort symbol 2>/dev/null |
  sed -n 's/^ *\([0-9.]*\)% *\[[.k]\] \([^ ]*\).*/\1 \2/p' >"$P.txt"
echo "# functions (>= 0.5%)"
awk '$1 >= 0.5 { printf "%6.2f%%  %s\n", $1, $2 }' "$P.txt"
echo "# phases"
awk '
function phase(f) {
  if (f ~ /conll_read|corpus_feed|sentbatch|split_fields|read_line/) return "reading (CoNLL parse)"
  if (f ~ /items_read|memchr|copy_to_iter|filemap/) return "reading (items, lines)"
  if (f ~ /crfs_rows/) return "fields + lookup + rows"
  if (f ~ /add_f64/) return "dense rows"
  if (f ~ /crfs_index_build|load_crf1d|cqdb|refs_check|crfs_load|do_lookup_x|dl_relocate/) return "model load (+ dynamic linking)"
  if (f ~ /crfs_format/) return "formatting + writing"
  if (f ~ /tmpl_|match_here|regex|^lower/) return "template expansion"
  if (f ~ /text_emissions|textmodel_find|memcmp|rowcache|strhash|slot_record/)
    return "hashing + feature lookup"
  if (f ~ /add_f32|add_features|add_unigram|memmove|memcpy|memset/)
    return "weight-row sums (+ row-cache copies)"
  if (f ~ /maxplus|range_|argmax|gather_|row_|degen|forward|backward|column_|prune|expand_far|astar|agenda|lb_|vt_decode|viterbi|staggered|path_score|scan_above|bounds|heap/)
    return "decoding"
  if (f ~ /put_sentence|put_prob|textbuf|corpus_out|output|sink|write/) return "formatting + writing"
  return "other"
}
{ s[phase($2)] += $1 }
END { for (p in s) printf "%6.2f%%  %s\n", s[p], p }' "$P.txt" | sort -rn
