#!/bin/sh
# run.sh FUZZDIR BINDIR SECONDS TARGET... - seed and run each libFuzzer
# target FUZZDIR/fuzz_TARGET for SECONDS (make fuzz).
#
# Per target: seeds regenerated from tests/data in FUZZDIR/seeds/TARGET
# (tests/fuzz/seeds.sh, BINDIR has lbt-cat), the corpus the fuzzer grows
# kept in FUZZDIR/corpus/TARGET between runs, the log in
# FUZZDIR/TARGET.log, a finding (crash-, leak-, oom-, timeout-) in
# FUZZDIR/findings/.  Prints one line per target; exits 1 when any found
# something.
set -u
[ $# -ge 4 ] || { echo "usage: sh $0 FUZZDIR BINDIR SECONDS TARGET..." >&2; exit 2; }
dir=$1 bin=$2 secs=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir/findings"
rc=0
for t in "$@"; do
	# the longest input worth trying: a line, a log file, a config file
	case $t in
	line) len=4096 ;;
	source) len=65542 ;;
	*) len=16384 ;;
	esac
	sh "$here/seeds.sh" "$t" "$dir/seeds/$t" "$bin" || exit 1
	mkdir -p "$dir/corpus/$t"
	"$dir/fuzz_$t" -max_total_time="$secs" -max_len="$len" -timeout=30 \
		-rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$dir/findings/$t-" \
		"$dir/corpus/$t" "$dir/seeds/$t" >"$dir/$t.log" 2>&1
	st=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/$t.log")
	if [ "$st" -eq 0 ]; then
		echo "fuzz_$t: ${runs:-?} runs in $secs s, nothing found"
	else
		echo "fuzz_$t: FOUND something (exit $st): see $dir/$t.log and $dir/findings/"
		grep -m 3 -E 'ERROR|SUMMARY|deadly signal' "$dir/$t.log"
		rc=1
	fi
done
exit $rc
