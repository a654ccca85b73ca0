# tests/close_lines.sh: sourced by crf_train_cli.sh and learn_cli.sh.
# close_lines A B TOL: the files of numbers A and B, one a line, agree line by line to the relative
# tolerance TOL (|a - b| <= TOL * (|a| + 1)) and have lines; prints the lines that do not.
close_lines() {
  paste "$1" "$2" | awk -v tol="$3" '
    { n++; d = $1 - $2; if (d < 0) d = -d; m = ($1 < 0 ? -$1 : $1) + 1
      if (NF != 2 || d > tol * m) { print "line " n ": " $1 " vs " $2; bad = 1 } }
    END { if (n == 0) { print "no lines"; bad = 1 } exit bad }'
}
