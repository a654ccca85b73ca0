#!/bin/sh
# symbols.sh LIBRARY HEADER: the shared library exports exactly the functions HEADER declares
# VT_API. Every `VT_API ... name(` of HEADER (comments and the VT_API #defines aside, a
# declaration may span lines) must be a defined dynamic symbol of LIBRARY (nm -D
# --defined-only), and every such symbol must be declared so. Lists each difference and exits 1
# on any; new VT_API functions need nothing here.
set -eu
if [ $# -ne 2 ]; then
  echo "usage: $0 LIBRARY HEADER" >&2
  exit 64
fi
lib=$1
header=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Declared: the identifier right before the first '(' after each VT_API.
awk '
  { text = text $0 "\n" }
  END {
    gsub(/\/\*([^*]|\*+[^*\/])*\*+\//, " ", text)  # block comments
    gsub(/\/\/[^\n]*/, " ", text)                  # line comments
    gsub(/#[ \t]*define[ \t]+VT_API[^\n]*/, " ", text)
    gsub(/[\n\t]/, " ", text)
    while ((i = index(text, "VT_API")) > 0) {
      text = substr(text, i + 6)
      decl = substr(text, 1, index(text, "(") - 1)
      sub(/[ ]+$/, "", decl)
      if (match(decl, /[A-Za-z_][A-Za-z0-9_]*$/)) print substr(decl, RSTART, RLENGTH)
    }
  }' "$header" | sort -u >"$tmp/declared"
[ -s "$tmp/declared" ] || { echo "symbols.sh: no VT_API declaration found in $header" >&2; exit 1; }

# Exported: defined dynamic symbols, less the linker's own (absolute ones, _init, _fini), with
# any version suffix dropped.
nm -D --defined-only "$lib" >"$tmp/nm"
awk '$(NF - 1) != "A" { n = $NF; sub(/@.*/, "", n); if (n != "_init" && n != "_fini") print n }' \
  "$tmp/nm" | sort -u >"$tmp/exported"

status=0
for s in $(comm -23 "$tmp/exported" "$tmp/declared"); do
  echo "symbols.sh: $lib exports $s, which $header does not declare VT_API"
  status=1
done
for s in $(comm -13 "$tmp/exported" "$tmp/declared"); do
  echo "symbols.sh: $header declares $s VT_API, which $lib does not export"
  status=1
done
[ $status -ne 0 ] || echo "symbols.sh: $(wc -l <"$tmp/exported") exported symbols, all declared VT_API"
exit $status
