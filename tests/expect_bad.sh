# tests/expect_bad.sh: sourced by the CLI test scripts that refuse hostile input (crf_train_cli.sh,
# train_harden.sh, the resume and checkpoint tests, ...); they define fail MESSAGE.
# expect_refused WHAT CMD...: CMD exits 2 with one line on stderr, "vitesse: ..." naming WHAT
# (its stdout in ./stdout, its stderr in ./stderr).
expect_refused() {
  what=$1
  shift
  "$@" >stdout 2>stderr
  rc=$?
  [ "$rc" -eq 2 ] || fail "exit $rc, want 2: $*"
  [ "$(wc -l <stderr)" -eq 1 ] || fail "stderr has $(wc -l <stderr) lines, want 1: $*"
  grep -q "^vitesse: .*$what" stderr || fail "message lacks '$what': $(cat stderr)"
}
# expect_bad WHAT CMD...: CMD is refused as expect_refused says and leaves nothing in out/ (where
# the scripts keep their outputs).
expect_bad() {
  expect_refused "$@"
  [ -z "$(ls -A out)" ] || fail "model left behind: $(ls -A out)"
}
