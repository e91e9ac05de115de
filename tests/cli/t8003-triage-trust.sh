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

# The spoofed flood of issue 19: 203.0.113.66 sends X-Forwarded-For:
# 198.51.100.7, 1500 requests; the calm clients send no header.
gen 203.0.113.66 198.51.100.7 > xff.log
H="--haproxy-cfg lb.cfg"

expect_success 'lbt-cat --json marks every header client, the connecting address beside' '
	lbt-cat --json $H xff.log > recs.json &&
	python3 -c "import json, sys, collections
c = collections.Counter()
for l in open(\"recs.json\"):
    r = json.loads(l)
    c[(r[\"client\"], r[\"client_from\"], r[\"conn\"])] += 1
for k, n in sorted(c.items(), key=str): print(n, *k)" > got &&
	{ echo "1500 198.51.100.7 header 203.0.113.66" &&
	  for i in 0 1 2 3 4 5 6 7 8 9; do echo "90 192.0.2.1$i None None"; done; } | sort > expect &&
	sort got > got.s && test_cmp expect got.s
'

expect_success 'lbt-cat --trusted-proxies: the connecting address trusted, the header counts' '
	lbt-cat $H --trusted-proxies 203.0.113.66 -f client,client_from,conn xff.log |
	    sort | uniq -c | sed "s/^ *//" | sort > got &&
	printf "%s\n" "1500 198.51.100.7	trusted-header	203.0.113.66" \
	    "1 client	client_from	conn" > want &&
	for i in 0 1 2 3 4 5 6 7 8 9; do printf "90 192.0.2.1%s		\n" $i; done >> want &&
	sort want > expect && test_cmp expect got
'

expect_success '... not trusted (another list, @FILE): the connecting address, marked conn' '
	printf "# our proxies\n192.0.2.0/24   # the calm ones, as it happens\n" > prox.lst &&
	lbt-cat $H --trusted-proxies @prox.lst -f client,client_from xff.log | sort | uniq -c |
	    sed "s/^ *//" | grep "203.0.113.66" > got &&
	printf "1500 203.0.113.66\tconn\n" > expect && test_cmp expect got
'

expect_success 'a bad --trusted-proxies: usage error naming it (and the file and line)' '
	test_expect_code 1 lbt-cat $H --trusted-proxies 198.51.100.0/33 xff.log 2> err &&
	grep -q "^lbt-cat: --trusted-proxies: .198.51.100.0/33. is not an address or network" err &&
	printf "192.0.2.1\nnope\n" > bad.lst &&
	test_expect_code 1 lbt-cat $H --trusted-proxies @bad.lst xff.log 2> err &&
	grep -q "^lbt-cat: bad.lst:2: --trusted-proxies: .nope. is not an address or network" err
'

expect_success 'lbt-cat TSV read back keeps client_from and conn' '
	lbt-cat $H xff.log > recs.tsv &&
	lbt-cat --format lbt-tsv -f client,client_from,conn recs.tsv | sort | uniq -c |
	    sed "s/^ *//" | grep 198.51.100.7 > got &&
	printf "1500 198.51.100.7\theader\t203.0.113.66\n" > expect && test_cmp expect got
'

expect_success 'lbt-triage: the rule is on the connecting address, with a warning' '
	test_expect_code 5 lbt-triage $H xff.log > screen &&
	grep -q "^203\\.0\\.113\\.66  *1500 .* deny\$" screen &&
	! grep -q "198\\.51\\.100\\.7" screen &&
	tr "\n" " " < screen | grep -q "warning: 1500 requests carried an X-Forwarded-For address, which any client can *forge: without --trusted-proxies the sources and the *rule are the connecting *addresses" &&
	rule screen > lines &&
	echo "    http-request deny deny_status 429 if { src 203.0.113.66 }" > expect &&
	test_cmp expect lines && hap lines &&
	lbt-triage --json $H xff.log > xff.json ;
	test "$(js "(d[\"rule\"][\"networks\"], d[\"data\"][\"x_forwarded_for\"])" xff.json)" = \
	    "([${Q}203.0.113.66${Q}], {${Q}trusted_proxies${Q}: False, ${Q}set_aside${Q}: 1500, ${Q}unverified${Q}: 0, ${Q}trusted${Q}: 0})"
'

expect_success 'lbt-triage --trusted-proxies the connecting address: the header'"$Q"'s entry counts' '
	test_expect_code 5 lbt-triage $H --trusted-proxies 203.0.113.66 xff.log > screen_t &&
	grep -q "^198\\.51\\.100\\.7  *1500 .* deny\$" screen_t &&
	tr "\n" " " < screen_t | grep -q "note: 1500 requests have their client from X-Forwarded-For" &&
	grep -q "^  198.51.100.7 came through 203.0.113.66\$" screen_t &&
	lbt-triage --json $H --trusted-proxies 203.0.113.66 xff.log > xff_t.json ;
	test "$(js "[(s[\"source\"], s[\"via\"], s[\"from_header\"]) for s in d[\"sources\"] if s[\"offender\"]]" xff_t.json)" = \
	    "[(${Q}198.51.100.7${Q}, ${Q}203.0.113.66${Q}, 0)]" &&
	! grep -q "^warning: " screen_t &&
	rule screen_t > lines_t &&
	echo "    http-request deny deny_status 429 if { src 198.51.100.7 }" > expect &&
	test_cmp expect lines_t && hap lines_t
'

expect_success 'without a header there is no warning (the bind flood above)' '
	! grep -q "X-Forwarded-For" screen24
'

expect_success 'lbt-offenders: a from_header column and a warning; lbt-deny leaves such a source out' '
	lbt-offenders --no-geoip $H xff.log > off.tsv 2> err &&
	grep -q "^lbt-offenders: warning: 1500 of 2400 requests have a client address taken from an X-Forwarded-For header" err &&
	awk -F "\t" "NR == 1 { for (i = 1; i <= NF; i++) { if (\$i == \"from_header\") c = i
	    if (\$i == \"via\") v = i } }
	    NR > 1 && \$c > 0 { print \$1, \$2, \$c, \$v }" off.tsv > got &&
	echo "198.51.100.7 1500 1500 203.0.113.66" > expect && test_cmp expect got &&
	test_expect_code 2 lbt-deny --min-share 10 < off.tsv > out 2> err &&
	grep -q "^lbt-deny: left out 198.51.100.7: an X-Forwarded-For address in 1500 requests, which any client can write; sent by 203.0.113.66 (--trust-header to deny it)\$" err &&
	test ! -s out
'

expect_success 'lbt-deny --trust-header denies it all the same; NDJSON says the same' '
	lbt-deny --trust-header --min-share 10 < off.tsv > out &&
	echo "    http-request deny deny_status 429 if { src 198.51.100.7 }" > expect &&
	grep "^    [a-z]" out > got && test_cmp expect got && hap got &&
	lbt-offenders --no-geoip --json $H xff.log 2> /dev/null |
	    test_expect_code 2 lbt-deny --min-share 10 2> err &&
	grep -q "^lbt-deny: left out 198.51.100.7: an X-Forwarded-For address in 1500 requests, which any client can write; sent by 203.0.113.66 " err
'

expect_success 'lbt-offenders --trusted-proxies: no from_header column, no warning' '
	lbt-offenders --no-geoip $H --trusted-proxies 203.0.113.66 xff.log > off_t.tsv 2> err &&
	test ! -s err && ! head -n 1 off_t.tsv | grep -q from_header &&
	head -n 1 off_t.tsv | tr "\t" "\n" | tail -n 1 > got && echo via > expect &&
	test_cmp expect got
'

expect_success 'NGINX $remote_addr and $http_x_forwarded_for: the same choice' '
	awk -F "|" "{ printf \"%s - - [30/Nov/2026:07:45:%02d +0000] \\\"GET /ping/x HTTP/1.1\\\" 200 2 \\\"-\\\" \\\"curl\\\" \\\"%s\\\"\\n\", \$1, NR, \$2 }" > ngx.log <<-EOF &&
	203.0.113.66|198.51.100.7
	203.0.113.66|198.51.100.7, 198.51.100.9
	192.0.2.10|-
	EOF
	F="--format nginx-main" &&
	lbt-cat $F -f client,client_from,conn ngx.log > got &&
	printf "%s\n" "client	client_from	conn" "203.0.113.66	conn	" "203.0.113.66	conn	" \
	    "192.0.2.10		" > expect && test_cmp expect got &&
	lbt-cat $F --trusted-proxies 203.0.113.66,198.51.100.9 -f client,client_from,conn ngx.log > got &&
	printf "%s\n" "client	client_from	conn" "198.51.100.7	trusted-header	203.0.113.66" \
	    "198.51.100.7	trusted-header	203.0.113.66" "192.0.2.10		" > expect &&
	test_cmp expect got
'
test_done
