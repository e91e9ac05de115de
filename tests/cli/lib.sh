# Sourced by tests/cli/t*.sh: a small git-t/-like harness.
#   expect_success 'what it checks' 'commands'   (commands chained with &&)
#   expect_failure 'what it checks' 'commands'   (must exit non-zero)
#   test_cmp expected actual                     (diff -u, fails on difference)
#   test_done
# Programs are on PATH; $DATA is tests/data; each script runs in its own
# temporary directory, removed at the end.
set -u
PATH="$LBT_BIN:$PATH"; export PATH
DATA="$LBT_TOP/tests/data"; export DATA
TOP="$LBT_TOP"
test_name=$(basename "$0" .sh)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
n=0 failed=0
LC_ALL=C; TZ=UTC; export LC_ALL TZ

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

test_cmp() { diff -u "$1" "$2"; }

test_done() { [ "$failed" -eq 0 ]; }
