#!/bin/sh
# lbt-timeline within --max-memory (docs/memory.md, "Budgets"): 200000
# requests over 10 minutes, each from a /64 of its own but 203.0.113.7,
# every 10th line.  The span is the input's (awk), stderr says what was
# pushed out of the tracked sources and what the budget dropped, and the
# peak RSS stays bounded (a generous bound, never a time).
. "$(dirname "$0")/lib.sh"

awk 'BEGIN {
	for (l = 0; l < 200000; l++) {
		ms = l * 3; s = int(ms / 1000)
		t = sprintf("[01/Nov/2025:23:%02d:%02d.%03d]", int(s / 60), s % 60, ms % 1000)
		src = l % 10 == 0 ? "203.0.113.7" : sprintf("2001:db8:%x:%x::1", int(l / 65536) + 1, l % 65536)
		printf "%s:4000 %s fe be/s1 0/0/0/1/1 200 10 - - ---- 1/1/0/0/0 0/0 \"GET /k%d HTTP/1.1\"\n", src, t, l % 7
	}
}' > many.log
# "from 23:00:00 to 23:09:59.997": the first and last time of every line (awk)
span() { awk 'NR == 1 { f = substr($2, 14, 8) } { l = substr($2, 14, 12) }
	END { print "200000 requests from " f " to " l "." }' many.log; }

expect_success 'over --max-memory 4M: the span is the input'"'"'s (awk)' '
	span > expect &&
	lbt-timeline --md --max-memory 4M many.log > out 2> err &&
	tr "\n" " " < out | grep -o "200000 requests from [0-9:]* to [0-9:.]*\." > got &&
	test_cmp expect got
'

expect_success 'stderr states the drop and the sources pushed out of --track' '
	lbt-timeline --max-memory 4M many.log > out 2> err &&
	grep "over --max-memory (4 MiB for them): [0-9]* sources of at most [0-9]* requests each were dropped" err &&
	grep "more sources than --track 64: those pushed out of the tracked ones are counted in the totals only" err &&
	! grep "more keys than" err
'

# (under ASan, without its quarantine of freed memory, which is not ours)
expect_success '--json carries them: rows of kind approx, the same sentences' '
	lbt-timeline --json --max-memory 4M many.log > out 2> err &&
	grep "\"kind\":\"approx\"" out | sed "s/.*\"text\":\"\([^\"]*\)\".*/\1/" > got &&
	sed "s/^lbt-timeline: //" err > expect && test_cmp expect got && test "$(wc -l < got)" = 2
'

if [ -x /usr/bin/time ]; then
expect_success 'peak RSS below 4x the budget + 50 MB' '
	ASAN_OPTIONS=$ASAN_OPTIONS:quarantine_size_mb=0:malloc_context_size=0 \
	/usr/bin/time -f %M -o rss lbt-timeline --max-memory 4M many.log > /dev/null 2>&1 &&
	test "$(tail -1 rss)" -lt $((4 * 4096 + 51200))
'
else
	skip "no /usr/bin/time" 'peak RSS below 4x the budget + 50 MB'
fi

test_done
