# Sourced by tests/cli/t*.sh: a small git-t/-like harness.
#   expect_success 'what it checks' 'commands'   (commands chained with &&)
#   expect_failure N 'what it checks' 'commands' (must exit exactly N, a status
#                                                 in 1..125 other than 86)
#   test_cmp expected actual                     (diff -u, fails on difference)
#   test_expect_code N cmd ...                   (exactly exit status N)
#   test_must_fail cmd ...                       (exit 1..125 but 86: an error, not a
#                                                 crash or a sanitizer report; prefer
#                                                 test_expect_code with the documented
#                                                 status)
#   status_to FILE cmd ...                       (run cmd, write its exit status to
#                                                 FILE: for the left side of a pipe)
#   test_have prog                               (true when prog is on PATH)
#   skip 'why' 'what it checks'                  (record a skipped check)
#   test_done
# A negative check names the status it expects: every lbt program exits 1
# for a bad option or value and for an input that could not be read (lbt(1),
# EXIT STATUS).  Never '! cmd' or 'cmd || true' on a program under test: a
# crash (exit 128+signal) or a sanitizer report (86) would pass as a failure.
# Nor a program under test on the left of a pipe, whose status the shell
# drops (a leak report comes after complete output): write to a file, or
# use status_to when the pipe itself is the point.
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

# expect_failure N 'what' 'commands': ok when the commands exit exactly N.
# N must be an error status a program can mean (1..125, not the sanitizer's
# 86); a call without it is a mistake in the test, reported as a failure.
expect_failure() {
	n=$((n + 1))
	if [ $# -ne 3 ] || ! valid_failure_code "$1"; then
		[ $# -eq 3 ] && shift
		record "not ok" "$1 (expect_failure needs N 'what' 'commands', N in 1..125 but 86)"
		failed=$((failed + 1)); return
	fi
	(eval "$3") > "$tmp/.out" 2>&1
	_rc=$?
	if [ "$_rc" -eq "$1" ]; then record ok "$2"; return; fi
	if [ "$_rc" -eq 0 ]; then record "not ok" "$2 (succeeded, should exit $1)"
	else record "not ok" "$2 (exit $_rc, should exit $1)"; fi
	sed 's/^/#   /' "$tmp/.out"; failed=$((failed + 1))
}

# True when $1 is a number in 1..125 other than 86.
valid_failure_code() {
	case $1 in ''|*[!0-9]*) return 1 ;; esac
	[ "$1" -ge 1 ] && [ "$1" -le 125 ] && [ "$1" -ne 86 ]
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

# Run "$@" (from argument 2 on); succeed when it exits with status $1.  A
# status that is not a number is a mistake in the test, never a pass.
test_expect_code() {
	_want=$1; shift
	case $_want in ''|*[!0-9]*)
		echo "test_expect_code: '$_want' is not an exit status" >&2; return 1 ;;
	esac
	"$@"
	_rc=$?
	if [ "$_rc" -ne "$_want" ]; then
		echo "test_expect_code: '$*' exited $_rc, want $_want" >&2; return 1
	fi
	return 0
}

# Run "$@" and write its exit status to $1 (a pipeline drops it).
status_to() {
	_file=$1; shift
	"$@"
	echo $? > "$_file"
}

test_have() { command -v "$1" >/dev/null 2>&1; }

# live_ns NAME ADDR... - a network namespace of this test's own for a live
# HAProxy (needs root, haproxy, curl, ip): $ns is its name (NAME-$$), its
# loopback is up with ADDR each (/32 or /128, documentation ranges only),
# and on exit HAProxy ($pid, when set) is stopped, the namespace deleted
# and $tmp removed.  A machine that cannot is "not ok", never a skip.
live_ns() {
	PATH=/usr/sbin:/sbin:$PATH
	if [ "$(id -u)" -ne 0 ]; then
		record "not ok" "live HAProxy test needs root for ip netns (run make check as root)"
		exit 1
	fi
	test_have haproxy || missing haproxy
	test_have curl || missing curl
	test_have ip || missing "ip (iproute2)"
	ns=$1-$$
	pid=""
	shift
	trap live_ns_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	if ! ip netns add "$ns" 2>/dev/null; then
		record "not ok" "live HAProxy test: this machine refuses network namespaces (ip netns add)"
		exit 1
	fi
	ip -n "$ns" link set lo up
	for a in "$@"; do
		case $a in
		*:*) ip -n "$ns" addr add "$a/128" dev lo nodad ;;
		*) ip -n "$ns" addr add "$a/32" dev lo ;;
		esac
	done
}

# Stop HAProxy, delete the namespace, remove the scratch directory.
live_ns_cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	ip netns del "$ns" 2>/dev/null
	rm -rf "$tmp"
}

test_done() { [ "$failed" -eq 0 ]; }
