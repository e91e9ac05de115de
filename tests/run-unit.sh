#!/bin/sh
# Run the Check suites given as arguments; print their totals as the last line.
# CK_FORK stays on: a crash in one test is reported, not fatal to the suite.
# Check's timeouts are there to catch a hang, never to judge speed: a loaded
# 2-core machine running the suite under ASan (with make check-fresh beside
# it) took more than Check's default 4 s for one test.  So every test case
# gets at least 300 s, and the ones that set their own get 4 times theirs.
CK_DEFAULT_TIMEOUT=${CK_DEFAULT_TIMEOUT:-300}
CK_TIMEOUT_MULTIPLIER=${CK_TIMEOUT_MULTIPLIER:-4}
export CK_DEFAULT_TIMEOUT CK_TIMEOUT_MULTIPLIER
pass=0 fail=0 status=0
for t in "$@"; do
	out=$("$t" 2>&1); rc=$?
	printf '%s\n' "$out"
	line=$(printf '%s\n' "$out" | grep -E '^[0-9]+%: Checks: ' | tail -n 1)
	if [ -z "$line" ]; then
		echo "$t: no Check summary (exit $rc)" >&2; fail=$((fail + 1)); status=1; continue
	fi
	n=$(echo "$line" | sed -E 's/.*Checks: ([0-9]+).*/\1/')
	f=$(echo "$line" | sed -E 's/.*Failures: ([0-9]+).*/\1/')
	e=$(echo "$line" | sed -E 's/.*Errors: ([0-9]+).*/\1/')
	pass=$((pass + n - f - e)); fail=$((fail + f + e))
	[ "$rc" -eq 0 ] || status=1
done
echo "unit: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && exit $status || exit 1
