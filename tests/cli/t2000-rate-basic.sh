#!/bin/sh
# lbt-rate on tests/data/analyses/flood.log (see make-flood.sh there): key A
# at 2/s, 30/s from 23:24:20 to 23:24:34, 2/s again; B, C, D flat at 1/s.
# Expected values by hand: A 47*2 + 15*28 = 514 requests, peak 30 at
# 23:24:20, baseline 40 requests in the 20 s before the flood = 2/s, one
# episode, a rise 23:24:20 .. 23:24:35 at 30/s (its mean, sustained_rps),
# ratio 15, first seen 23:24:00; B, C, D 47 each, peak and baseline 1, no
# episode, in key order on the tie.
. "$(dirname "$0")/lib.sh"

A=5bf66975-d4c7-4bf5-bcc8-b8d8a82ea278
B=0a4e6b1c-3f2d-4e5a-9b8c-7d6e5f4a3b2c
C=1b5f7c2d-4a3e-4f6b-8c9d-8e7f6a5b4c3d
D=2c6a8d3e-5b4f-4a7c-9d0e-9f8a7b6c5d4e
T=2025-11-01T23:24
cp "$DATA/analyses/flood.log" .
tab=$(printf '\t')

cat > expect <<EOT
key	total	peak_rps	peak_at	baseline_rps	jump_start	jump_end	sustained_rps	first_seen	episodes	ratio
$A	514	30.00	$T:20Z	2.00	$T:20Z	$T:35Z	30.00	$T:00Z	1	15.00
$B	47	1.00	$T:00Z	1.00				$T:00Z	0	
$C	47	1.00	$T:00Z	1.00				$T:00Z	0	
$D	47	1.00	$T:00Z	1.00				$T:00Z	0	
EOT

expect_success 'the flooded key comes first with its jump (TSV when piped)' '
	lbt-rate flood.log > out && test_cmp expect out
'

expect_success 'the same read back from lbt-cat TSV on stdin' '
	status_to cat.rc lbt-cat flood.log | lbt-rate > out && test "$(cat cat.rc)" = 0 &&
	test_cmp expect out
'

expect_success 'two files interleaving in time, given in the wrong order' '
	awk "NR % 2" flood.log > lb1.log && awk "!(NR % 2)" flood.log > lb2.log &&
	lbt-rate lb2.log lb1.log > out && test_cmp expect out
'

expect_success '--rank total --top 2' '
	head -n 3 expect > expect2 &&
	lbt-rate --rank total --top 2 flood.log > out && test_cmp expect2 out
'

expect_success '--json: numbers bare, absent jump null' '
	lbt-rate --json --top 2 flood.log > out &&
	grep -F "\"key\":\"$A\",\"total\":514,\"peak_rps\":30.00" out &&
	grep -F "\"jump_end\":\"$T:35Z\"" out &&
	grep -F "\"key\":\"$B\"" out | grep -F "\"jump_start\":null"
'

# 10 s buckets: A has 20 20 300 160 14 from :00 :10 :20 :30 :40; one bucket
# is an episode; the baseline is (20 + 20) / 20 s = 2/s, and 30/s and 16/s
# are less than twice apart, one segment: the rise is :20 .. :40 at
# (300 + 160) / 20 s = 23/s, ratio 11.5 (14 is back under 5 x 2).
expect_success '--step 10s' '
	printf "%s\n" "$A	514	30.00	$T:20Z	2.00	$T:20Z	$T:40Z	23.00	$T:00Z	1	11.50" > expect10 &&
	lbt-rate --step 10s --top 1 --no-header flood.log > out && test_cmp expect10 out
'

expect_success '--series: every second, zeros included, counted again by awk' '
	lbt-rate --series --top 1 --key $A flood.log > out &&
	test "$(head -n 1 out)" = "time	key	count" &&
	test "$(wc -l < out)" = 48 &&
	awk -v k=$A "index(\$0, k) { s = substr(\$2, 20, 2); n[s + 0]++ }
	    END { for (i = 0; i < 47; i++) printf \"$T:%02dZ\t%s\t%d\n\", i, k, n[i] }" \
	    flood.log > expect_s &&
	tail -n +2 out > got && test_cmp expect_s got
'

expect_success '--by net: the /64 is one key; the decoys are apart' '
	lbt-rate --by net --top 10 flood.log > all && cut -f 1,2,3 all > out &&
	cat > expect_n <<-EOT &&
	net	total	peak_rps
	203.0.113.7	225	15.00
	2001:db8:bad:1::/64	195	13.00
	198.51.100.10	94	2.00
	198.51.100.20	47	1.00
	203.0.113.8	47	1.00
	2001:db8:bad:2::/64	47	1.00
	EOT
	test_cmp expect_n out
'

expect_success '--by status with a filter: 429 and 500 only from the flood' '
	lbt-rate --by status --status 4xx,5xx flood.log > all && cut -f 1,2,3,4 all > out &&
	printf "status\ttotal\tpeak_rps\tpeak_at\n429\t225\t15.00\t$T:20Z\n500\t195\t13.00\t$T:20Z\n" > expect_st &&
	test_cmp expect_st out
'

expect_success 'a table on request, no sparkline when not on a terminal' '
	lbt-rate --table --top 1 flood.log > out &&
	grep "^key  *total  *peak_rps" out && ! grep spark out
'

# On a terminal (script(1) gives one): 47 seconds in 40 cells, cell c
# the highest of seconds c*47/40 .. (c+1)*47/40 - 1; 2/s is level 1 of 8
# (ceil(8 * 2 / 30)), 30/s level 8.
expect_success 'a sparkline on a terminal' '
	if command -v script > /dev/null; then
		script -eqc "lbt-rate --top 1 --wide --color=never flood.log 2> /dev/null" /dev/null \
		    > tty.out && tr -d "\r" < tty.out > out &&
		head -n 1 out | grep -q "ratio  spark$" &&
		tail -n 1 out | grep -q " ▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁█████████████▁▁▁▁▁▁▁▁▁▁$"
	fi
'

expect_success 'no record with the --by field: a header, a note, exit 2 (empty)' '
	test_expect_code 2 lbt-rate --by host flood.log > out 2> err &&
	test "$(cat out)" = "host	total	peak_rps	peak_at	baseline_rps	jump_start	jump_end	sustained_rps	first_seen	episodes	ratio" &&
	grep "^lbt-rate: none of 655 records has a host" err
'

expect_failure 1 'a bad --by is refused' 'lbt-rate --by uuid flood.log'
expect_success 'and says what is allowed' '
	test_expect_code 1 lbt-rate --by uuid flood.log 2> err &&
	grep "^lbt-rate: --by: .uuid. is not one of key, path" err
'
expect_failure 1 'a bad --step is refused' 'lbt-rate --step 0 flood.log'
expect_failure 1 'a --jump-factor of 1 is refused' 'lbt-rate --jump-factor 1 flood.log'
expect_failure 1 'a --jump-floor that is not a number is refused' 'lbt-rate --jump-floor x flood.log'
expect_success 'a missing file is reported, exit 1' '
	test_expect_code 1 lbt-rate missing.log > out 2> err && grep "missing.log" err
'
expect_success '--help lists the options' '
	lbt-rate --help > out && grep -e "--jump-factor" out && grep -e "--series" out
'
test_done
