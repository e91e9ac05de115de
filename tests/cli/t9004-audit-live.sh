#!/bin/sh
# lbt-audit against HAProxy 2.6 itself, in a network namespace of its own
# (documentation addresses on its loopback, nothing outside): what the
# audit says HAProxy does is what HAProxy does.
#   tarpit-nohold.cfg     fe_nohold has no `timeout tarpit` and a frontend
#                         no `timeout connect`: its tarpitted requests are
#                         answered at once (Tw < 100 ms); li_hold, a listen,
#                         holds them its `timeout connect` of 1500 ms
#   rate-limit-host.cfg   fe_api's deny applies to Host api.example.com
#                         only: requests with www.example.com from the same
#                         source are never denied, and the audit of the
#                         real log says so, with the right counts
# The configurations are run as they are, with their log lines sent to
# HAProxy's stdout (`log stdout`, `option httplog` for tarpit-nohold.cfg)
# and their binds on 192.0.2.1.  Every curl has a 3 s limit; HAProxy is
# stopped and the namespace deleted on exit.  Needs root (ip netns).
. "$(dirname "$0")/lib.sh"

live_ns lbtaudit 192.0.2.1 192.0.2.10 203.0.113.7

# start CFG LOG - run HAProxy on CFG in the namespace, its log to LOG
start() {
	ip netns exec "$ns" haproxy -db -f "$1" > "$2" 2> "$2.err" &
	pid=$!
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		ip netns exec "$ns" curl -s -o /dev/null --max-time 1 http://192.0.2.1:"$3"/ && return 0
		sleep 0.2
	done
	return 1
}
# stop - stop HAProxy (its log is complete once it exited)
stop() { kill "$pid" && wait "$pid"; pid=""; return 0; }
# get FROM HOST URL - the requests of URL ("/ping/[1-8]": 8 of them, one
# curl, so that they come faster than the limits); prints their statuses
get() {
	ip netns exec "$ns" curl -s -o "body#1" -w '%{http_code}\n' --max-time 3 \
	    --interface "$1" -H "Host: $2" "$3"
}

# 25 requests for one key
KEYURL="http://192.0.2.1:18441/ping/f768064f-9585-47ad-a39e-ed24c2c063fe?n=[1-25]"
sed -e 's/bind 127\.0\.0\.1:/bind 192.0.2.1:/' \
    -e 's/^defaults$/defaults\n    log stdout format raw local0\n    option httplog/' \
    "$DATA/audit/tarpit-nohold.cfg" > nohold.cfg
sed -e 's/bind 127\.0\.0\.1:/bind 192.0.2.1:/' -e 's/log 127\.0\.0\.1:5140/log stdout/' \
    "$DATA/audit/rate-limit-host.cfg" > hosts.cfg

expect_success 'the tarpit holds: none in a frontend, timeout connect in a listen' '
	start nohold.cfg nohold.log 18411 &&
	get 192.0.2.10 a "http://192.0.2.1:18411/ping/[1-8]" > s1 &&
	get 192.0.2.10 a "http://192.0.2.1:18412/ping/[1-8]" > s2 &&
	stop &&
	awk "\$3 == \"fe_nohold\" && \$10 ~ /^PT/ { split(\$5, t, \"/\"); n++; if (t[2] >= 100) bad++ }
	    END { exit !(n >= 2 && bad == 0) }" nohold.log &&
	awk "\$3 == \"li_hold\" && \$10 ~ /^PT/ { split(\$5, t, \"/\"); n++; if (t[2] < 1500 || t[2] > 1700) bad++ }
	    END { exit !(n >= 1 && bad == 0) }" nohold.log
'

expect_success 'lbt-audit says so of the same configuration' '
	lbt-audit nohold.cfg > out.tsv;
	cut -f 3,4 out.tsv | grep -Fx "fe_nohold	tarpit-no-hold" &&
	awk -F "\t" "\$3 == \"li_hold\" && \$4 == \"tarpit-rate-limit\" { print \$5 }" out.tsv |
	    grep -F "is held 1.5 s"
'

expect_success 'the Host rate limit: api.example.com denied, www.example.com never' '
	start hosts.cfg hosts.log 18441 &&
	get 203.0.113.7 api.example.com "$KEYURL" > api &&
	get 203.0.113.7 www.example.com "$KEYURL" > www &&
	stop &&
	grep -qx 429 api && ! grep -qvx 200 www
'

expect_success 'lbt-audit of the real log: the Host it escaped by, with the log'"'"'s counts' '
	test_expect_code 4 lbt-audit hosts.cfg hosts.log > out.tsv 2> err &&
	ok=$(awk "\$3 == \"fe_api\" && /{www.example.com\\|/" hosts.log | wc -l) &&
	lim=$(awk "\$3 == \"fe_api\" && /{api.example.com\\|/ && \$6 == 429" hosts.log | wc -l) &&
	test "$ok" -eq 25 && test "$lim" -ge 1 &&
	awk -F "\t" "\$3 == \"fe_api\" && \$4 == \"rate-limit-host\" { print \$5 }" out.tsv > what &&
	grep -F "(50 requests, $lim limited) did not always send: it also arrived with Host www.example.com (25 requests, 0 limited)" what
'

test_done
