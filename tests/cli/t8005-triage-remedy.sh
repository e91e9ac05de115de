#!/bin/sh
# lbt-triage's remedy by cause, its verdict and exit status on generated
# logs (docs/judge.md).  The logs are written here by awk, second by
# second, so every expected value follows from how they were built:
#   cust.log   three sources at 1/s for 180 s; the customer 198.51.100.50
#              at 1/s, then 30/s from s = 60 to 90 (all but one a second
#              answered 429: re-sends), then 1/s again
#   lb1.log    192.0.2.10 at 1/s for 120 s, the flooder 203.0.113.7 at
#              40/s from s = 60
#   lb2.log    the other LB, whose log begins 6 s later: 198.51.100.61 at
#              3/s and the batch sender 198.51.100.51, 30 requests every
#              10 s (s % 10 = 7)
#   surge.log  ten sources at 1/s for 60 s, then 6/s each for 60 s
#   slow.log   three sources at 1/s for 60 s, 198.51.100.77 at 2/s whose
#              requests never send whole headers (408, cR--)
#   dist.log   three sources at 1/s and a customer inside 2001:db8:77::/48
#              at 1/s for 120 s; from s = 60, 40 new sources of that /48
#              (a /64 each) at 2/s each; every request on one key
. "$(dirname "$0")/lib.sh"

test_have python3 || missing python3
PATH=/usr/sbin:/sbin:$PATH
test_have haproxy || missing haproxy

# gen DURATION SPEC [KEY]: SPEC is "ADDR FROM TO N STATUS [EVERY]" items joined by
# ";": N requests a second from ADDR in seconds [FROM, TO), answered STATUS
# (the first of each second 200 when STATUS is 429; 408 ends cR--), only in the seconds
# s % EVERY = 7 when EVERY is given; the key's last digit is KEY for
# every line when given, else the item's number; HAProxy httplog, in time
# order.
gen() {
	awk -v dur="$1" -v spec="$2" -v key="${3-}" 'BEGIN {
		ns = split(spec, sp, ";")
		for (s = 0; s < dur; s++)
			for (k = 1; k <= ns; k++) {
				split(sp[k], f, " ")
				if (s < f[2] + 0 || s >= f[3] + 0) continue
				if (f[6] != "" && s % f[6] != 7) continue
				for (i = 0; i < f[4]; i++) {
					st = (f[5] == 429 && i == 0) ? 200 : f[5]
					printf "%s:%d [01/Nov/2025:10:%02d:%02d.%03d] fe_http be_app/app1 " \
					    "0/0/0/1/1 %d 135 - - %s 1/1/0/0/0 0/0 {ping.example|curl/8.5.0} " \
					    "\"GET /ping/0f000000-0000-4000-8000-00000000000%d HTTP/1.1\"\n",
					    f[1], 10000 + i, int(s / 60), s % 60, (k * 37 + i * 7) % 1000, st,
					    st == 408 ? "cR--" : "----", key != "" ? key : k % 10
				}
			}
	}' | sort -s -k2,2
}
js() { python3 -c 'import json, sys; d = json.load(open(sys.argv[2])); print(eval(sys.argv[1]))' "$1" "$2"; }
Q="'"
wide() { awk 'length($0) > 80 { print FILENAME ":" FNR ": " $0 }' "$1"; }
# cfg FILE: a haproxy.cfg whose frontend holds the lines of FILE
cfg() {
	printf "%s\n" "global" "    maxconn 100" "defaults" "    mode http" \
	    "    timeout connect 1s" "    timeout client 2s" "    timeout server 2s" \
	    "backend be_ok" "    http-request return status 200" \
	    "frontend fe_http" "    bind 127.0.0.1:18080" "    default_backend be_ok" > full.cfg &&
	sed "s/^/    /" "$1" >> full.cfg
}

gen 180 "192.0.2.10 0 180 1 200;192.0.2.11 0 180 1 200;192.0.2.12 0 180 1 200;\
198.51.100.50 0 60 1 200;198.51.100.50 60 90 30 429;198.51.100.50 90 180 1 200" > cust.log
gen 120 "192.0.2.10 0 120 1 200;203.0.113.7 60 120 40 200" > lb1.log
gen 120 "198.51.100.61 6 120 3 200;198.51.100.51 6 120 30 200 10" > lb2.log
gen 120 "$(for k in 0 1 2 3 4 5 6 7 8 9; do
	printf "198.51.100.%d 0 60 1 200;198.51.100.%d 60 120 6 200;" $((10 + k)) $((10 + k)); done)" > surge.log
gen 60 "192.0.2.10 0 60 1 200;192.0.2.11 0 60 1 200;192.0.2.12 0 60 1 200;\
198.51.100.77 0 60 2 408" > slow.log
gen 120 "192.0.2.10 0 120 1 200;192.0.2.11 0 120 1 200;192.0.2.12 0 120 1 200;\
2001:db8:77:ff::1 0 120 1 200;$(for k in $(seq 1 40); do
	printf "2001:db8:77:%x::1 60 120 2 200;" "$k"; done)" 7 > dist.log

expect_success 'a customer back at its rate for 90 s: over, exit 4, the document says so' '
	test_expect_code 4 lbt-triage cust.log > screen &&
	test_expect_code 4 lbt-triage --json cust.log > cust.json &&
	test "$(js "d[\"verdict\"]" cust.json)" = over &&
	grep -q "^ANOMALY .*, over: " screen && test -z "$(wide screen)"
