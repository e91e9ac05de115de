#!/bin/sh
# lbt-offenders' bounded state: the top N by selection equals a full sort
# (awk and sort(1)), and over --max-memory the heavy hitters' counts stay
# within the bound the output prints (docs/memory.md).
#
# many.log (awk below): 3 heavy hitters among 40000 sources of one request
# each (IPv6, a /64 of their own: 2001:db8:N:M::1): 33403 sources.  203.0.113.7 sends a
# request every 10th line from the start (4000), 2001:db8:bad:1::/64 one
# every 25th line from the start, each from a new address (1600), and
# 198.51.100.9 one every 20th line from line 20000 on only (1000), after
# the first sources were dropped: its count may then be short by at most
# the floor it started with, which its requests_err says.
. "$(dirname "$0")/lib.sh"

awk 'BEGIN {
	for (l = 0; l < 40000; l++) {
		s = l % 60; m = int(l / 60) % 60
		t = sprintf("[01/Nov/2025:23:%02d:%02d.%03d]", m, s, l % 1000)
		if (l % 10 == 0) src = "203.0.113.7"
		else if (l % 25 == 1) src = sprintf("2001:db8:bad:1::%x", l)
		else if (l >= 20000 && l % 20 == 3) src = "198.51.100.9"
		else src = sprintf("2001:db8:%x:%x::1", int(l / 65536) + 1, l % 65536)
		printf "%s:4000 %s fe be/s1 0/0/0/1/1 200 10 - - ---- 1/1/0/0/0 0/0 \"GET /k%d HTTP/1.1\"\n", src, t, l % 7
	}
}' > many.log

# counts SRC - by hand (awk): requests per source, /64 = first 4 groups
counts() {
	awk '{ a = $1; sub(/:[0-9]+$/, "", a)
		if (a ~ /:/) { split(a, g, ":"); a = g[1] ":" g[2] ":" g[3] ":" g[4] "::/64" }
		n[a]++ } END { for (a in n) print a "\t" n[a] }' "$@"
}

expect_success 'top 20 by selection: the first 20 counts of a full sort (awk, sort)' '
	counts many.log | sort -t "	" -k2,2nr | head -20 | cut -f2 > expect &&
	lbt-offenders --no-geoip --top 20 many.log | tail -n +2 | cut -f2 > out &&
	test_cmp expect out
'

expect_success 'every source shown has its awk count; --top 0 shows all of them' '
	counts many.log | sort > expect &&
	lbt-offenders --no-geoip --top 0 many.log | tail -n +2 | cut -f1,2 | sort > out &&
	test_cmp expect out &&
	test $(wc -l < out) -eq 33403
'

expect_success 'under the budget: no note, no requests_err column' '
	lbt-offenders --no-geoip --top 3 many.log > out 2> err &&
	! grep requests_err out && ! grep max-memory err
'

expect_success 'over --max-memory 1M: the note, the marker column, bounds that hold (awk)' '
	lbt-offenders --no-geoip --max-memory 1M --top 3 many.log > out 2> err &&
	grep "over --max-memory (1 MiB): .* sources of at most [0-9]* requests were dropped" err &&
	head -1 out | tr "	" "\n" | tail -1 > col && echo requests_err > ecol && test_cmp ecol col &&
	counts many.log > truth &&
	awk -F "	" "NR == FNR { n[\$1] = \$2; next }
		FNR > 1 { e = \$NF; if (n[\$1] < \$2 || n[\$1] > \$2 + e) bad = bad \" \" \$1;
			shown++ }
		END { if (bad != \"\" || shown != 3) { print \"out of bound:\" bad; exit 1 } }" truth out &&
	grep "^203.0.113.7	4000	" out && grep "^2001:db8:bad:1::/64	1600	" out
'

expect_success 'the heavy hitter that came after the drops: its bound names its shortfall' '
	lbt-offenders --no-geoip --max-memory 1M --top 3 many.log > out 2>/dev/null &&
	awk -F "	" "\$1 == \"198.51.100.9\" { ok = \$2 <= 1000 && \$2 + \$NF >= 1000 }
		END { exit !ok }" out
'

expect_success '--json carries requests_err too' '
	lbt-offenders --no-geoip --json --max-memory 1M --top 2 many.log > out 2>/dev/null &&
	test $(grep -c "\"requests_err\":" out) -eq 2
'

expect_success '--max-memory reads K, M, G with or without iB' '
	lbt-offenders --no-geoip --max-memory 2048K --top 1 many.log > a 2>/dev/null &&
	lbt-offenders --no-geoip --max-memory 2MiB --top 1 many.log > b 2>/dev/null &&
	test_cmp a b &&
	lbt-offenders --no-geoip --max-memory 1G --top 1 many.log > c &&
	lbt-offenders --no-geoip --top 1 many.log > d && test_cmp c d
'

expect_success 'a size that is not one, or under 1M, is refused' '
	test_expect_code 1 lbt-offenders --max-memory 12X many.log 2> err &&
	grep "max-memory: .12X. is not a size" err &&
	test_expect_code 1 lbt-offenders --max-memory 512K many.log 2> err &&
	grep "max-memory: .512K. is less than 1M" err
'

test_done
