#!/bin/sh
# lbt-tarpit's unhappy paths: bad option values, section choice in machine
# modes, a broken haproxy.cfg (file:line), a missing log among good ones.
. "$(dirname "$0")/lib.sh"

cp "$DATA/tarpit/httplog.log" .
F="--format haproxy-httplog"

expect_success '--maxconn 0 is refused with the allowed range' '
	test_expect_code 1 lbt-tarpit --tsv --maxconn 0 httplog.log > out 2> err &&
	grep -Fx "lbt-tarpit: --maxconn: '"'"'0'"'"' is not a number in 1..2147483647" err
'

expect_success '--threshold 101 and --step 0 are refused' '
	test_expect_code 1 lbt-tarpit --tsv --threshold 101 httplog.log > out 2> err &&
	grep -F -- "--threshold: '"'"'101'"'"' is not a number in 1..100" err &&
	test_expect_code 1 lbt-tarpit --tsv --step 0 httplog.log > out 2> err &&
	grep -F -- "--step:" err
'

expect_success 'two sections in TSV: refused, with the choice and the usage' '
	test_expect_code 1 lbt-tarpit --tsv --summary --periods httplog.log > out 2> err &&
	grep -F "print one section: choose one of --summary, --periods" err &&
	grep -F "usage: lbt-tarpit" err && test ! -s out
'

expect_success 'a missing haproxy.cfg is named' '
	test_expect_code 1 lbt-tarpit --tsv --haproxy-cfg nothere.cfg httplog.log > out 2> err &&
	grep -Fx "lbt-tarpit: nothere.cfg: No such file or directory" err
'

expect_success 'a bad maxconn in haproxy.cfg: file:line and the value' '
	printf "global\n\tmaxconn 100\nfrontend f\n\tbind :80\n\tmaxconn lots\n" > bad.cfg &&
	test_expect_code 1 lbt-tarpit --tsv --haproxy-cfg bad.cfg httplog.log > out 2> err &&
	grep -Fx "lbt-tarpit: bad.cfg:5: maxconn: '"'"'lots'"'"' is not a number in 0..2147483647" err
'

expect_success 'a missing log among good ones: reported, the rest analysed, status 1' '
	test_expect_code 1 lbt-tarpit --tsv $F --summary nope.log httplog.log > out 2> err &&
	grep -F "lbt-tarpit: nope.log: No such file or directory" err &&
	awk -F "\t" "NR == 2 { print \$3, \$6 }" out > got &&
	echo "8 17.008" > expect && test_cmp expect got
'

expect_success 'no maxconn: no periods or full check, and a note asking for it' '
	lbt-tarpit --tsv $F --summary httplog.log > out 2> err &&
	grep -F "note: fe_http: no maxconn known (the logged fc peaked at 4): give --maxconn N or --haproxy-cfg FILE" err &&
	awk -F "\t" "NR == 2 { print \$15 \"|\" \$18 \"|\" \$20 }" out > got &&
	echo "||" > expect && test_cmp expect got
'

expect_success 'an empty input says there is nothing to analyse' '
	: > empty.log &&
	test_expect_code 2 lbt-tarpit --tsv $F --summary empty.log > out 2> err &&
	grep -F "note: no request records in the input" err
'

test_done
