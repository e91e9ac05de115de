#!/bin/sh
# lbt-deny --into: the rule placed into a haproxy.cfg where it acts (above
# the frontend's first http-request rule that answers or counts), never in
# a backend, checked with haproxy -c, shown as a diff; the printed snippet
# names the line it must precede.  Expected lines by awk over the
# configuration, never from lbt-deny.  No HAProxy is started here (the
# live checks are t7005).
#   inc.cfg: the incident's haproxy-tarpit.cfg without fe_https (its
#   certificate exists only in the lab), so that haproxy -c accepts it.
. "$(dirname "$0")/lib.sh"

SOURCE_DATE_EPOCH=1764979200; export SOURCE_DATE_EPOCH
PATH=/usr/sbin:/sbin:$PATH
test_have haproxy || missing haproxy
test_have awk || missing awk

# drop_section NAME < CFG - the configuration without section NAME
drop_section() {
	awk -v n="$1" '/^[a-z]/ { skip = ($2 == n) } !skip'
}
# first_rule FE FILE - the line number of FE's first http-request rule that
# answers or counts (the rule must go above it)
first_rule() {
	awk -v fe="$2" '/^[a-z]/ { in_fe = ($1 == "frontend" && $2 == fe) }
	    in_fe && $1 == "http-request" && $2 ~ /^(track-sc|deny|tarpit|return|redirect)/ {
	        print NR; exit }' "$1"
}
# section_of PATTERN FILE - "KEYWORD NAME" of the section holding the first
# line matching PATTERN
section_of() {
	awk -v p="$1" '/^[a-z]/ { s = $1 " " $2 } index($0, p) { print s; exit }' "$2"
}
V=$(sed -n 's/^#define LBT_VERSION "\(.*\)"$/\1/p' "$TOP/include/lbt/version.h")
RULE='http-request deny deny_status 429 if { src 203.0.113.7 2001:db8:bad:1::/64 }'

drop_section fe_https < "$DATA/incident/haproxy-tarpit.cfg" > inc.cfg

expect_success 'the incident cfg: haproxy -c accepts it as it is' '
	haproxy -c -q -f inc.cfg
'

expect_success '--into -o: the rule above fe_http'"'"'s first counting rule, nothing else changed' '
	L=$(first_rule inc.cfg fe_http) && test "$L" = 46 &&
	lbt-deny --into inc.cfg --frontend fe_http -o new.cfg 203.0.113.7 2001:db8:bad:1::/64 \
	    > out 2> err &&
	sed -n "$L,$((L + 1))p" new.cfg > got &&
	{ echo "    # lbt-deny $V at 2025-12-06T00:00:00Z: lbt-deny --into inc.cfg --frontend fe_http -o new.cfg 203.0.113.7 2001:db8:bad:1::/64" &&
	  echo "    $RULE"; } > expect && test_cmp expect got &&
	sed "$L,$((L + 1))d" new.cfg > back && test_cmp inc.cfg back &&
	grep -q "haproxy -c -f new.cfg: the configuration is valid" err
'

expect_success '--into prints the unified diff: two lines added at that line' '
	L=$(first_rule inc.cfg fe_http) &&
	grep -q "^--- inc.cfg$" out && grep -q "^+++ new.cfg$" out &&
	grep -c "^+ " out > n && test "$(cat n)" = 2 &&
	grep -q "^+    $RULE" out &&
	grep "^@@" out > hunk && grep -q "^@@ -$((L - 3)),6 +$((L - 3)),8 @@" hunk
'

