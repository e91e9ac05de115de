#!/bin/sh
# lbt-triage's answers you can trust: the rule never names the load
# balancer's own addresses (the bind lines of --haproxy-cfg), and a client
# address taken from X-Forwarded-For, which any client can write, is
# marked as such and never becomes the rule without --trusted-proxies.
# The logs are made here by awk (gen), so every count is known by
# construction: 60 s of calm (ten clients 192.0.2.10-19, 1 req/s each,
# one key each), then 30 s in which one connecting address sends 50 req/s
# on one key (1500 requests), maybe with an X-Forwarded-For header.  The
# rules written pass haproxy -c.
. "$(dirname "$0")/lib.sh"

PATH=/usr/sbin:/sbin:$PATH
test_have awk || missing awk
test_have python3 || missing python3
test_have haproxy || missing haproxy
Q="'"

# gen SRC XFF - the log: the flood from SRC, its header XFF ("-" none);
# the calm clients send no header.  HAProxy httplog with one request
# capture (%hr), the X-Forwarded-For header.
gen() {
	awk -v src="$1" -v xff="$2" 'BEGIN {
		t0 = 1796024700
		for (s = 0; s < 90; s++) {
			for (c = 0; c < 10; c++)
				line(t0 + s, c * 10, "192.0.2." (10 + c), "", sprintf("%08d", c))
			if (s >= 60)
				for (i = 0; i < 50; i++)
					line(t0 + s, i * 20, src, xff == "-" ? "" : xff, "deadbeef")
		}
	}
	function line(t, ms, a, h, k) {
		printf "%s:40000 [%s.%03d] fe_http be_app/app1 0/0/0/1/1 200 135 - - ---- " \
		    "1/1/1/1/0 0/0 {%s} \"GET /ping/%s-0000-4000-8000-000000000000 HTTP/1.1\"\n",
		    a, strftime("%d/%b/%Y:%H:%M:%S", t, 1), ms, h, k
	}'
}
# js EXPR FILE - evaluate EXPR on the JSON document FILE (d) with python3
js() { python3 -c 'import json, sys; d = json.load(open(sys.argv[2])); print(eval(sys.argv[1]))' "$1" "$2"; }
# rule SCREEN - the rule lines of a triage screen
rule() { sed -n "/^rule: /,/^written by:/p" "$1" | grep "^    [a-z]"; }
# hap LINES - haproxy -c on a frontend ending with LINES
hap() {
	printf "%s\n" "defaults" "    mode http" "    timeout connect 1s" "    timeout client 2s" \
	    "    timeout server 2s" "backend be_ok" "    http-request return status 200" \
	    "frontend fe_http" "    bind 127.0.0.1:18080" "    default_backend be_ok" > full.cfg &&
	cat "$1" >> full.cfg && haproxy -c -q -f full.cfg
}
cat > lb.cfg <<'EOF'
frontend fe_http
    bind 192.0.2.1:80
    bind [2001:db8::5]:443
    log-format "%ci:%cp [%tr] %ft %b/%s %TR/%Tw/%Tc/%Tr/%Ta %ST %B %CC %CS %tsc %ac/%fc/%bc/%sc/%rc %sq/%bq %hr %{+Q}r"
    http-request capture req.hdr(x-forwarded-for) len 64
EOF

expect_success 'a flood from the LB'"$Q"'s bind address: never in the rule, and why' '
	gen 192.0.2.1 - > bind.log &&
	test "$(grep -c "^192\\.0\\.2\\.1:" bind.log)" = 1500 &&
	test_expect_code 5 lbt-triage --haproxy-cfg lb.cfg bind.log > screen &&
	grep -q "^192\\.0\\.2\\.1  *1500 .* left\$" screen &&
	grep -q "^rule: none: every source to deny was left out" screen &&
	grep -q "^  left out 192.0.2.1: the load balancer${Q}s own address (bind at lb.cfg:2)\$" screen &&
	! grep -q "src 192.0.2.1" screen &&
	lbt-triage --json --haproxy-cfg lb.cfg bind.log > bind.json ;
	test "$(js "d[\"rule\"] is None or \"192.0.2.1\" not in d[\"rule\"][\"networks\"]" bind.json)" = True
'

expect_success '... and its /24 (--v4-prefix 24) is cut around it; the list passes haproxy -c' '
	test_expect_code 5 lbt-triage --v4-prefix 24 --haproxy-cfg lb.cfg bind.log > screen24 &&
	grep -q "^  left out 192.0.2.1: the load balancer${Q}s own address" screen24 &&
	lbt-triage --json --v4-prefix 24 --haproxy-cfg lb.cfg bind.log > b24.json ;
	js "\"\\n\".join(d[\"rule\"][\"networks\"])" b24.json > nets.lst &&
	printf "%s\n" 192.0.2.0 192.0.2.2/31 192.0.2.4/30 192.0.2.8/29 192.0.2.16/28 \
	    192.0.2.32/27 192.0.2.64/26 192.0.2.128/25 > expect && test_cmp expect nets.lst &&
	echo "    http-request deny deny_status 429 if { src -f $PWD/nets.lst }" > lines &&
	hap lines
'
test_done
