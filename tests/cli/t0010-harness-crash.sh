#!/bin/sh
# The harness itself (lib.sh, run-cli.sh): a program killed by a signal or
# ending with a sanitizer report (exit 86) is "not ok" for expect_failure,
# test_must_fail and test_expect_code; the documented failure (exit 1) is
# "ok"; a script that stops before test_done is counted as failed.  The
# checks run in an inner script with its own results file, so that its
# "not ok" lines are what this script compares, not failures of the suite.
test_description='the test harness refuses crashes and sanitizer reports'
. "$LBT_TOP/tests/cli/lib.sh"

# Stubs standing for a program under test.
stub() {
	printf '#!/bin/sh\n%s\n' "$2" > "stub/$1" && chmod +x "stub/$1"
}
mkdir stub
stub segv 'ulimit -c 0; echo "out before the crash"; kill -SEGV $$'
stub killed 'kill -KILL $$'
stub asan 'echo "==1==ERROR: AddressSanitizer: heap-buffer-overflow" >&2; exit 86'
stub fail1 'echo "usage: fail1" >&2; exit 1'
stub fail2 'exit 2'
stub ok 'exit 0'
S=$PWD/stub; export S

# inner NAME - run the harness script NAME.sh (from stdin) with its own
# results file NAME.results; its output goes to NAME.out.
inner() {
	cat > "$1.sh" &&
	LBT_RESULTS="$PWD/$1.results" sh "$1.sh" > "$1.out" 2>&1
}

expect_success 'the stubs exit as a crash, a kill, a sanitizer and a usage error do' '
	test_expect_code 139 "$S/segv" >/dev/null && test_expect_code 137 "$S/killed" &&
	test_expect_code 86 "$S/asan" 2>/dev/null && test_expect_code 1 "$S/fail1" 2>/dev/null
'

expect_success 'status_to keeps the status of the left side of a pipe' '
	status_to rc "$S/segv" | cat >out && test "$(cat rc)" = 139 &&
	echo "out before the crash" >expect && test_cmp expect out &&
	status_to rc "$S/fail1" 2>/dev/null | cat && test "$(cat rc)" = 1 &&
	status_to rc "$S/ok" | cat && test "$(cat rc)" = 0
'

expect_success 'expect_failure N: only exit N is ok; a signal, 86, 0 or another code is not' '
	test_expect_code 1 inner ef <<-\EOF
	. "$LBT_TOP/tests/cli/lib.sh"
	expect_failure 1 "segv" "\"\$S/segv\""
	expect_failure 1 "killed" "\"\$S/killed\""
	expect_failure 1 "asan" "\"\$S/asan\""
	expect_failure 1 "ok" "\"\$S/ok\""
	expect_failure 1 "fail2" "\"\$S/fail2\""
	expect_failure 1 "fail1" "\"\$S/fail1\""
	expect_failure 2 "fail2 as 2" "\"\$S/fail2\""
	test_done
	EOF
	cat >expect <<-\EOF &&
	not ok ef - segv (exit 139, should exit 1)
	not ok ef - killed (exit 137, should exit 1)
	not ok ef - asan (exit 86, should exit 1)
	not ok ef - ok (succeeded, should exit 1)
	not ok ef - fail2 (exit 2, should exit 1)
	ok ef - fail1
	ok ef - fail2 as 2
	EOF
	test_cmp expect ef.results &&
	grep -F "#   out before the crash" ef.out &&
	grep -F "#   ==1==ERROR: AddressSanitizer" ef.out
'

expect_success 'expect_failure without a status, or with 0, 86 or 126: a mistake, not ok' '
	test_expect_code 1 inner efu <<-\EOF
	. "$LBT_TOP/tests/cli/lib.sh"
	expect_failure "old form" "\"\$S/fail1\""
	expect_failure 0 "zero" "\"\$S/ok\""
	expect_failure 86 "asan code" "\"\$S/asan\""
	expect_failure 126 "not executable" "./nosuch"
	expect_failure x "not a number" "\"\$S/fail1\""
	test_done
	EOF
	cat >expect <<-\EOF &&
	not ok efu - old form (expect_failure needs N '\''what'\'' '\''commands'\'', N in 1..125 but 86)
	not ok efu - zero (expect_failure needs N '\''what'\'' '\''commands'\'', N in 1..125 but 86)
	not ok efu - asan code (expect_failure needs N '\''what'\'' '\''commands'\'', N in 1..125 but 86)
	not ok efu - not executable (expect_failure needs N '\''what'\'' '\''commands'\'', N in 1..125 but 86)
	not ok efu - not a number (expect_failure needs N '\''what'\'' '\''commands'\'', N in 1..125 but 86)
	EOF
	test_cmp expect efu.results
