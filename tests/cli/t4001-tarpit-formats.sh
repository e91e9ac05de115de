#!/bin/sh
# lbt-tarpit across formats: tcplog (Tt, no Ta), a custom format without a
# termination state, NGINX combined (no timers, no fc), syslog-wrapped
# httplog from two load balancers.  A field that is not logged gives a
# message naming it and an absent value, never a zero.
. "$(dirname "$0")/lib.sh"

D="$DATA/tarpit"
cp "$D/tcplog.log" "$D/httplog.log" .

expect_success 'tcplog: the brief example (max 3, 4.1 slot-seconds, what-if 2)' '
	lbt-tarpit --tsv --format haproxy-tcplog --maxconn 3 --summary tcplog.log > out 2> err &&
	test_cmp "$D/tcplog-summary.tsv" out
'

expect_success 'tcplog: no Ta, said so; intervals from Tt at the accept time' '
	grep -F "note: no Ta on the tarpitted (PT) lines (not in this format): the Ta-based held seconds are not available" err &&
	lbt-tarpit --tsv --format haproxy-tcplog --maxconn 3 --notes tcplog.log > out 2> err &&
	grep -F "fe_tcp: slot intervals from the accept time, duration from Tt for 3 (accept to close)" out
'

expect_success 'tcplog: the period at >= 3 slots and none when denied at once' '
	lbt-tarpit --tsv --format haproxy-tcplog --maxconn 3 --periods tcplog.log > out 2> err &&
	printf "\tfe_tcp\tlogged\t2025-11-01T23:24:01.500Z\t2025-11-01T23:24:01.600Z\t0.100\t0.100\t3\t2025-11-01T23:24:01.500Z\t1\t3\t\n" > expect &&
	sed 1d out > got && test_cmp expect got
'

expect_success 'a format without termination state: tarpit columns absent, and why' '
	sed "s/ -- / /; s/ PT / /" tcplog.log > noterm.log &&
	lbt-tarpit --tsv --log-format "%ci:%cp [%t] %ft %b/%s %Tw/%Tc/%Tt %B %ac/%fc/%bc/%sc/%rc %sq/%bq" \
		--maxconn 3 --summary noterm.log > out 2> err &&
	grep -F "note: no termination state in this format: cannot tell tarpitted requests (PT) from others" err &&
	awk -F "\t" "NR == 2 { print \$3 \"|\" \$4 \"|\" \$5 \"|\" \$6 \"|\" \$8 \"|\" \$9 \"|\" \$10 }" out > got &&
	echo "3||||4.100||3" > expect && test_cmp expect got
'

expect_success 'NGINX combined: no timers, no fc, no termination state' '
	printf "%s\n" "203.0.113.7 - - [01/Nov/2025:23:24:01 +0000] \"GET /ping/x HTTP/1.1\" 200 2 \"-\" \"curl/8.5.0\"" > nginx.log &&
	lbt-tarpit --table nginx.log > out 2> err &&
	grep -F "no Tt, Ta or TR/Tw/Tc/Tr timers in this format: slot occupancy cannot" out &&
	grep -F "no fc (feconn) in this format" out &&
	grep -E "^tarpitted +unknown: no termination state in this format" out &&
	! grep -F "maxconn known" out
'

expect_success 'syslog-wrapped, two load balancers: one group each, and their total' '
	sed "s/^/Nov  1 23:24:30 lb1 haproxy[7]: /" httplog.log > lb1.log &&
	head -n 2 httplog.log | sed "s/^/Nov  1 23:24:30 lb2 haproxy[7]: /" > lb2.log &&
	lbt-tarpit --tsv --maxconn 4 --summary lb2.log lb1.log > out 2> err &&
	cut -f 1-6 out > got &&
	printf "lb\tfrontend\trequests\ttarpitted\tclient_left\theld_s\nlb1\tfe_http\t8\t4\t1\t17.008\nlb2\tfe_http\t2\t1\t0\t5.002\n(total)\tfe_http\t10\t5\t1\t22.010\n" > expect &&
	test_cmp expect got
'

expect_success 'filters apply: --term PT keeps the tarpitted lines only' '
	lbt-tarpit --tsv --format haproxy-httplog --term PT --summary httplog.log > out 2> err &&
	awk -F "\t" "NR == 2 { print \$3, \$4, \$6 }" out > got &&
	echo "4 4 17.008" > expect && test_cmp expect got
'

test_done
