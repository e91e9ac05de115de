#!/bin/sh
# lbt-triage within --max-memory (docs/memory.md, "Budgets"): 200000
# requests over 10 minutes, each from a /64 of its own but 203.0.113.7,
# every 10th line.  Over a small budget the span is still the input's (awk's
# first and last time, never those of the sources kept), stderr says what
# was dropped, the JSON's approximations carry it, and the peak RSS stays
# bounded (a generous bound, never a time).
. "$(dirname "$0")/lib.sh"

test_have python3 || missing python3
awk 'BEGIN {
	for (l = 0; l < 200000; l++) {
		ms = l * 3; s = int(ms / 1000)
		t = sprintf("[01/Nov/2025:23:%02d:%02d.%03d]", int(s / 60), s % 60, ms % 1000)
		src = l % 10 == 0 ? "203.0.113.7" : sprintf("2001:db8:%x:%x::1", int(l / 65536) + 1, l % 65536)
		printf "%s:4000 %s fe be/s1 0/0/0/1/1 200 10 - - ---- 1/1/0/0/0 0/0 \"GET /k%d HTTP/1.1\"\n", src, t, l % 7
	}
}' > many.log
# first and last time of every line, ISO with ms (awk)
span() { awk '{ t = $2; print "2025-11-01T" substr(t, 14, 12) "Z" }' many.log | sed -n '1p;$p'; }
js() { python3 -c 'import json, sys; d = json.load(open(sys.argv[2])); print(eval(sys.argv[1]))' "$1" "$2"; }

expect_success 'under a budget large enough (2G): exact, no approximation' '
	status_to st lbt-triage --json --max-memory 2G many.log > doc 2> err &&
	test "$(cat st)" -eq 0 && test ! -s err &&
	test "$(js "len(d[\"approximations\"])" doc)" = 0 &&
	test "$(js "d[\"data\"][\"sources\"]" doc)" = 180001
'

expect_success 'over --max-memory 8M: the span is the input'"'"'s (awk)' '
	span > expect &&
	status_to st lbt-triage --json --max-memory 8M many.log > doc 2> err &&
	test "$(cat st)" -eq 0 &&
	js "d[\"data\"][\"first\"]" doc > got && js "d[\"data\"][\"last\"]" doc >> got &&
	test_cmp expect got
'

expect_success 'stderr states the drop: sources of at most T requests' '
	status_to st lbt-triage --max-memory 8M many.log > screen 2> err &&
	grep "over --max-memory (4 MiB): [0-9]* sources of at most [0-9]* requests were dropped" err
'

expect_success 'the JSON carries it: what, how many, at most how many' '
	status_to st lbt-triage --json --max-memory 8M many.log > doc 2> err &&
	js "[a for a in d[\"approximations\"] if a[\"what\"] == \"sources\"][0][\"dropped\"] > 0" doc > ok &&
	echo True > eok && test_cmp eok ok &&
	test "$(js "len(d[\"approximations\"])" doc)" = "$(wc -l < err)"
'

if [ -x /usr/bin/time ]; then
expect_success 'the default budget (1G) ranks 131072 sources (a quarter of it, 2 KiB a row) and says so' '
	status_to st lbt-triage --json many.log > doc 2> err &&
	grep "over --max-memory: the 131072 sources of most requests of 180001 were ranked; the 48929 others" err &&
	test "$(js "d[\"approximations\"][0][\"dropped\"]" doc)" = 48929
'

expect_success 'peak RSS below 4x the budget + 50 MB' '
	ASAN_OPTIONS=$ASAN_OPTIONS:quarantine_size_mb=0:malloc_context_size=0 \
	/usr/bin/time -f %M -o rss lbt-triage --max-memory 8M many.log > /dev/null 2>&1 &&
	test "$(tail -1 rss)" -lt $((4 * 8192 + 51200))
'
else
	skip "no /usr/bin/time" 'peak RSS below 4x the budget + 50 MB'
fi

test_done
