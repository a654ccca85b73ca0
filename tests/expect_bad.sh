# tests/expect_bad.sh: sourced by the CLI test scripts that refuse hostile input (crf_train_cli.sh,
# train_harden.sh); they define fail MESSAGE and keep their outputs in out/.
# expect_bad WHAT CMD...: CMD exits 2 with one line on stderr, "vitesse: ..." naming WHAT, and
# leaves nothing in out/.
expect_bad() {
  what=$1
  shift
  "$@" >stdout 2>stderr
  rc=$?
  [ "$rc" -eq 2 ] || fail "exit $rc, want 2: $*"
  [ "$(wc -l <stderr)" -eq 1 ] || fail "stderr has $(wc -l <stderr) lines, want 1: $*"
  grep -q "^vitesse: .*$what" stderr || fail "message lacks '$what': $(cat stderr)"
  [ -z "$(ls -A out)" ] || fail "model left behind: $(ls -A out)"
}
