#!/bin/sh
# lbt-audit's unhappy paths: each with its exact exit status (1: usage, a
# configuration or a log that could not be read; 1 wins over 2, the status
# of findings) and its message naming file and line.
. "$(dirname "$0")/lib.sh"

cp "$DATA/audit/tarpit.cfg" "$DATA/audit/clean.cfg" . || missing "tests/data/audit"
USAGE="usage: lbt-audit [options] haproxy.cfg [file ...]"

expect_success 'no operand: usage, exit 1' '
	printf "%s\n" "lbt-audit: missing operand" "$USAGE" > expect &&
	test_expect_code 1 lbt-audit > out 2> err && test_cmp expect err && test ! -s out
'

expect_success 'a configuration that does not exist' '
	echo "lbt-audit: nosuch.cfg: No such file or directory" > expect &&
	test_expect_code 1 lbt-audit nosuch.cfg 2> err && test_cmp expect err
'

expect_success 'a directory as configuration' '
	mkdir adir && echo "lbt-audit: adir: Is a directory" > expect &&
	test_expect_code 1 lbt-audit adir 2> err && test_cmp expect err
'

expect_success 'a line HAProxy would not read: file and line' '
	printf "frontend fe\n    bind :80\n    log-format \"%%ci\n" > quote.cfg &&
	echo "lbt-audit: quote.cfg:3: unterminated double quote" > expect &&
	test_expect_code 1 lbt-audit quote.cfg 2> err && test_cmp expect err &&
	printf "global\n    maxconn 10\nfrontend fe\n    maxconn lots\n" > mc.cfg &&
	echo "lbt-audit: mc.cfg:4: maxconn: '\''lots'\'' is not a number in 0..2147483647" > expect &&
	test_expect_code 1 lbt-audit mc.cfg 2> err && test_cmp expect err &&
	printf "frontend fe from web\n    bind :80\n" > from.cfg &&
	echo "lbt-audit: from.cfg:1: '\''from web'\'': no defaults section of that name above" > expect &&
	test_expect_code 1 lbt-audit from.cfg 2> err && test_cmp expect err
'

expect_success '--frontend naming no frontend or listen section' '
	echo "lbt-audit: clean.cfg: no frontend or listen section '\''be_app'\''" > expect &&
	test_expect_code 1 lbt-audit --frontend be_app clean.cfg 2> err && test_cmp expect err
'

expect_success 'bad option values' '
	echo "lbt-audit: --fail-on: '\''fatal'\'' is not info, warn or crit" > expect &&
	test_expect_code 1 lbt-audit --fail-on fatal clean.cfg 2> err && test_cmp expect err &&
	echo "lbt-audit: --alert-pct: '\''0'\'' is not a number in 1..100" > expect &&
	test_expect_code 1 lbt-audit --alert-pct 0 clean.cfg 2> err && test_cmp expect err
'

expect_success 'an unreadable log: exit 1 even with findings, which are still printed' '
	printf "%s\n" "lbt-audit: nosuch.log: No such file or directory" \
	    "lbt-audit: 1 of 1 file failed (see above)" > expect &&
	test_expect_code 1 lbt-audit tarpit.cfg nosuch.log > out 2> err && test_cmp expect err &&
	cut -f 4 out | grep -x tarpit-rate-limit
'

expect_success '--db with a log operand, and an index that cannot be opened' '
	printf "%s\n" "lbt-audit: --db reads the index: no log file operands expected" "$USAGE" > expect &&
	test_expect_code 1 lbt-audit --db x.db clean.cfg a.log 2> err && test_cmp expect err &&
	echo "lbt-audit: nosuch.db: cannot open index: unable to open database file" > expect &&
	test_expect_code 1 lbt-audit --db nosuch.db clean.cfg 2> err && test_cmp expect err
'

expect_success 'a log none of whose lines is read: reported, exit 3 before the findings' '
	printf "not a log line\n" > junk.log &&
	test_expect_code 3 lbt-audit --frontend fe_clean clean.cfg junk.log > out 2> err &&
	grep -F "lbt-audit: junk.log:1:" err &&
	test_expect_code 3 lbt-audit --frontend fe_api tarpit.cfg junk.log > out 2> err &&
	grep -F "lbt-audit: junk.log:1:" err && grep -q "^lbt-audit: junk.log: none of its 1 lines" err
'

# One malformed line among 100 good ones is 1 %, not more: the answer
# stands; one among 5 is 17 %: the input is read only in part, exit 3.
expect_success 'a malformed line among good ones (1 %): the status stays that of the findings' '
	{ printf "not a log line\n"; for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		cat "$DATA/audit/clean.log"; done; } > some.log &&
	test "$(wc -l < some.log)" = 101 &&
	test_expect_code 0 lbt-audit --frontend fe_clean clean.cfg some.log > out 2> err &&
	grep -F "lbt-audit: some.log:1:" err
'

expect_success 'a malformed line among 5 (17 %): the input is read in part, exit 3' '
	{ printf "not a log line\n"; cat "$DATA/audit/clean.log"; } > few.log &&
	test_expect_code 3 lbt-audit --frontend fe_clean clean.cfg few.log > out 2> err &&
	grep -q "^lbt-audit: few.log: 1 of its 6 lines (16.7 %) could not be read" err
'

test_done
