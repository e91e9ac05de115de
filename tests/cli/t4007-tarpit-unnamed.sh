#!/bin/sh
# Two LBs' logs given without lb= (issue 19): one syslog-wrapped (its lines
# name their host, lb1), one raw (only its frontend names it).  Each input
# gets a name, the syslog host, else its file name, else "stdin", so each is
# a row of its own and "(total)" adds them up, as with lb= (t4005):
# lbt-tarpit --summary's requests and tarpitted, lbt-rate --by lb's totals,
# every figure counted here with awk.
. "$(dirname "$0")/lib.sh"

sh "$TOP/bench/genlog.sh" --syslog --mix bench 3000 > lb1.log
sh "$TOP/bench/genlog.sh" 4000 7 > raw.log
# "requests tarpitted" of a log (the termination state PT--), then both
count() { awk '{ n++ } / PT-- / { pt++ } END { printf "%d\t%d\n", n, pt }' "$1"; }
one=$(count lb1.log) two=$(count raw.log)
both=$(printf "%s\n%s\n" "$one" "$two" | awk -F "\t" '{ n += $1; pt += $2 } END { printf "%d\t%d\n", n, pt }')

n1=$(echo "$one" | cut -f 1) pt1=$(echo "$one" | cut -f 2)
n2=$(echo "$two" | cut -f 1) pt2=$(echo "$two" | cut -f 2) nboth=$(echo "$both" | cut -f 1)

expect_success 'the fixture: both logs have tarpitted requests, only lb1 a host' '
	test "$pt1" -gt 0 && test "$pt2" -gt 0 && test "$nboth" = 7000 &&
	head -1 lb1.log | grep -q " lb1 haproxy\[" && ! grep -q " lb1 " raw.log
'

expect_success 'lbt-tarpit --summary: lb1, raw.log and their (total) (awk)' '
	lbt-tarpit --tsv --summary lb1.log raw.log > sum.tsv 2> err &&
	sed 1d sum.tsv | cut -f 1,3,4 > got &&
	{ printf "lb1\t%s\n" "$one"; printf "raw.log\t%s\n" "$two"; printf "(total)\t%s\n" "$both"; } > expect &&
	test_cmp expect got
'

expect_success 'lbt-rate --by lb: the same names, the (total) the sum (awk)' '
	lbt-rate --by lb --tsv lb1.log raw.log > rate.tsv 2> err &&
	sed 1d rate.tsv | cut -f 1,2 > got &&
	printf "lb1\t%s\nraw.log\t%s\n(total)\t%s\n" "$n1" "$n2" "$nboth" > expect &&
	test_cmp expect got
'

expect_success 'standard input without a name is "stdin"' '
	lbt-rate --by lb --tsv - lb1.log < raw.log > rate.tsv 2> err &&
	cut -f 1 rate.tsv | sed 1d | sort > got && printf "(total)\nlb1\nstdin\n" > expect &&
	test_cmp expect got
'

expect_success 'one input: no total row, and no name it did not have' '
	lbt-tarpit --tsv --summary raw.log > one.tsv 2> err &&
	test "$(sed 1d one.tsv | wc -l)" = 1 && test "$(sed -n 2p one.tsv | cut -f 1)" = ""
'
test_done
