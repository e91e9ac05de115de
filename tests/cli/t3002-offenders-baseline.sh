#!/bin/sh
# lbt-offenders --baseline on flood.log: one window is every source's
# baseline, and the ratio is the main episode's mean over it, as without
# the option.  With 23:24:00..23:24:10 the offenders sent nothing there:
# new; 198.51.100.10 sent 20 in 10 s = 2/s and kept that rate: no episode,
# no ratio (the old comparison window, 23:24:10..23:24:47, called that
# 1.00).  A window inside the flood makes 203.0.113.7 known at 15/s; its
# silences before 23:24:20 and from 23:24:35 are drops to 0/s: ratio 0
# (the old 0.29 was its 75 requests of 23:24:30..23:24:47 against 15/s:
# the end of the flood averaged with 12 s of silence).
. "$(dirname "$0")/lib.sh"

cp "$DATA/analyses/flood.log" .

# Source and ratio columns.
ratios() {
	lbt-offenders --no-geoip --no-header "$@" flood.log > ratios.out &&
	    cut -f 1,12 ratios.out | tr "\t\n" "= "
}

expect_success 'times of day' '
	test "$(ratios --baseline 23:24:00..23:24:10 --top 3)" = "203.0.113.7=new 2001:db8:bad:1::/64=new 198.51.100.10= "
'
expect_success 'ISO 8601 times, a window inside the flood: two drops' '
	w=2025-11-01T23:24:20Z..2025-11-01T23:24:30Z &&
	test "$(ratios --baseline $w --top 1)" = "203.0.113.7=0.00 " &&
	lbt-offenders --no-geoip --no-header --episodes --top 1 --baseline $w flood.log > out &&
	printf "203.0.113.7\tdrop\t%s\t%s\t15.00\t0.00\t0.00\t0.00\n" \
	    2025-11-01T23:24:00Z 2025-11-01T23:24:20Z 2025-11-01T23:24:35Z ongoing > expect &&
	test_cmp expect out
'
expect_success 'a window outside the input: exit 2 (empty), the span named' '
	test_expect_code 2 lbt-offenders --no-geoip \
	    --baseline 2025-11-01T22:00:00Z..2025-11-01T22:10:00Z flood.log 2> err &&
	grep "^lbt-offenders: --baseline: the window is outside the input (2025-11-01T23:24:00.000Z .. 2025-11-01T23:24:47.000Z)" err
'
expect_success 'no episode in a flat part and no --baseline: no ratio' '
	lbt-offenders --no-geoip --until 2025-11-01T23:24:15Z --no-header flood.log > all &&
	cut -f 12 all | sort -u > out &&
	printf "\n" > expect && test_cmp expect out
'
expect_failure 1 'a window that ends before it starts is refused' '
	lbt-offenders --baseline 2025-11-01T23:24:30Z..2025-11-01T23:24:20Z flood.log
'
expect_success 'a malformed window says what is expected' '
	test_expect_code 1 lbt-offenders --baseline yesterday flood.log 2> err &&
	grep "^lbt-offenders: --baseline: .yesterday. is not FROM..TO" err
'
test_done
