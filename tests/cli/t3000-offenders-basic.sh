#!/bin/sh
# lbt-offenders on tests/data/analyses/flood.log (see make-flood.sh there).
# By hand: 655 requests; 203.0.113.7 sends 15/s of key A from 23:24:20 to
# 23:24:34 (225, denied 429); 2001:db8:bad:1::1..d 13/s (195, tarpitted,
# Tw 1500 ms: 292.5 s held); 198.51.100.10 2/s throughout (94); the decoys
# 203.0.113.8 (same /24) and 2001:db8:bad:2::5 (same /48) and 198.51.100.20
# 1/s (47 each).  Each source's change points, over the input's 47 s: the
# offenders are new (absent for 20 s at a rate that would have shown 300
# and 260 requests), each with one rise 23:24:20 .. 23:24:35 at its rate
# (15/s, 13/s); the others have a baseline of their rate (2/s, 1/s) and
# no episode, so no ratio (the single window before the total's jump gave
# them a ratio of 1.00 for not changing).  Evidence, each source's
# first request: lines 1-100 are seconds 0-19 (5 a second: .10 .10 .8
# bad:2 .20, so lines 1, 3, 4, 5), second 20 is lines 101-133: .10 101-102,
# .7 103-117, the /64 118-130, then 131-133 (so lines 103 and 118).
. "$(dirname "$0")/lib.sh"

A=5bf66975-d4c7-4bf5-bcc8-b8d8a82ea278
B=0a4e6b1c-3f2d-4e5a-9b8c-7d6e5f4a3b2c
C=1b5f7c2d-4a3e-4f6b-8c9d-8e7f6a5b4c3d
D=2c6a8d3e-5b4f-4a7c-9d0e-9f8a7b6c5d4e
T=2025-11-01T23:24
cp "$DATA/analyses/flood.log" .

cat > expect <<EOT
source	requests	share	peak_rps	addrs	top_keys	status	tarpit	held_s	first	last	ratio	evidence	baseline_rps	episodes	jump_start	jump_end	sustained_rps
203.0.113.7	225	34.35	15	1	$A:225	429:225	0	0.000	$T:20.060Z	$T:34.480Z	new	flood.log:103	new	1	$T:20Z	$T:35Z	15.00
2001:db8:bad:1::/64	195	29.77	13	13	$A:195	5xx:195	195	292.500	$T:20.510Z	$T:34.870Z	new	flood.log:118	new	1	$T:20Z	$T:35Z	13.00
198.51.100.10	94	14.35	2	1	$A:94	2xx:94	0	0.000	$T:00.000Z	$T:46.030Z		flood.log:1	2.00	0			
198.51.100.20	47	7.18	1	1	$D:47	2xx:47	0	0.000	$T:00.120Z	$T:46.120Z		flood.log:5	1.00	0			
203.0.113.8	47	7.18	1	1	$B:47	2xx:47	0	0.000	$T:00.060Z	$T:46.060Z		flood.log:3	1.00	0			
2001:db8:bad:2::/64	47	7.18	1	1	$C:47	2xx:47	0	0.000	$T:00.090Z	$T:46.090Z		flood.log:4	1.00	0			
EOT

# first_ev FILE... - by hand (awk): each source's first request, the
# smallest by (time, file name, line), as "source<TAB>file:line" sorted.
# The /64 is made by keeping the first four groups, enough for flood.log
# (no "::" before them); one day, so the time of day orders.
first_ev() {
	awk '{ a = $1; sub(/:[0-9]+$/, "", a)
		if (a ~ /:/) { split(a, p, ":"); a = p[1] ":" p[2] ":" p[3] ":" p[4] "::/64" }
		k = substr($2, 14, 12) SUBSEP FILENAME SUBSEP sprintf("%09d", FNR)
		if (!(a in m) || k < m[a]) { m[a] = k; e[a] = FILENAME ":" FNR } }
		END { for (a in m) print a "\t" e[a] }' "$@" | sort
}

# The sources in the order printed.
order() {
	lbt-offenders --no-geoip --no-header "$@" flood.log > order.out &&
	    cut -f 1 order.out | tr "\n" " "
}

expect_success 'every column of every source (TSV when piped)' '
	lbt-offenders --no-geoip flood.log > out && test_cmp expect out
'

expect_success 'evidence: the first request of each source (awk)' '
	first_ev flood.log > expect_e &&
	lbt-offenders --no-geoip --no-header flood.log > all && cut -f 1,13 all | sort > got &&
	test_cmp expect_e got
'

expect_success 'requests counted again with awk' '
	for s in 203.0.113.7: 2001:db8:bad:1:: 198.51.100.10: 203.0.113.8:; do
		n=$(grep -c "^$s" flood.log) &&
		lbt-offenders --no-geoip flood.log > all && grep "^${s%:}" all | cut -f 2 > got &&
		test "$(cat got)" = "$n" || exit 1
	done
