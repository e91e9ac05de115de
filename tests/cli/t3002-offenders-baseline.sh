#!/bin/sh
# lbt-offenders --baseline on flood.log: with the window 23:24:00..23:24:10
# the comparison runs 23:24:10..23:24:47 (37 s).  198.51.100.10: 20 in 10 s
# = 2/s before, 74 in 37 s = 2/s after: ratio 1.  A window inside the
# flood makes 203.0.113.7 known: 15/s in 23:24:20..23:24:30, then 75 in
# 23:24:30..23:24:47 (17 s): 75 / 17 / 15 = 0.29.
. "$(dirname "$0")/lib.sh"

cp "$DATA/analyses/flood.log" .

# Source and ratio columns.
ratios() {
	lbt-offenders --no-geoip --no-header "$@" flood.log > ratios.out &&
	    cut -f 1,12 ratios.out | tr "\t\n" "= "
}

expect_success 'times of day' '
	test "$(ratios --baseline 23:24:00..23:24:10 --top 3)" = "203.0.113.7=new 2001:db8:bad:1::/64=new 198.51.100.10=1.00 "
'
expect_success 'ISO 8601 times, a window inside the flood' '
	test "$(ratios --baseline 2025-11-01T23:24:20Z..2025-11-01T23:24:30Z --top 1)" = "203.0.113.7=0.29 "
'
expect_success 'no jump in a flat part and no --baseline: no ratio' '
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
