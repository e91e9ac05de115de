# Sourced by tests/cli/t*.sh: a small git-t/-like harness.
#   expect_success 'what it checks' 'commands'   (commands chained with &&)
#   expect_failure 'what it checks' 'commands'   (must exit non-zero)
#   test_cmp expected actual                     (diff -u, fails on difference)
#   test_must_fail cmd ...                       (exit 1..125 but 86: an error, not a
#                                                 crash or a sanitizer report)
#   test_expect_code N cmd ...                   (exactly exit status N)
#   test_have prog                               (true when prog is on PATH)
#   skip 'why' 'what it checks'                  (record a skipped check)
#   test_done
# Programs are on PATH; $DATA is tests/data; each script runs in its own
# temporary directory, removed at the end.  Every check runs in a subshell
# with its output captured; on failure that output is shown.
set -u
PATH="$LBT_BIN:$PATH"; export PATH
DATA="$LBT_TOP/tests/data"; export DATA
TOP="$LBT_TOP"
test_name=$(basename "$0" .sh)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
n=0 failed=0
LC_ALL=C; TZ=UTC; export LC_ALL TZ
unset NO_COLOR
# A sanitizer report exits 86, which no program uses: an expected failure
# (exit 1) cannot hide it.
ASAN_OPTIONS="exitcode=86${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
UBSAN_OPTIONS="exitcode=86:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export ASAN_OPTIONS UBSAN_OPTIONS

record() {
	echo "$1 $test_name - $2" >> "$LBT_RESULTS"
	echo "$1 $test_name - $2"
}

expect_success() {
	n=$((n + 1))
	if (eval "$2") > "$tmp/.out" 2>&1; then record ok "$1"
	else record "not ok" "$1"; sed 's/^/#   /' "$tmp/.out"; failed=$((failed + 1)); fi
}

expect_failure() {
	n=$((n + 1))
	if (eval "$2") > "$tmp/.out" 2>&1; then
		record "not ok" "$1 (succeeded, should fail)"; failed=$((failed + 1))
	else record ok "$1"; fi
}

# A fixture or tool the suite needs is missing: a failure, never a skip.
missing() {
	record "not ok" "$1 is here"
	exit 1
}

skip() {
	record ok "$2 # SKIP $1"
}

test_cmp() { diff -u "$1" "$2"; }

# Run "$@"; succeed when it failed cleanly (exit 1..125, not killed by a signal).
test_must_fail() {
	"$@"
	_rc=$?
	if [ "$_rc" -eq 0 ]; then echo "test_must_fail: '$*' succeeded" >&2; return 1; fi
	if [ "$_rc" -gt 125 ] || [ "$_rc" -eq 86 ]; then
		echo "test_must_fail: '$*' died (exit $_rc)" >&2; return 1
	fi
	return 0
}

# Run "$@" (from argument 2 on); succeed when it exits with status $1.
test_expect_code() {
	_want=$1; shift
	"$@"
	_rc=$?
	if [ "$_rc" -ne "$_want" ]; then
		echo "test_expect_code: '$*' exited $_rc, want $_want" >&2; return 1
	fi
	return 0
}

test_have() { command -v "$1" >/dev/null 2>&1; }

test_done() { [ "$failed" -eq 0 ]; }