'

expect_success 'cut at the end of its burst (--until 10:01:30): ongoing, exit 5' '
	test_expect_code 5 lbt-triage --until 10:01:30 cust.log > /dev/null &&
	test_expect_code 5 lbt-triage --json --until 10:01:30 cust.log > cut.json &&
	test "$(js "d[\"verdict\"]" cut.json)" = ongoing
'

expect_success 'the customer is rate-limited, never denied: 30 a 10 s window (3 x 1/s x 10 s)' '
	test "$(js "(d[\"rule\"][\"action\"], d[\"rule\"][\"networks\"])" cust.json)" = \
	    "(${Q}rate-limit$Q, [${Q}198.51.100.50$Q])" &&
	test "$(js "[(s[\"source\"], s[\"cause\"], s[\"limit\"], s[\"stopped\"])
	    for s in d[\"sources\"] if s[\"offender\"]]" cust.json)" = \
	    "[(${Q}198.51.100.50$Q, ${Q}customer$Q, 30, 810)]" &&
	test "$(js "d[\"remedy\"][\"retry_after\"]" cust.json)" = 10 &&
	! grep -q "http-request deny" screen &&
	grep -q "^rule: rate limit: 198.51.100.50 is a customer " screen
'

expect_success 'its rate limit keys on src,ipmask(32,64), sends Retry-After; haproxy -c reads it' '
	js "\"\\n\".join(d[\"remedy\"][\"rate_limit_lines\"])" cust.json > limit &&
	grep -q "^http-request track-sc0 src,ipmask(32,64)\$" limit &&
	grep -q "^acl lbt_c1 src 198.51.100.50\$" limit &&
	grep -q "^acl lbt_c1_over sc0_http_req_rate gt 30\$" limit &&
	grep -q "^http-request return status 429 hdr Retry-After 10 if lbt_c1 lbt_c1_over\$" limit &&
	cfg limit && haproxy -c -dW -f full.cfg
'

expect_success 'two LBs whose logs begin 6 s apart and a batch sender: only the flooder is new' '
	test_expect_code 5 lbt-triage --json lb1.log lb2.log > lb.json &&
	test "$(js "sorted(s[\"source\"] for s in d[\"sources\"] if s[\"new\"])" lb.json)" = \
	    "[${Q}203.0.113.7$Q]" &&
	test "$(js "d[\"rule\"][\"networks\"]" lb.json)" = "[${Q}203.0.113.7$Q]" &&
	js "\"\\n\".join(d[\"rule\"][\"lines\"])" lb.json > deny && cfg deny &&
	haproxy -c -dW -f full.cfg
'

expect_success 'their shares are of the requests since the jump (awk on both logs)' '
	cat lb1.log lb2.log | awk "\$2 >= \"[01/Nov/2025:10:01:00\" { n++; if (index(\$1, \"203.0.113.7:\") == 1) a++ }
	    END { printf \"%.1f\\n\", 100 * a / n }" > expect &&
	js "\"%.1f\" % [s[\"share\"] for s in d[\"sources\"] if s[\"source\"] == \"203.0.113.7\"][0]" lb.json > got &&
	test_cmp expect got
'

expect_success 'a proportional surge: no rule, capacity is the question' '
	lbt-triage --json surge.log > surge.json ;
	test "$(js "(d[\"rule\"], d[\"remedy\"][\"surge\"], d[\"remedy\"][\"rate_limited\"])" surge.json)" = \
	    "(None, True, 0)" &&
	lbt-triage surge.log > surge.txt ;
	grep -q "^rule: none: every source rose with the total" surge.txt &&
	grep -q "capacity is the question" surge.txt && ! grep -q "http-request" surge.txt
'

expect_success 'slow headers: named, timeout http-request, not denied; haproxy -c reads it' '
	lbt-triage --json slow.log > slow.json ;
	test "$(js "[(s[\"source\"], s[\"cause\"], s[\"slow\"]) for s in d[\"sources\"] if s[\"offender\"]]" slow.json)" = \
	    "[(${Q}198.51.100.77$Q, ${Q}slow$Q, 120)]" &&
	test "$(js "d[\"rule\"]" slow.json)" = None &&
	js "\"\\n\".join(d[\"remedy\"][\"timeout_lines\"])" slow.json > timeout &&
	echo "timeout http-request 5s" > expect && test_cmp expect timeout &&
	cfg timeout && haproxy -c -dW -f full.cfg
'

expect_success 'a distributed flood: the /48, with the customer inside it shown (120 requests)' '
	lbt-triage --json dist.log > dist.json ;
	test "$(js "d[\"rule\"][\"networks\"]" dist.json)" = "[${Q}2001:db8:77::/48$Q]" &&
	test "$(js "[(p[\"sources\"], p[\"legit_sources\"], p[\"legit_requests\"]) for p in d[\"remedy\"][\"prefixes\"]]" dist.json)" = \
	    "[(40, 1, $(grep -c "^2001:db8:77:ff::1:" dist.log))]" &&
	lbt-triage dist.log > dist.txt ;
	grep -q "^aggregate: 2001:db8:77::/48 holds 40 new sources" dist.txt && test -z "$(wide dist.txt)" &&
	js "\"\\n\".join(d[\"rule\"][\"lines\"])" dist.json > deny48 && cfg deny48 &&
	haproxy -c -dW -f full.cfg
'

test_done
