#!/bin/sh
# The exit status table (docs/exit-status.md, include/lbt/cli.h) and the
# silent empties of issue 10's wall 5: a wrong --format, a wrong
# --frontend, --nginx-conf without --log-name, a window outside the log
# each exit with their documented status and say why on stderr, so that
# `prog ... > list || handle` never takes an empty list for an answer.
# Expected times and counts are read from the fixtures with awk.
test_description='exit status of every program'
. "$LBT_TOP/tests/cli/lib.sh"

R="$DATA/real"
cp "$R/haproxy-httplog.log" "$R/haproxy.cfg" "$R/nginx.conf" "$R/nginx-json.log" .
# requests of haproxy-httplog.log (its other lines are HAProxy's own), and
# their first and last accept date as lbt prints them (one day: the clock
# part sorts)
nreq=$(awk '$2 ~ /^\[/' haproxy-httplog.log | wc -l)
iso() { sed 's/^\[30\/Nov\/2026:\(.*\)\]$/2026-11-30T\1Z/'; }
first=$(awk '$2 ~ /^\[/ {print $2}' haproxy-httplog.log | sort | head -n 1 | iso)
last=$(awk '$2 ~ /^\[/ {print $2}' haproxy-httplog.log | sort | tail -n 1 | iso)

expect_success 'the fixture: 69 requests from 07:49:44.526 to 07:50:03.691' '
	test "$nreq" -eq 69 && test "$first" = 2026-11-30T07:49:44.526Z &&
	test "$last" = 2026-11-30T07:50:03.691Z
'

expect_success 'the table of docs/exit-status.md is the enum of cli.h' '
	sed -n "s/^	LBT_EXIT_\([A-Z]*\) = \([0-9]\).*/\2 \1/p" "$TOP/include/lbt/cli.h" >expect &&
	sed -n "s/^| \([0-9]\) | \`LBT_EXIT_\([A-Z]*\)\` |.*/\1 \2/p" "$TOP/docs/exit-status.md" >out &&
	test_cmp expect out && test "$(wc -l <out)" -eq 6
'

expect_success 'every man page lists the six codes in its EXIT STATUS' '
	for m in "$TOP"/man/lbt*.1; do
		sed -n "/^\.Sh EXIT STATUS/,/^\.Sh /p" "$m" >sect &&
		for c in 0 1 2 3 4 5; do
			grep -q "^\.It $c\$" sect || { echo "$m: no $c"; exit 1; }
		done
	done
'

expect_success 'records read: exit 0' '
	lbt-offenders --no-geoip haproxy-httplog.log >out 2>err && test -s out
'

expect_success 'a wrong --format: exit 3, detection'"'"'s choice and score named' '
	test_expect_code 3 lbt-offenders --no-geoip --format nginx-combined haproxy-httplog.log \
	    >list 2>err &&
	test "$(wc -l <list)" -eq 1 &&
	grep -x "lbt-offenders: haproxy-httplog.log: none of its 76 lines could be read; detection would choose haproxy-httplog (50 of 50 sample lines): check --format, --frontend, --log-name" err
'

expect_success 'so a script'"'"'s "> list || handle" takes the failure branch' '
	if lbt-offenders --no-geoip --format nginx-combined haproxy-httplog.log >list 2>/dev/null
	then echo "empty list taken for success"; false
	else echo handled >got; fi && echo handled >expect && test_cmp expect got
'

expect_success 'a --frontend that is not in the configuration: a bad option value, exit 1' '
	test_expect_code 1 lbt-rate --haproxy-cfg haproxy.cfg --frontend fe_nosuch \
	    haproxy-httplog.log >out 2>err &&
	test ! -s out && grep -q "no frontend or listen section .fe_nosuch." err
'

expect_success 'a --frontend of another format (tcplog on httplog lines): exit 3' '
	test_expect_code 3 lbt-rate --haproxy-cfg haproxy.cfg --frontend fe_tcp \
	    haproxy-httplog.log >out 2>err &&
	grep -q "^lbt-rate: haproxy-httplog.log: none of its 76 lines could be read; detection would choose haproxy-httplog " err
'