expect_success 'sections reordered (the backends above, fe_http last): placed right again' '
	{ drop_section fe_http < inc.cfg | drop_section be_app | drop_section be_tcp &&
	  awk "/^[a-z]/ { k = (\$2 == \"be_app\" || \$2 == \"be_tcp\") } k" inc.cfg &&
	  awk "/^[a-z]/ { k = (\$2 == \"fe_http\") } k" inc.cfg; } > re.cfg &&
	haproxy -c -q -f re.cfg &&
	L=$(first_rule re.cfg fe_http) &&
	lbt-deny --into re.cfg --frontend fe_http -o re-new.cfg 203.0.113.7 2001:db8:bad:1::/64 \
	    > /dev/null 2> err &&
	sed -n "$((L + 1))p" re-new.cfg > got && echo "    $RULE" > expect && test_cmp expect got &&
	test "$(section_of "$RULE" re-new.cfg)" = "frontend fe_http"
'

expect_success 'the last section is a backend: the rule lands in the frontend, not there' '
	tail -n 10 inc.cfg | grep -q "^backend be_tcp" &&
	test "$(section_of "$RULE" new.cfg)" = "frontend fe_http"
'

cat > plain.cfg <<'EOF2'
global
    maxconn 100
defaults
    mode http
    timeout connect 1s
    timeout client 3s
    timeout server 3s
frontend fe
    bind 192.0.2.1:80
    http-request set-header X-Seen 1
    default_backend be
backend be
    http-request return status 200
EOF2

expect_success 'no rule that answers: below the last http-request line, above default_backend' '
	lbt-deny --into plain.cfg -o p1.cfg 203.0.113.7 > /dev/null 2> err &&
	sed -n 12p p1.cfg > got && echo "    http-request deny deny_status 429 if { src 203.0.113.7 }" > expect &&
	test_cmp expect got && test "$(section_of "src 203.0.113.7" p1.cfg)" = "frontend fe"
'

expect_success '--action reject: tcp-request connection, above every http-request rule' '
	lbt-deny -a reject --into plain.cfg -o p2.cfg 203.0.113.7 > /dev/null 2> err &&
	L=$(grep -n "http-request set-header" plain.cfg | cut -d: -f1) &&
	sed -n "$((L + 1))p" p2.cfg > got && echo "    tcp-request connection reject if { src 203.0.113.7 }" > expect &&
	test_cmp expect got
'

expect_success '--in-place --backup: the file changed, the old one kept' '
	cp inc.cfg ip.cfg &&
	lbt-deny --into ip.cfg --in-place --backup .orig --frontend fe_http 203.0.113.7 \
	    > /dev/null 2> err &&
	test_cmp inc.cfg ip.cfg.orig && ! test -e ip.cfg.bak &&
	L=$(first_rule inc.cfg fe_http) &&
	sed -n "$((L + 1))p" ip.cfg > got && echo "    http-request deny deny_status 429 if { src 203.0.113.7 }" > expect &&
	test_cmp expect got
'

expect_success 'a configuration haproxy -c refuses: exit 1, --in-place leaves the file' '
	awk "{ print } /^    maxconn 20\$/ { print \"    no-such-keyword on\" }" inc.cfg > bad.cfg &&
	cp bad.cfg bad0.cfg && test_expect_code 1 haproxy -c -q -f bad.cfg &&
	test_expect_code 1 lbt-deny --into bad.cfg --in-place --frontend fe_http 203.0.113.7 \
	    > out 2> err &&
	test_cmp bad0.cfg bad.cfg && test -e bad.cfg.rejected &&
	grep -q "refused (exit 1)" err && grep -q "refuses the old configuration too" err
'

expect_success 'haproxy not on PATH: written, and said that it was not checked' '
	mkdir nobin && for p in lbt-deny diff; do ln -s "$(command -v $p)" nobin/; done &&
	PATH=$PWD/nobin lbt-deny --into inc.cfg --frontend fe_http -o nh.cfg 203.0.113.7 \
	    > /dev/null 2> err &&
	grep -q "not checked: haproxy is not on PATH; run haproxy -c -f nh.cfg" err &&
	test -s nh.cfg
'

