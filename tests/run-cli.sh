#!/bin/sh
# Run every tests/cli/t*.sh (or the scripts named after $1) against the
# programs in $1; print the totals last.
# A script that ends with a failing status but recorded no "not ok" (it
# stopped early: a mistake in the script, a shell error) counts as a failure.
bin=$(cd "$1" && pwd)
top=$(cd "$(dirname "$0")/.." && pwd)
pass=0 fail=0
results=$(mktemp)
shift
[ $# -gt 0 ] || set -- "$top"/tests/cli/t[0-9]*.sh
for t in "$@"; do
	[ -e "$t" ] || continue
	name=$(basename "$t" .sh)
	LBT_BIN="$bin" LBT_TOP="$top" LBT_RESULTS="$results" sh "$t"
	rc=$?
	if [ "$rc" -ne 0 ] && ! grep -q "^not ok $name - " "$results"; then
		echo "not ok $name - the script ended with status $rc" | tee -a "$results"
	fi
done
pass=$(grep -c '^ok' "$results")
fail=$(grep -c '^not ok' "$results")
rm -f "$results"
echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