expect_success '--nginx-conf without --log-name (combined on JSON lines): exit 3' '
	n=$(wc -l <nginx-json.log) &&
	test_expect_code 3 lbt-rate --nginx-conf nginx.conf nginx-json.log >out 2>err &&
	grep -x "lbt-rate: nginx-json.log: none of its $n lines could be read; detection would choose nginx-json ($n of $n sample lines): check --format, --frontend, --log-name" err &&
	lbt-rate --nginx-conf nginx.conf --log-name json nginx-json.log >out 2>err
'

expect_success 'a window outside the log: exit 2, the data'"'"'s first and last time' '
	test_expect_code 2 lbt-rate --since 2026-12-01 --until 2026-12-02 haproxy-httplog.log \
	    >out 2>err &&
	echo "lbt-rate: the window --since 2026-12-01T00:00:00Z --until 2026-12-02T00:00:00Z lies outside the data ($first .. $last): nothing to answer from" >expect &&
	test_cmp expect err
'

expect_success 'filters that leave nothing: exit 2, the records and their span' '
	test_expect_code 2 lbt-cat --key no-such-key haproxy-httplog.log >out 2>err &&
	echo "lbt-cat: the filters left none of the $nreq records (data $first .. $last)" >expect &&
	test_cmp expect err
'

expect_success 'every program agrees: an empty input is exit 2' '
	: >empty.log &&
	for p in lbt-cat lbt-rate lbt-offenders lbt-tarpit lbt-timeline lbt-triage; do
		test_expect_code 2 $p empty.log >/dev/null 2>err || { echo "$p"; exit 1; }
	done
'

expect_success 'an input that fails outranks one unread: exit 1' '
	test_expect_code 1 lbt-rate --format nginx-combined haproxy-httplog.log missing.log \
	    >out 2>err &&
	grep -q "missing.log" err
'

expect_success 'one unread input among good ones: exit 3 (the answer is partial)' '
	test_expect_code 3 lbt-rate --input "haproxy-httplog.log format=haproxy-tcplog" \
	    --input "haproxy-httplog.log lb=lb2" >out 2>err &&
	test "$(sed -n 2p out | cut -f 2)" -gt 0
'

expect_success 'lbt-index: a file none of whose lines is read: exit 3' '
	test_expect_code 3 lbt-index -q -d i.db --format nginx-combined haproxy-httplog.log \
	    2>err &&
	grep -x "lbt-index: haproxy-httplog.log: none of its 76 lines could be read (lbt-formats --detect haproxy-httplog.log shows what detection makes of it)" err
'

expect_success 'lbt-index: a file no format is detected for: exit 3, nothing stored' '
	printf "garbage line one\nanother garbage line\n" >junk.log &&
	test_expect_code 3 lbt-index -q -d j.db junk.log 2>err &&
	grep -q "^lbt-index: junk.log: no known format matches the first 2 lines" err &&
	test "$(sqlite3 j.db "SELECT count(*) FROM requests_v")" = 0
'

expect_success 'from an index: records read exit 0, a window that holds none exit 2' '
	lbt-index -q -d w.db haproxy-httplog.log &&
	lbt-rate --db w.db >out 2>err &&
	test_expect_code 2 lbt-rate --db w.db --since 2030-01-01 >out 2>err &&
	echo "lbt-rate: no request of the index w.db passes the filters" >expect && test_cmp expect err
'

# three days of the same four lines: Nov 1, 2 and 3, 23:24
for d in 01 02 03; do sed "s|01/Nov/2025|$d/Nov/2025|" "$DATA/cli/httplog.log"; done >days.log

expect_success 'a bare time on data of more than a day: the day taken is said' '
	lbt-cat --no-header -f line --since 23:24:04 --until 23:24:05 days.log >out 2>err &&
	echo 3 >expect && test_cmp expect out &&
	echo "lbt-cat: note: the data spans more than a day (2025-11-01T23:24:01.123Z .. 2025-11-03T23:24:06.556Z): the bare times were taken as --since 2025-11-01T23:24:04Z --until 2025-11-01T23:24:05Z, nearest the first record (2025-11-01T23:24:01.123Z); give a full date for another day" >expect &&
	test_cmp expect err
'

expect_success 'and not when the data lies within a day' '
	lbt-cat --no-header -f line --since 23:24:04 "$DATA/cli/httplog.log" >out 2>err &&
	test ! -s err
'

test_done
