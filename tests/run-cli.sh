#!/bin/sh
# Run every tests/cli/t*.sh against the programs in $1; print the totals last.
bin=$(cd "$1" && pwd)
top=$(cd "$(dirname "$0")/.." && pwd)
pass=0 fail=0
results=$(mktemp)
for t in "$top"/tests/cli/t[0-9]*.sh; do
	[ -e "$t" ] || continue
	LBT_BIN="$bin" LBT_TOP="$top" LBT_RESULTS="$results" sh "$t"
done
pass=$(grep -c '^ok' "$results")
fail=$(grep -c '^not ok' "$results")
rm -f "$results"
echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
