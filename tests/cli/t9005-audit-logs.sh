#!/bin/sh
# lbt-audit maxconn-reached and alert-threshold on maxconn.cfg and
# maxconn.log (tests/data/audit: fc climbs by one a second from 07:00:00,
# 1 to 9, then 10 three times, against maxconn 10), and nothing on
# clean.cfg with clean.log.  By hand (maxconn.cfg's header): at 80 % the
# alert fires in the second of 07:00:07 (fc 8, line 8), fc reaches 9 =
# maxconn - 1 at 07:00:08 (line 9) and stays there to 07:00:11 (4
# buckets); the change is maxconn 13 (ceil(13 x 0.8) = 11 > 10, while 12
# gives 10).  At 50 %: 07:00:04 (fc 5, line 5), maxconn 21.  With 2 s
# buckets: 07:00:06 and 07:00:08, 2 full buckets.
. "$(dirname "$0")/lib.sh"

PATH=/usr/sbin:$PATH
test_have haproxy || missing haproxy
cp "$DATA"/audit/maxconn.cfg "$DATA"/audit/maxconn.log "$DATA"/audit/clean.cfg \
    "$DATA"/audit/clean.log . || missing "tests/data/audit"
MC=$(grep -n "^    maxconn 10$" maxconn.cfg | cut -d: -f1)
col() { sed 1d out.tsv | cut -f "$1"; }

expect_success 'haproxy -c accepts maxconn.cfg and clean.cfg' '
	haproxy -c -f maxconn.cfg > /dev/null 2>&1 && haproxy -c -f clean.cfg > /dev/null 2>&1
'

expect_success 'maxconn reached (crit) and the alert (info), on the maxconn line' '
	test_expect_code 4 lbt-audit maxconn.cfg maxconn.log > out.tsv &&
	printf "crit\tmaxconn.cfg:%s\tfe_small\tmaxconn-reached\ninfo\tmaxconn.cfg:%s\tfe_small\talert-threshold\n" \
	    $MC $MC > expect &&
	col 1-4 > got && test_cmp expect got
'

expect_success 'maxconn: 4 full buckets from 07:00:08 to 07:00:11, peak 10, maxconn 13' '
	col 5 | sed -n 1p > what &&
	grep -F "the logged fc of fe_small reached maxconn 10 (peak fc 10; fc >= 9 in 4 buckets of 1 s, the first at 2026-12-01T07:00:08Z, the last at 2026-12-01T07:00:11Z)" what &&
	echo "maxconn 13" > expect && col 7 | sed -n 1p > got && test_cmp expect got &&
	echo "maxconn.log:9" > expect && col 8 | sed -n 1p > got && test_cmp expect got &&
	col 6 | sed -n 1p > why && ! grep -F "tarpit" why
'

expect_success 'alert: 07:00:07 at fc >= 8, one second before full' '
	echo "an alert on the sessions of fe_small at 80 % of maxconn 10 (fc >= 8) would have fired at 2026-12-01T07:00:07Z, the first bucket of 1 s with fc >= 8 (fc 8), before fc reached maxconn at 2026-12-01T07:00:08Z" > expect &&
	col 5 | sed -n 2p > got && test_cmp expect got &&
	echo "alert when scur of fe_small >= 8 (show stat; slim 10)" > expect &&
	col 7 | sed -n 2p > got && test_cmp expect got &&
	echo "maxconn.log:8" > expect && col 8 | sed -n 2p > got && test_cmp expect got
'

expect_success '--alert-pct 50: 07:00:04 at fc >= 5, maxconn 21' '
	test_expect_code 4 lbt-audit --alert-pct 50 maxconn.cfg maxconn.log > out.tsv &&
	col 5 | sed -n 2p | grep -F "at 50 % of maxconn 10 (fc >= 5) would have fired at 2026-12-01T07:00:04Z" &&
	echo "maxconn 21" > expect && col 7 | sed -n 1p > got && test_cmp expect got &&
	echo "maxconn.log:5" > expect && col 8 | sed -n 2p > got && test_cmp expect got
'

expect_success '--step 2s: buckets of two seconds' '
	test_expect_code 4 lbt-audit --step 2s maxconn.cfg maxconn.log > out.tsv &&
	col 5 | sed -n 1p | grep -F "fc >= 9 in 2 buckets of 2 s, the first at 2026-12-01T07:00:08Z, the last at 2026-12-01T07:00:10Z" &&
	col 5 | sed -n 2p | grep -F "would have fired at 2026-12-01T07:00:06Z, the first bucket of 2 s with fc >= 8 (fc 8)"
'

expect_success 'clean.cfg with clean.log: its five requests read, no finding' '
	lbt-cat --haproxy-cfg clean.cfg --fields fc clean.log > fc.tsv &&
	printf "fc\n1\n2\n3\n4\n5\n" > expect && test_cmp expect fc.tsv &&
	test_expect_code 0 lbt-audit clean.cfg clean.log > out.tsv 2> err &&
	test $(wc -l < out.tsv) -eq 1 && test ! -s err
'

test_done
