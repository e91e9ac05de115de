#!/bin/sh
# lbt-deny --into and --runtime against a live HAProxy 2.6 in a network
# namespace of its own, with the incident's tarpit frontend (fe_http of
# tests/data/incident/haproxy-tarpit.cfg, verbatim):
#   - placed by --into, the deny answers a burst of the offender's
#     requests with 429 at once (each under 0.5 s: a generous bound that
#     the tarpit's 1 s fails; a behaviour check, not a speed test), and its
#     neighbour still gets 200;
#   - the same rule appended at the end of the frontend (the old advice)
#     lets the tarpit take part of that burst (500 after 1 s): the check
#     above tells the two apart;
#   - with a -f ACL file and a stats socket, --runtime makes the offender's
#     next request 429 without a reload, --undo 200 again, and an ACL file
#     the running HAProxy does not load is refused.
# Documentation addresses only, on the namespace's loopback; every curl
# has a 3 s limit, every burst 15 requests; HAProxy is stopped and the
# namespace deleted on exit.
. "$(dirname "$0")/lib.sh"

SOURCE_DATE_EPOCH=1764979200; export SOURCE_DATE_EPOCH
live_ns lbtplace 192.0.2.1 203.0.113.7 203.0.113.8 198.51.100.99 2001:db8::1
test_have awk || missing awk

# get FROM - "CODE TIME" of one request from FROM to fe_http
get() {
	ip netns exec "$ns" curl -s -o /dev/null -w '%{http_code} %{time_total}\n' \
	    --max-time 3 --interface "$1" http://192.0.2.1:80/
}
# burst FROM - 15 requests in a row from FROM, one "CODE TIME" a line
burst() {
	for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do get "$1"; done
}
# start CFG - HAProxy on CFG in the namespace, up when fe_monitor answers
# (at the top level, not inside a check: $pid must outlive it)
start() {
	stop
	ip netns exec "$ns" haproxy -db -f "$1" > "$1.log" 2>&1 &
	pid=$!
	for _ in $(seq 1 50); do
		ip netns exec "$ns" curl -s -o /dev/null --max-time 1 http://127.0.0.1:8999/ &&
		    return 0
		sleep 0.1
	done
	return 1
}
stop() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	pid=""
}

# The incident's configuration: global (its stats socket here), defaults,
# fe_monitor, st_src, fe_http as they are; be_app answers 200 itself.
awk -v sock="$PWD/haproxy.sock" '
	/^[a-z]/ { keep = ($1 == "global" || $1 == "defaults" || $2 == "fe_monitor" ||
	    $2 == "st_src" || $2 == "fe_http") }
	keep && $1 == "stats" { print "    stats socket " sock " mode 600 level admin"; next }
	keep' "$DATA/incident/haproxy-tarpit.cfg" > inc.cfg
printf 'backend be_app\n    http-request return status 200 content-type text/plain string ok\n' \
    >> inc.cfg

expect_success 'the incident frontend: its tarpit line is there, haproxy -c accepts the cfg' '
	grep -q "^    http-request tarpit if { sc_http_req_rate(0) gt 10 }" inc.cfg &&
	ip netns exec "$ns" haproxy -c -q -f inc.cfg
'

expect_success '--into: written, checked valid' '
	lbt-deny --into inc.cfg --frontend fe_http -o placed.cfg 203.0.113.7 > diff.out 2> err &&
	grep -q "the configuration is valid" err
'

start placed.cfg; up=$?
expect_success 'placed: a burst from the offender is all 429, each at once; the neighbour 200' '
	test "$up" = 0 &&
	burst 203.0.113.7 > b1 &&
	awk "\$1 != 429 || \$2 >= 0.5 { bad++ } END { exit !(NR == 15 && bad == 0) }" b1 &&
	get 203.0.113.8 > n1 && awk "{ exit !(\$1 == 200) }" n1
'

# The old advice: the same line pasted at the end of fe_http.
awk -v r="    http-request deny deny_status 429 if { src 203.0.113.7 }" '
	/^[a-z]/ { if (in_fe) print r; in_fe = ($2 == "fe_http") } { print }' inc.cfg > appended.cfg

start appended.cfg; up=$?
expect_success 'appended below the tarpit instead: part of the burst is tarpitted (500 after 1 s)' '
	test "$up" = 0 &&
	burst 203.0.113.7 > b2 &&
	awk "\$1 == 500 && \$2 >= 0.9 { slow++ } END { exit !(slow > 0) }" b2
'

expect_success '--into with a -f ACL file (--acl-path) for another source' '
	lbt-deny --into inc.cfg --frontend fe_http -o acl.cfg --acl-path "$PWD/deny.lst" \
	    198.51.100.99 > /dev/null 2> err &&
	grep -q "{ src -f $PWD/deny.lst }" acl.cfg && grep -q "^198.51.100.99$" deny.lst
'
start acl.cfg; up=$?
expect_success 'HAProxy on it: the offender gets 200 (not in the list yet), 198.51.100.99 429' '
	test "$up" = 0 &&
	get 203.0.113.7 > r0 && awk "{ exit !(\$1 == 200) }" r0 &&
	get 198.51.100.99 > r0 && awk "{ exit !(\$1 == 429) }" r0
'

expect_success '--runtime: the offender'"'"'s next request is 429 at once, no reload' '
	p0=$pid && test -n "$p0" &&
	lbt-deny --runtime "$PWD/haproxy.sock" --acl-path "$PWD/deny.lst" 203.0.113.7 \
	    > out 2> err &&
	grep -q "added 1 network to $PWD/deny.lst" err &&
	grep -q "undo: lbt-deny --runtime $PWD/haproxy.sock --acl-path $PWD/deny.lst --undo 203.0.113.7$" err &&
	get 203.0.113.7 > r1 && awk "{ exit !(\$1 == 429 && \$2 < 0.5) }" r1 &&
	get 203.0.113.8 > r2 && awk "{ exit !(\$1 == 200) }" r2 &&
	kill -0 "$p0"
'

expect_success '--undo: the offender gets 200 again; the source the file had stays denied' '
	lbt-deny --runtime "$PWD/haproxy.sock" --acl-path "$PWD/deny.lst" --undo 203.0.113.7 \
	    > out 2> err &&
	grep -q "removed 1 network from" err &&
	get 203.0.113.7 > r3 && awk "{ exit !(\$1 == 200) }" r3 &&
	get 198.51.100.99 > r3 && awk "{ exit !(\$1 == 429) }" r3
'

expect_success '--runtime with an ACL file HAProxy does not load: refused, the line to add said' '
	test_expect_code 1 lbt-deny --runtime "$PWD/haproxy.sock" --acl-path "$PWD/other.lst" \
	    203.0.113.7 > out 2> err &&
	grep -q "$PWD/other.lst is not an ACL file the running HAProxy loads (it loads: $PWD/deny.lst)" err &&
	grep -q "http-request deny deny_status 429 if { src -f $PWD/other.lst }" err &&
	get 203.0.113.7 > r4 && awk "{ exit !(\$1 == 200) }" r4
'
stop
test_done
