# tests/case_env.sh: the start the test scripts called as `SCRIPT VITESSE CASE` share
# (tag_resume.sh, decode_resume.sh, crf_train_cli.sh, learn_cli.sh, crf_learn_cli.sh,
# progress_lines.sh, text_cli.sh, train_harden.sh), sourced at
# their top with SUITE set (the name their messages begin with) and their arguments unchanged:
# checks the arguments, sets VITESSE and CASE, makes a scratch folder (removed at exit) and goes
# into it, and defines fail MESSAGE: "SUITE.CASE: FAIL: MESSAGE" and ./stderr (when not empty) on
# stderr, exit 1.
if [ $# -lt 2 ]; then
  echo "usage: $0 VITESSE CASE" >&2
  exit 64
fi
# shellcheck disable=SC2034 # the caller's
VITESSE=$1
CASE=$2
base=$(mktemp -d "${TMPDIR:-/tmp}/vt_$SUITE.XXXXXX") || exit 1
trap 'rm -rf "$base"' EXIT
trap 'exit 130' INT TERM
cd "$base" || exit 1

fail() {
  printf '%s.%s: FAIL: %s\n' "$SUITE" "$CASE" "$*" >&2
  [ -s stderr ] && { printf -- '--- stderr:\n' >&2; cat stderr >&2; }
  exit 1
}
