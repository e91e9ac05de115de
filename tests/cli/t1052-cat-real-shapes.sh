#!/bin/sh
# Shapes of real NGINX, HAProxy and rsyslog output that were unread or
# misread (issue 19, item 9), on fixtures made by tests/data/shapes/gen.sh:
# an NGINX error log with multi-line FastCGI stderr events, rsyslog's file
# format of RFC 5424 messages (no colon after the tag), a CONNECT request,
# a unix-socket upstream; and lbt-formats --detect on a file no format
# reads.  Expected values are awk's and grep's on the fixtures.
. "$(dirname "$0")/lib.sh"

S=$DATA/shapes
cp "$S"/*.log "$S"/*.cfg . || missing "tests/data/shapes"

# The error log: the events start at the stamped lines, their context is
# on the line that closes the message.
awk '/^[0-9][0-9][0-9][0-9]\/[0-9][0-9]\/[0-9][0-9] / { print NR }' nginx-fastcgi-error.log > ev.lines
sed -n 's/.*, client: \([^,]*\), .*/\1/p' nginx-fastcgi-error.log > ev.clients
sed -n 's/.*, request: "[A-Z]* \([^ ?]*\)[^"]*", .*/\1/p' nginx-fastcgi-error.log > ev.paths

expect_success 'the fixture: 3 events of 3 lines each' '
	test "$(wc -l < nginx-fastcgi-error.log)" = 9 && test "$(wc -l < ev.lines)" = 3 &&
	test "$(wc -l < ev.clients)" = 3 && test "$(wc -l < ev.paths)" = 3
'

expect_success 'NGINX error events over several lines: each one event, its context read' '
	lbt-cat --events --tsv --no-header --fields line,client,path,server \
	    nginx-fastcgi-error.log > out 2> err && test ! -s err &&
	sed "s|$|\tunix:/run/app/php-fpm.sock|" ev.paths | paste ev.lines ev.clients - > expect &&
	test_cmp expect out
'

expect_success 'the raw lines of the events are the file, byte for byte' '
	lbt-cat --events --raw nginx-fastcgi-error.log > raw && cmp raw nginx-fastcgi-error.log
'

expect_success 'without --events: no request in it (exit 2), the 9 lines counted' '
	test_expect_code 2 lbt-cat nginx-fastcgi-error.log > out 2> err &&
	grep -x "lbt-cat: no request in the input (9 lines: 0 malformed, 3 events)" err
'

# rsyslog's RSYSLOG_FileFormat of RFC 5424 messages
awk '$4 ~ /^[0-9.:]+:[0-9]+$/ { split($4, a, ":"); print a[1] "\t" $7 }' \
    haproxy-rsyslog-rfc5424.log > req.expect
expect_success 'rsyslog file format, tag without a colon: every line read, lb from it' '
	test "$(wc -l < req.expect)" = 5 &&
	lbt-cat --tsv --no-header --fields client,server haproxy-rsyslog-rfc5424.log > out 2> err &&
	test ! -s err && sed "s|/|\t|" req.expect | cut -f 1,3 > expect && test_cmp expect out &&
	lbt-cat --events --tsv --no-header --fields lb haproxy-rsyslog-rfc5424.log > lbs &&
	test "$(sort -u lbs)" = lb2 && test "$(wc -l < lbs)" = 6
'

expect_success 'rsyslog file format with its haproxy.cfg: the same, with the frontend' '
	lbt-cat --haproxy-cfg haproxy-rsyslog.cfg --tsv --no-header --fields client,frontend,host \
	    haproxy-rsyslog-rfc5424.log > out 2> err && test ! -s err &&
	cut -f 1 req.expect | sed "s|$|\tfe_http\twww.example.net|" > expect && test_cmp expect out
'

expect_success 'the event of the rsyslog file: the server DOWN at the stamp of rsyslog' '
	lbt-cat --events --json --fields time,server haproxy-rsyslog-rfc5424.log > out &&
	stamp=$(awk "/ Server be_app\\/app2 is DOWN/ { print \$1 }" haproxy-rsyslog-rfc5424.log |
	    sed "s/+00:00\$/Z/") &&
	grep -x "{\"time\":\"$stamp\",\"server\":\"app2\"}" out
'

# CONNECT and the unix socket of the access log
expect_success 'CONNECT host:port: the host (with its port), no path' '
	lbt-cat --json --fields method,path,host nginx-ingress-unix.log > out 2> err &&
	test "$(grep -c "\"CONNECT www.example.net:443 " nginx-ingress-unix.log)" = 1 &&
	grep -x "{\"method\":\"CONNECT\",\"path\":null,\"host\":\"www.example.net:443\"}" out
'

expect_success 'a unix-socket upstream is the server, whole' '
	lbt-cat --tsv --no-header --fields server nginx-ingress-unix.log > out &&
	awk "{ u = \$(NF - 4); print (u == \"-\" ? \"\" : u) }" nginx-ingress-unix.log > expect &&
	test_cmp expect out && grep -qx "unix:/run/app/php-fpm.sock" out
'

expect_success 'lbt-formats --detect: exit 3 when no format reads a single line' '
	printf "hello\nworld\n" > junk.log &&
	test_expect_code 3 lbt-formats --detect junk.log > out 2> err &&
	test "$(head -n 1 out | cut -f 1)" = format &&
	grep -x "lbt-formats: junk.log: no known format reads any of its first 2 lines: give its template (--log-format, --haproxy-cfg, --nginx-conf)" err &&
	lbt-formats --detect haproxy-rsyslog-rfc5424.log > out && test "$(sed -n 2p out | cut -f 1,2)" = "$(printf "haproxy-httplog\t5")"
'

test_done