expect_success 'the snippet with --haproxy-cfg --frontend names the line it must precede' '
	L=$(first_rule inc.cfg fe_http) &&
	lbt-deny --haproxy-cfg inc.cfg --frontend fe_http 203.0.113.7 > out 2> err &&
	grep -q "^# in the frontend section, above inc.cfg:$L, fe_http'"'"'s first http-request track-sc0:$" out &&
	grep -q "^# check: haproxy -c -f inc.cfg$" out
'

expect_success 'the snippet always says how to check, apply and watch' '
	lbt-deny 203.0.113.7 > out 2> err &&
	grep -q "^# check: haproxy -c -f " out && grep -q "^# apply: reload HAProxy" out &&
	grep -q "^# watch: lbt-triage --follow" out &&
	grep -q "above its first http-request" out
'

expect_success 'an unknown frontend: refused, naming the ones there are' '
	test_expect_code 1 lbt-deny --into inc.cfg --frontend fe_nope -o x.cfg 203.0.113.7 \
	    > out 2> err &&
	grep -q "no frontend or listen section .fe_nope. (there are: fe_monitor, fe_http" err &&
	! test -e x.cfg
'

expect_success 'several frontends and none named: refused' '
	test_expect_code 1 lbt-deny --into inc.cfg -o x.cfg 203.0.113.7 > out 2> err &&
	grep -q "name one with --frontend" err
'

cat > nginx.conf <<'EOF2'
events {}
http {
    server {
        listen 127.0.0.1:18081;
        server_name other.example;
        location / { return 200; }
    }
    server {
        listen 127.0.0.1:18082;
        server_name www.example.com example.com;
        allow 192.0.2.0/24;
        location / {
            root /tmp;
        }
        location /admin {
            deny all;
        }
    }
}
EOF2

expect_success '--nginx --into --server: deny lines above the server'"'"'s first allow, nginx -t valid' '
	if ! test_have nginx; then echo "nginx not on PATH" >&2; exit 1; fi &&
	L=$(awk "/server_name .*example.com;/ { s = 1 } s && \$1 == \"allow\" { print NR; exit }" nginx.conf) &&
	test "$L" = 11 &&
	lbt-deny --nginx --into nginx.conf --server example.com -o n2.conf 203.0.113.7 \
	    > out 2> err &&
	sed -n "$((L + 2))p" n2.conf > got && echo "        deny 203.0.113.7;" > expect &&
	test_cmp expect got &&
	sed "$L,$((L + 2))d" n2.conf > back && test_cmp nginx.conf back &&
	grep -q "nginx -t -c n2.conf: the configuration is valid" err &&
	grep -q "warning: nginx.conf:16: a location block with allow/deny of its own" err
'

expect_success '--nginx --into: two server blocks and none named, refused with their names' '
	test_expect_code 1 lbt-deny --nginx --into nginx.conf -o n3.conf 203.0.113.7 > out 2> err &&
	grep -q "2 server blocks (other.example, www.example.com example.com): name one with --server" err &&
	! test -e n3.conf
'

expect_success '--nftables -o: nft -c -f checks the table written' '
	if ! test_have nft; then echo "nft not on PATH" >&2; exit 1; fi &&
	lbt-deny --nftables -o t.nft 203.0.113.7 2001:db8:bad:1::/64 > out 2> err &&
	grep -q "nft -c -f t.nft: the table is valid; load it with nft -f t.nft" err &&
	grep -q "^# check: nft -c -f FILE" t.nft && ! test -s out
'

expect_success '--into without -o or --in-place: a usage error' '
	test_expect_code 1 lbt-deny --into inc.cfg --frontend fe_http 203.0.113.7 > out 2> err &&
	grep -q "write the new configuration to -o NEWFILE, or over FILE with --in-place" err
'

expect_success '--undo without --runtime: a usage error' '
	test_expect_code 1 lbt-deny --undo 203.0.113.7 > out 2> err &&
	grep -q "give --runtime SOCKET" err
'
test_done
