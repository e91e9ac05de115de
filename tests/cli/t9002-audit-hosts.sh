#!/bin/sh
# lbt-audit rate-limit-host: a rate limit that requires one Host, while the
# logs show the flood key arriving with another.  The log is written here
# by awk, in fe_api's and fe_www's format (option httplog, Host and
# User-Agent captured), 07:00:00 on:
#   fe_api  key KA from 203.0.113.7 every 50 ms: 60 with Host
#           api.example.com (the first 10 answered, then 50 denied 429,
#           PR--), then 40 with www.example.com (all 200); and 5 requests
#           of key KB from 192.0.2.10 (api.example.com, 200)
#   fe_www  key KA every 50 ms: 30 with www.example.org (10 then 20 denied),
#           then 15 with shop.example.com (200)
# By hand: fe_api's ACL api_host (hdr(host) -i api.example.com) misses the
# 40 requests with www.example.com; fe_www's track-sc0 rule, only for
# Hosts ending in .example.org, misses the 15 with shop.example.com.
# The evidence is the first request with that Host (awk), the change the
# pattern line with the Host added.
. "$(dirname "$0")/lib.sh"

PATH=/usr/sbin:$PATH
test_have haproxy || missing haproxy
cp "$DATA/audit/rate-limit-host.cfg" . || missing "tests/data/audit/rate-limit-host.cfg"
KA=f768064f-9585-47ad-a39e-ed24c2c063fe
KB=e66c0e98-1942-4e8a-b4c6-049fa9998118

# line FE MS SRC HOST KEY STATUS - one httplog line of frontend FE at MS ms
awk -v ka=$KA -v kb=$KB '
function line(fe, ms, src, host, key, st) {
	printf "%d\t%s:%d [01/Dec/2026:07:00:%02d.%03d] %s %s 0/0/0/0/0 %d 125 - - %s 1/1/0/0/0 0/0 {%s|Go-http-client/1.1} \"GET /ping/%s HTTP/1.1\"\n",
	    ms, src, 40000 + n++, int(ms / 1000), ms % 1000, fe,
	    st == 429 ? fe "/<NOSRV>" : "be_app/<NOSRV>", st, st == 429 ? "PR--" : "----", host, key
}
BEGIN {
	for (i = 0; i < 100; i++)
		line("fe_api", i * 50, "203.0.113.7", i < 60 ? "api.example.com" : "www.example.com",
		    ka, i >= 10 && i < 60 ? 429 : 200)
	for (k = 0; k < 5; k++)
		line("fe_api", 25 + k * 1000, "192.0.2.10", "api.example.com", kb, 200)
	for (i = 0; i < 45; i++)
		line("fe_www", 10 + i * 50, "203.0.113.7", i < 30 ? "www.example.org" : "shop.example.com",
		    ka, i >= 10 && i < 30 ? 429 : 200)
}' | sort -n -k1,1 | cut -f2- > hosts.log

# first LINE-PATTERN - the number of the first log line holding it
first() { grep -n -- "$1" hosts.log | head -n 1 | cut -d: -f1; }
# cfgline PATTERN - the line of the configuration holding it
cfgline() { grep -n -- "$1" rate-limit-host.cfg | head -n 1 | cut -d: -f1; }
col() { sed 1d out.tsv | cut -f "$1"; }

expect_success 'haproxy -c accepts rate-limit-host.cfg' '
	haproxy -c -f rate-limit-host.cfg > /dev/null 2>&1
'

expect_success 'the configuration alone: nothing to report' '
	test_expect_code 0 lbt-audit rate-limit-host.cfg > out.tsv && test $(wc -l < out.tsv) -eq 1
'

expect_success 'with the log: one finding per frontend, on its rate-limit rule' '
	test_expect_code 4 lbt-audit rate-limit-host.cfg hosts.log > out.tsv 2> err && test ! -s err &&
	printf "warn\trate-limit-host.cfg:%s\tfe_api\trate-limit-host\n" \
	    $(cfgline "deny deny_status 429 hdr Retry-After 10 if api_host") > expect &&
	printf "warn\trate-limit-host.cfg:%s\tfe_www\trate-limit-host\n" \
	    $(cfgline "if { sc0_http_req_rate gt 10 }") >> expect &&
	col 1-4 > got && test_cmp expect got
'

expect_success 'fe_api: the key, its counts and the Host it escaped by (hand counts)' '
	col 5 | sed -n 1p > what &&
	grep -F "the flood key $KA (100 requests, 50 limited) did not always send: it also arrived with Host www.example.com (40 requests, 0 limited)" what &&
	echo "acl api_host hdr(host) -i api.example.com www.example.com" > expect &&
	col 7 | sed -n 1p > got && test_cmp expect got &&
	echo "hosts.log:$(first "fe_api .*{www.example.com|")" > expect &&
	col 8 | sed -n 1p > got && test_cmp expect got
'

expect_success 'fe_www: the track-sc0 rule is the one to widen' '
	col 5 | sed -n 2p > what &&
	grep -F "(45 requests, 20 limited) did not always send: it also arrived with Host shop.example.com (15 requests, 0 limited)" what &&
	echo "http-request track-sc0 src table st_api if { hdr(host) -m end .example.org shop.example.com }" > expect &&
	col 7 | sed -n 2p > got && test_cmp expect got &&
	echo "hosts.log:$(first "fe_www .*{shop.example.com|")" > expect &&
	col 8 | sed -n 2p > got && test_cmp expect got
'

expect_success 'the changed configuration is one HAProxy accepts, and it covers the Hosts' '
	a=$(cfgline "acl api_host") && t=$(cfgline "track-sc0 src table st_api if") &&
	awk -v a=$a -v t=$t -v la="$(col 7 | sed -n 1p)" -v lt="$(col 7 | sed -n 2p)" \
	    "NR == a { print \"    \" la; next } NR == t { print \"    \" lt; next } { print }" \
	    rate-limit-host.cfg > fixed.cfg &&
	haproxy -c -f fixed.cfg > /dev/null 2>&1 &&
	test_expect_code 0 lbt-audit fixed.cfg hosts.log > out2.tsv && test $(wc -l < out2.tsv) -eq 1
'

expect_success '--frontend fe_www: only its finding' '
	test_expect_code 4 lbt-audit --frontend fe_www rate-limit-host.cfg hosts.log > one.tsv &&
	sed 1d one.tsv | cut -f 3,4 > got &&
	printf "fe_www\trate-limit-host\n" > expect && test_cmp expect got
'

test_done