'

expect_success 'test_must_fail: a signal, 86, 0 or a missing program is not ok; exit 1 or 2 is' '
	test_expect_code 1 inner mf <<-\EOF
	. "$LBT_TOP/tests/cli/lib.sh"
	for s in segv killed asan ok fail1 fail2; do
		expect_success "$s" "test_must_fail \"\$S/$s\""
	done
	expect_success "missing program" "test_must_fail ./nosuch"
	test_done
	EOF
	cat >expect <<-\EOF &&
	not ok mf - segv
	not ok mf - killed
	not ok mf - asan
	not ok mf - ok
	ok mf - fail1
	ok mf - fail2
	not ok mf - missing program
	EOF
	test_cmp expect mf.results &&
	grep -F "test_must_fail: '\''$S/segv'\'' died (exit 139)" mf.out &&
	grep -F "test_must_fail: '\''$S/asan'\'' died (exit 86)" mf.out
'

expect_success 'test_expect_code 1: a signal, 86, 0 or 2 is not ok; a status that is no number never passes' '
	test_expect_code 1 inner ec <<-\EOF
	. "$LBT_TOP/tests/cli/lib.sh"
	for s in segv killed asan ok fail2 fail1; do
		expect_success "$s" "test_expect_code 1 \"\$S/$s\""
	done
	expect_success "no status" "test_expect_code \"\$S/fail1\""
	test_done
	EOF
	cat >expect <<-\EOF &&
	not ok ec - segv
	not ok ec - killed
	not ok ec - asan
	not ok ec - ok
	not ok ec - fail2
	ok ec - fail1
	not ok ec - no status
	EOF
	test_cmp expect ec.results &&
	grep -F "test_expect_code: '\''$S/killed'\'' exited 137, want 1" ec.out &&
	grep -F "test_expect_code: '\''$S/asan'\'' exited 86, want 1" ec.out
'

expect_success 'a script whose checks all pass ends with status 0' '
	inner td <<-\EOF &&
	. "$LBT_TOP/tests/cli/lib.sh"
	expect_failure 1 "fail1" "\"\$S/fail1\""
	expect_success "test_expect_code 1" "test_expect_code 1 \"\$S/fail1\""
	expect_success "test_must_fail" "test_must_fail \"\$S/fail2\""
	test_done
	EOF
	printf "%s\n" "ok td - fail1" "ok td - test_expect_code 1" "ok td - test_must_fail" >expect &&
	test_cmp expect td.results
'

# A tree of its own for run-cli.sh: its lib.sh, and scripts that pass, fail
# or stop early.
expect_success 'run-cli.sh: a script that stops before test_done without a not ok is a failure' '
	mkdir -p tree/tests/cli && cp "$TOP/tests/run-cli.sh" tree/tests/ &&
	cp "$TOP/tests/cli/lib.sh" tree/tests/cli/ &&
	printf ". \"\$LBT_TOP/tests/cli/lib.sh\"\nexpect_success a true\ntest_done\n" \
	    > tree/tests/cli/t0001-pass.sh &&
	printf ". \"\$LBT_TOP/tests/cli/lib.sh\"\nexpect_success b true\nexit 3\ntest_done\n" \
	    > tree/tests/cli/t0002-stops.sh &&
	test_expect_code 1 sh tree/tests/run-cli.sh "$LBT_BIN" > run.out 2>&1 &&
	cat >expect <<-\EOF &&
	ok t0001-pass - a
	ok t0002-stops - b
	not ok t0002-stops - the script ended with status 3
	cli: 2 passed, 1 failed
	EOF
	test_cmp expect run.out &&
	rm tree/tests/cli/t0002-stops.sh &&
	sh tree/tests/run-cli.sh "$LBT_BIN" > run.out 2>&1 &&
	printf "%s\n" "ok t0001-pass - a" "cli: 1 passed, 0 failed" > expect &&
	test_cmp expect run.out
'

test_done
