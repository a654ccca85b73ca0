#!/bin/sh
# layering.sh [ROOT]: checks that no C file of the tree under ROOT (default: this checkout)
# includes a header from a higher layer. Each folder's layer comes from the one table below; a
# folder holding C files that the table does not list is an error, so no folder goes unchecked.
# Every `#include "x.h"` (or "folder/x.h") is resolved to the folder holding x.h. Prints
# `FILE:LINE: includes HEADER from higher layer LAYER` for each violation and exits 1 on any
# problem, 0 when the tree is clean. Since each library layer is one folder and a folder may
# include only its own layer or lower ones, there can be no include cycle between folders.
#
# Every header's include guard follows its path from the include root (engine/ dropped):
# engine/models/model_file.h has VT_MODELS_MODEL_FILE_H, io/readall.h VT_IO_READALL_H,
# tests/harness.h VT_TESTS_HARNESS_H: its first #ifndef and the #define after it name it.
#
# No file stem (the name without .c or .h) is in two library folders (ranks up to 10): a name says
# which room a file is in (engine/api/constraints.c, the public vt_constraints; engine/text/
# allowed_labels.c, the work under it).
#
# The table: one line per folder (relative to ROOT), its rank; lower ranks are lower layers. A
# file may include headers of its own rank or lower. engine/ holds only the public header
# vitesse.h (types and declarations), which every layer may include, so it has the lowest rank.
# perf, tests and examples sit on top and may include anything. A folder marked `front` is a
# front end of the library (the CLI, the Python binding): it may include only the public header
# and its own headers; a fourth field names the one other front end whose headers it may include
# (vitesse-mpi parses its options with the CLI's own parsers).
set -eu
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
table='
engine          0
alloc           1
engine/core     2
io              3
engine/decode   4
engine/text     5
engine/chunk    6
engine/models   7
engine/train    8
engine/sched    9
engine/api     10
engine/cli     11  front
python/src     11  front
mpi            12  front engine/cli
perf           12
tests          12
tests/install  12
tests/fuzz     12
examples       12
'

# The tree's C files: the tracked and untracked-but-not-ignored ones in a git checkout (so build
# folders are left out), every one under ROOT otherwise.
list_files() {
  if git -C "$root" rev-parse --show-toplevel 2>/dev/null | grep -qx "$(cd "$root" && pwd -P)"; then
    git -C "$root" ls-files -co --exclude-standard -- '*.c' '*.h' '*.inc'
  else
    (cd "$root" && find . -type f \( -name '*.c' -o -name '*.h' -o -name '*.inc' \) |
      sed 's|^\./||')
  fi
}

files=$(list_files | sort)
[ -n "$files" ] || { echo "layering.sh: no C files under $root" >&2; exit 1; }

# awk reads the table, then the list of files (to know where each header lives), then every file.
cd "$root"
printf '%s\n' "$files" | awk -v table="$table" '
function dir_of(p) { return (p ~ /\//) ? substr(p, 1, match(p, /\/[^\/]*$/) - 1) : "." }
function base_of(p) { sub(/.*\//, "", p); return p }
BEGIN {
  n = split(table, lines, "\n")
  for (i = 1; i <= n; i++) {
    k = split(lines[i], f, " ")
    if (k >= 2) rank[f[1]] = f[2] + 0
    if (k >= 3 && f[3] == "front") front[f[1]] = 1
    if (k == 4) uses[f[1]] = f[4]
  }
  bad = 0
}
# The file list, from stdin; the files themselves are read at the end.
{
  path[NR] = $0; nfiles = NR; exists[$0] = 1
  b = base_of($0)
  if (b in where && where[b] != dir_of($0)) where[b] = "?"  # the same name in two folders
  else where[b] = dir_of($0)
  next
}
END {
  for (i = 1; i <= nfiles; i++) { # a stem in two library folders
    file = path[i]; d = dir_of(file)
    if (!(d in rank) || rank[d] > 10 || (d in front)) continue
    st = base_of(file); sub(/\.[ch]$/, "", st)
    if ((st in room) && room[st] != d) {
      printf "%s: the stem %s is in %s too: one name, one room\n", file, st, room[st]
      bad = 1
    } else room[st] = d
  }
  for (i = 1; i <= nfiles; i++) {
    file = path[i]; d = dir_of(file)
    if (!(d in rank)) {
      printf "%s: folder %s is not in the layer table of tests/layering.sh\n", file, d
      bad = 1; continue
    }
    lineno = 0
    guard = ""; defined = 0
    if (file ~ /\.h$/) {
      want = file; sub(/^engine\//, "", want); want = "VT_" toupper(want); gsub(/[\/.]/, "_", want)
    }
    while ((getline line < file) > 0) {
      lineno++
      if (file ~ /\.h$/ && guard == "" && line ~ /^#ifndef[ \t]/) {
        guard = line; sub(/^#ifndef[ \t]+/, "", guard); sub(/[ \t].*/, "", guard)
        if (guard != want) {
          printf "%s:%d: include guard %s, expected %s (its path)\n", file, lineno, guard, want
          bad = 1
        }
      } else if (guard != "" && !defined && line ~ /^#define[ \t]/) {
        defined = 1
        g = line; sub(/^#define[ \t]+/, "", g); sub(/[ \t].*/, "", g)
        if (g != guard) {
          printf "%s:%d: #define %s after #ifndef %s\n", file, lineno, g, guard
          bad = 1
        }
      }
      if (line !~ /^[ \t]*#[ \t]*include[ \t]*"/) continue
      h = line; sub(/^[ \t]*#[ \t]*include[ \t]*"/, "", h); sub(/".*/, "", h)
      # Resolve like the compiler: next to the including file, then from the root, from
      # engine/ (the public include folder), then by bare name among all headers.
      if ((d "/" h) in exists) hd = dir_of(d "/" h)
      else if (h in exists) hd = dir_of(h)
      else if (("engine/" h) in exists) hd = dir_of("engine/" h)
      else if (h !~ /\// && base_of(h) in where) hd = where[base_of(h)]
      else {
        printf "%s:%d: includes %s, which is not in the tree\n", file, lineno, h
        bad = 1; continue
      }
      if (hd == "?") {
        printf "%s:%d: includes %s, which more than one folder holds\n", file, lineno, h
        bad = 1; continue
      }
      if (!(hd in rank)) continue  # reported above, as a file of that folder
      if (rank[hd] > rank[d]) {
        printf "%s:%d: includes %s from higher layer %s\n", file, lineno, h, hd
        bad = 1
      } else if ((d in front) && hd != d && rank[hd] > 0 && !((d in uses) && uses[d] == hd)) {
        printf "%s:%d: includes %s from %s: a front end includes only vitesse.h and its own headers\n", file, lineno, h, hd
        bad = 1
      }
    }
    close(file)
    if (file ~ /\.h$/ && guard == "") {
      printf "%s: no include guard (expected %s)\n", file, want
      bad = 1
    }
  }
  exit bad
}' -
