#!/bin/sh
# lbt-deny's ceilings: --force widens the /24 and /48 limit one step (to
# /16 and /32) and no further, a wider network needs --force-network
# naming it exactly; the load balancer's own addresses (the bind lines of
# --haproxy-cfg) are never in a rule, nor a network holding them.  The
# expected networks and messages are written by hand; the rules written
# pass haproxy -c.
. "$(dirname "$0")/lib.sh"

SOURCE_DATE_EPOCH=1764979200; export SOURCE_DATE_EPOCH
Q="'"
PATH=/usr/sbin:/sbin:$PATH
test_have haproxy || missing haproxy

# rule FILE - the rule lines of an HAProxy output (indented, not comments)
rule() { grep '^    [a-z]' "$1"; }
cat > lb.cfg <<'EOF'
defaults
    mode http
    timeout connect 1s
    timeout client 2s
    timeout server 2s
backend be_ok
    http-request return status 200 content-type text/plain string ok
frontend fe_http
    bind 192.0.2.1:80
    bind [2001:db8::5]:443,ipv4@203.0.113.9:8443
    bind :8080
    bind unix@/run/haproxy.sock
    default_backend be_ok
EOF
# hap OUT - haproxy -c on lb.cfg with OUT's rule lines at the end of fe_http
hap() { cat lb.cfg "$1" > full.cfg && haproxy -c -q -f full.cfg; }

expect_success '--force with 0.0.0.0/0 and ::/0: both refused, nothing written, exit 2' '
	test_expect_code 2 lbt-deny --force 0.0.0.0/0 ::/0 > out 2> err &&
	test ! -s out &&
	cat > expect <<-EOF &&
	lbt-deny: left out 0.0.0.0/0: wider than /16, too wide even for --force (--force-network 0.0.0.0/0 to deny this one)
	lbt-deny: left out ::/0: wider than /32, too wide even for --force (--force-network ::/0 to deny this one)
	lbt-deny: nothing to deny: 2 of 2 sources selected, none left (no file written)
	EOF
	test_cmp expect err
'

expect_success '--force reaches /16 and /32, not /15 and /31' '
	lbt-deny --force 198.51.0.0/16 198.50.0.0/15 2001:db8::/32 2001:db8::/31 > out 2> err &&
	cat > expect <<-EOF &&
	lbt-deny: left out 198.50.0.0/15: wider than /16, too wide even for --force (--force-network 198.50.0.0/15 to deny this one)
	lbt-deny: left out 2001:db8::/31: wider than /32, too wide even for --force (--force-network 2001:db8::/31 to deny this one)
	EOF
	test_cmp expect err &&
	echo "    http-request deny deny_status 429 if { src 198.51.0.0/16 2001:db8::/32 }" > want &&
	rule out > got && test_cmp want got && hap out
'

expect_success 'without --force a /16 is still too wide, as before' '
	test_expect_code 2 lbt-deny 198.51.0.0/16 2> err &&
	grep -q "^lbt-deny: left out 198.51.0.0/16: wider than /24 (--force to deny it)\$" err
'

expect_success '--force-network: the one named is denied, the other wide one is not' '
	lbt-deny --force-network 0.0.0.0/0 -o all.lst 0.0.0.0/0 ::/0 > out 2> err &&
	grep -q "^lbt-deny: left out ::/0: wider than /32, too wide even for --force" err &&
	grep -v "^#" all.lst > nets && test -s nets &&
	! grep -q ":" nets &&
	grep -qx "1.0.0.0/8" nets && grep -qx "8.0.0.0/7" nets &&
	! grep -q "^10\\." nets && ! grep -q "^127\\." nets &&
	hap out
'

expect_success '--force-network is exact: a network inside it is not forced' '
	test_expect_code 2 lbt-deny --force-network 0.0.0.0/0 8.0.0.0/7 2> err &&
	grep -q "^lbt-deny: left out 8.0.0.0/7: wider than /16, too wide even for --force" err
'

expect_success '--force-network: a bad network is a usage error naming it' '
	test_expect_code 1 lbt-deny --force-network 300.0.0.0/8 192.0.2.7 2> err &&
	grep -q "^lbt-deny: --force-network: .300.0.0.0/8. is not an address or network" err
'

expect_success 'the bind addresses of --haproxy-cfg: never in the rule, and why' '
	lbt-deny --haproxy-cfg lb.cfg 192.0.2.1 198.51.100.7 2001:db8::5 > out 2> err &&
	cat > expect <<-EOF &&
	lbt-deny: left out 192.0.2.1: the load balancer${Q}s own address (bind at lb.cfg:9)
	lbt-deny: left out 2001:db8::5: the load balancer${Q}s own address (bind at lb.cfg:10)
	EOF
	test_cmp expect err &&
	echo "    http-request deny deny_status 429 if { src 198.51.100.7 }" > want &&
	rule out > got && test_cmp want got && hap out
'

expect_success 'a network holding a bind address is cut around it' '
	lbt-deny --haproxy-cfg lb.cfg 203.0.113.0/24 > out 2> err &&
	echo "lbt-deny: left out 203.0.113.9 of 203.0.113.0/24: the load balancer${Q}s own address (bind at lb.cfg:10)" > expect &&
	test_cmp expect err &&
	echo "    http-request deny deny_status 429 if { src 203.0.113.0/29 203.0.113.8 203.0.113.10/31 203.0.113.12/30 203.0.113.16/28 203.0.113.32/27 203.0.113.64/26 203.0.113.128/25 }" > want &&
	rule out > got && test_cmp want got && hap out
'

expect_success 'a bind address that is none is an error naming file and line' '
	printf "frontend f\n    bind 192.0.2.300:80\n" > bad.cfg &&
	test_expect_code 1 lbt-deny --haproxy-cfg bad.cfg 198.51.100.7 2> err &&
	grep -q "^lbt-deny: bad.cfg:2: bind .192.0.2.300:80.: not an address and port" err
'
test_done