'

expect_success 'held seconds equal the sum of Tw over PT lines (awk)' '
	awk "\$10 ~ /^PT/ { split(\$5, t, \"/\"); s += t[2] } END { printf \"%.3f\n\", s / 1000 }" \
	    flood.log > expect_h &&
	lbt-offenders --no-geoip --by held --top 1 --no-header flood.log > all && cut -f 9 all > got &&
	test_cmp expect_h got
'

# The TSV carries file and line: evidence still points at the log itself.
expect_success 'the same from lbt-cat TSV on stdin, evidence included' '
	status_to cat.rc lbt-cat flood.log | lbt-offenders --no-geoip > out &&
	test "$(cat cat.rc)" = 0 &&
	test_cmp expect out
'

# Without those columns, provenance is the stream's (its header is line 1).
expect_success 'TSV without file and line: evidence is a line of the TSV' '
	status_to cat.rc lbt-cat -f time,client,path,status,term,Tw,Ta flood.log |
	    lbt-offenders --no-geoip > out && test "$(cat cat.rc)" = 0 &&
	cut -f 1-12 expect > expect12 && cut -f 1-12 out > got && test_cmp expect12 got &&
	test "$(sed -n 2p out | cut -f 13)" = "(stdin):104"
'

# Odd lines in lb1.log, even in lb2.log: flood.log:103 is lb1.log:52.
expect_success 'files in the wrong order: the same numbers, the same evidence' '
	awk "NR % 2" flood.log > lb1.log && awk "!(NR % 2)" flood.log > lb2.log &&
	lbt-offenders --no-geoip lb2.log lb1.log > out &&
	cut -f 1-12 out > got && cut -f 1-12 expect > expect12 && test_cmp expect12 got &&
	test "$(sed -n 2p out | cut -f 13)" = "lb1.log:52" &&
	first_ev lb2.log lb1.log > expect_e && sed 1d out | cut -f 1,13 | sort > got &&
	test_cmp expect_e got &&
	lbt-offenders --no-geoip lb1.log lb2.log > out2 && test_cmp out out2
'

expect_success '--by rate, held, ratio' '
	test "$(order --by rate)" = "203.0.113.7 2001:db8:bad:1::/64 198.51.100.10 198.51.100.20 203.0.113.8 2001:db8:bad:2::/64 " &&
	test "$(order --by held)" = "2001:db8:bad:1::/64 203.0.113.7 198.51.100.10 198.51.100.20 203.0.113.8 2001:db8:bad:2::/64 " &&
	test "$(order --by ratio)" = "203.0.113.7 2001:db8:bad:1::/64 198.51.100.10 198.51.100.20 203.0.113.8 2001:db8:bad:2::/64 "
'

expect_success '--min-share, --min-rate, --top' '
	test "$(order --min-share 20)" = "203.0.113.7 2001:db8:bad:1::/64 " &&
	test "$(order --min-rate 2)" = "203.0.113.7 2001:db8:bad:1::/64 198.51.100.10 " &&
	test "$(order --top 1)" = "203.0.113.7 "
'

expect_success 'the decoys of one /24 and one /48 merge only when asked' '
	lbt-offenders --no-geoip --v4-prefix 24 --v6-prefix 48 flood.log > all &&
	cut -f 1,2,5 all > out &&
	printf "source\trequests\taddrs\n203.0.113.0/24\t272\t2\n2001:db8:bad::/48\t242\t14\n198.51.100.0/24\t141\t2\n" > expect_p &&
	test_cmp expect_p out
'

expect_success 'the first column feeds lbt-deny: one network per line' '
	lbt-offenders --no-geoip --min-share 20 --no-header flood.log > all && cut -f 1 all > out &&
	printf "203.0.113.7\n2001:db8:bad:1::/64\n" > expect_d && test_cmp expect_d out
'

expect_success '--json: one object per source' '
	lbt-offenders --no-geoip --json --top 2 flood.log > out &&
	test "$(wc -l < out)" = 2 &&
	grep -F "{\"source\":\"203.0.113.7\",\"requests\":225,\"share\":34.35," out &&
	grep -F "\"ratio\":\"new\"" out
'

expect_failure 1 'a bad --by is refused' 'lbt-offenders --by bytes flood.log'
expect_failure 1 'a --min-share above 100 is refused' 'lbt-offenders --min-share 101 flood.log'
expect_failure 1 'a --v6-prefix above 128 is refused' 'lbt-offenders --v6-prefix 129 flood.log'
expect_success 'and says which option and range' '
	test_expect_code 1 lbt-offenders --v4-prefix 33 flood.log 2> err &&
	grep "^lbt-offenders: --v4-prefix: .33. is not a number in 0..32" err
'
test_done
