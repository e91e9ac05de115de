#!/bin/sh
# lbt-cat --events: the kind and level of event lines, NGINX error-log
# lines as events (limit_req, limit_conn, upstream failures), and the time
# of HAProxy's own lines in a raw log (no stamp): the nearest request
# line's, clock "inferred".  Fixtures from tests/lab/shapes.sh (NGINX 1.22,
# HAProxy 2.6); expected values read off the lines by hand.
test_description='lbt-cat events'
. "$LBT_TOP/tests/cli/lib.sh"

R=$DATA/real
U=5bf66975-d4c7-4bf5-bcc8-b8d8a82ea278
tsv() { tr '|' '\t'; }
for f in haproxy-httplog-events.log nginx-limits-error.log haproxy-master.stderr; do
	[ -f "$R/$f" ] || missing "$f"
done

# Line 1 (server DOWN) comes before the first request line (line 2,
# 20:27:51.693); lines 10-13 follow line 9 (20:27:53.341).
expect_success 'a raw log: events take the nearest request line time, in file order' '
	lbt-cat --events -f line,time,clock,event,frontend,server "$R/haproxy-httplog-events.log" \
	    >out 2>err && test ! -s err &&
	tsv >expect <<-EOT &&
	line|time|clock|event|frontend|server
	1|2026-12-01T20:27:51.693Z|inferred|server||app2
	2|2026-12-01T20:27:51.693Z|request||fe_raw|app1
	9|2026-12-01T20:27:53.341Z|request||fe_raw|app1
	10|2026-12-01T20:27:53.341Z|inferred|reload|fe_raw|
	13|2026-12-01T20:27:53.341Z|inferred|server||app2
	14|2026-12-01T20:27:56.671Z|request||fe_raw|app1
	19|2026-12-01T20:27:56.891Z|inferred|reload|<HTTPCLIENT>|
	EOT
	sed -n "1,3p;10,11p;14,15p;20p" out >got &&
	test_cmp expect got
'

expect_success '--raw keeps the file order with the held events' '
	lbt-cat --events --raw "$R/haproxy-httplog-events.log" >out && test_cmp "$R/haproxy-httplog-events.log" out
'

expect_success 'without --events they are counted, not printed' '
	lbt-cat -f line "$R/haproxy-httplog-events.log" >out &&
	test "$(sed 1d out | wc -l)" -eq 11     # 19 lines, 8 of them events
'

expect_success 'NGINX error log: limit_req and limit_conn with client, server, request, host' '
	lbt-cat --events -f time,event,level,client,frontend,path,host "$R/nginx-limits-error.log" \
	    >out 2>err && test ! -s err &&
	grep "	limit_" out >got &&
	tsv >expect <<-EOT &&
	2026-12-01T20:27:46.000Z|limit_req|error|203.0.113.7|hc-ping.com|/ping/$U|hc-ping.com
	2026-12-01T20:27:46.000Z|limit_req|error|203.0.113.7|hc-ping.com|/ping/$U|hc-ping.com
	2026-12-01T20:27:46.000Z|limit_req|error|203.0.113.7|hc-ping.com|/ping/$U|hc-ping.com
	2026-12-01T20:27:46.000Z|limit_conn|error|198.51.100.2|hc-ping.com|/conn/$U|hc-ping.com
	2026-12-01T20:27:46.000Z|limit_conn|error|198.51.100.2|hc-ping.com|/conn/$U|hc-ping.com
	EOT
	test_cmp expect got
'

expect_success 'NGINX error log: upstream failures name the upstream server' '
	lbt-cat --events -f event,level,server,path "$R/nginx-limits-error.log" >out &&
	grep "^upstream	error	192.0.2.2:8098	/slow/$U\$" out &&
	grep "^upstream	error	dead	/dead/$U\$" out &&
	test "$(grep -c "^upstream	" out)" -eq "$(grep -ac " upstream" "$R/nginx-limits-error.log")"
'

expect_success 'HAProxy master stderr: reload events with their level' '
	lbt-cat --events -f level "$R/haproxy-master.stderr" | sed 1d | sort | uniq -c >got &&
	printf "%7d notice\n%7d warn\n" "$(grep -c "^\[NOTICE\]" "$R/haproxy-master.stderr")" \
	    "$(grep -c "^\[WARNING\]" "$R/haproxy-master.stderr")" >expect &&
	test_cmp expect got &&
	lbt-cat --events -f event "$R/haproxy-master.stderr" | grep -c "^reload\$" >n &&
	test "$(cat n)" -ge 15
'

expect_success 'lbt-formats --explain an NGINX error line' '
	lbt-formats --explain "2026/12/01 20:27:46 [error] 30339#30339: *9 limiting connections by zone \"perconn\", client: 198.51.100.2, server: hc-ping.com, request: \"GET /conn/x HTTP/1.1\", host: \"hc-ping.com\"" >out &&
	tsv >expect <<-EOT &&
	format|event
	time|2026-12-01T20:27:46.000Z
	client|198.51.100.2
	frontend|hc-ping.com
	method|GET
	path|/conn/x
	host|hc-ping.com
	version|HTTP/1.1
	msg|2026/12/01 20:27:46 [error] 30339#30339: *9 limiting connections by zone "perconn", client: 198.51.100.2, server: hc-ping.com, request: "GET /conn/x HTTP/1.1", host: "hc-ping.com"
	event|limit_conn
	level|error
	clock|end
	EOT
	test_cmp expect out
'

test_done
