#!/bin/sh
# lbt-rate --by src within --max-memory (docs/memory.md, "Budgets"):
# 200000 requests over 10 minutes, each from a /64 of its own but
# 203.0.113.7, every 10th line (20000).  Over a small budget the note says
# how many keys of at most how many requests were dropped, the rows (TSV and
# JSON) carry total_err, the heavy source's count holds within it (awk),
# the span stays the input's (awk's first and last second) and the peak RSS
# stays bounded (a generous bound, never a time).
. "$(dirname "$0")/lib.sh"

# 23:00:00.000 + 3 ms a line: the last is 23:09:59.997
awk 'BEGIN {
	for (l = 0; l < 200000; l++) {
		ms = l * 3; s = int(ms / 1000)
		t = sprintf("[01/Nov/2025:23:%02d:%02d.%03d]", int(s / 60), s % 60, ms % 1000)
		src = l % 10 == 0 ? "203.0.113.7" : sprintf("2001:db8:%x:%x::1", int(l / 65536) + 1, l % 65536)
		printf "%s:4000 %s fe be/s1 0/0/0/1/1 200 10 - - ---- 1/1/0/0/0 0/0 \"GET /k%d HTTP/1.1\"\n", src, t, l % 7
	}
}' > many.log
# the first and last second of the input, as lbt-rate --series prints them
span() { awk '{ t = $2; print "2025-11-01T" substr(t, 14, 8) "Z" }' many.log | sed -n '1p;$p'; }

expect_success 'under the default budget: exact, no note, no total_err' '
	lbt-rate --by src --top 1 many.log > out 2> err &&
	test ! -s err && ! grep total_err out &&
	test "$(tail -1 out | cut -f1,2)" = "203.0.113.7	20000"
'

expect_success 'over --max-memory 2M: the note states the drop' '
	lbt-rate --by src --top 1 --max-memory 2M many.log > out 2> err &&
	grep "over --max-memory (2 MiB for them): [0-9]* keys of at most [0-9]* requests each were dropped" err
'

expect_success 'the heavy source holds within its total_err (awk: 20000)' '
	lbt-rate --by src --top 1 --max-memory 2M many.log > out 2>/dev/null &&
	head -1 out | tr "	" "\n" | tail -1 > col && echo total_err > ecol && test_cmp ecol col &&
	awk -F "	" "NR == 2 { ok = \$1 == \"203.0.113.7\" && \$2 <= 20000 && \$2 + \$NF >= 20000 }
		END { exit !ok }" out
'

expect_success '--json carries total_err' '
	lbt-rate --by src --top 2 --json --max-memory 2M many.log > out 2>/dev/null &&
	test $(grep -c "\"total_err\":" out) -eq 2
'

expect_success 'the span is the input'"'"'s (awk), whatever was dropped' '
	span > expect &&
	lbt-rate --by src --top 1 --series --max-memory 2M many.log > out 2>/dev/null &&
	tail -n +2 out | cut -f1 | sed -n "1p;\$p" > got && test_cmp expect got
'

# (under ASan, without its quarantine of freed memory, which is not ours)
if [ -x /usr/bin/time ]; then
expect_success 'peak RSS below 4x the budget + 50 MB' '
	ASAN_OPTIONS=$ASAN_OPTIONS:quarantine_size_mb=0:malloc_context_size=0 \
	/usr/bin/time -f %M -o rss lbt-rate --by src --max-memory 4M many.log > /dev/null 2>&1 &&
	test "$(tail -1 rss)" -lt $((4 * 4096 + 51200))
'
else
	skip "no /usr/bin/time" 'peak RSS below 4x the budget + 50 MB'
fi

expect_failure 1 '--max-memory below 1M is refused' '
	lbt-rate --by src --max-memory 512K many.log
'

test_done
