#!/bin/sh
# lbt-deny live: HAProxy 2.6 in a network namespace of its own loads the
# rules lbt-deny wrote, and real requests from an offender and from its
# neighbour (same /24, same /48) get what the rule says.  Addresses are
# documentation ranges only, assigned on the namespace's loopback; nothing
# listens outside it.  Every curl has a 3 s limit; everything started is
# stopped and the namespace deleted on exit.  Needs root (ip netns): as
# another user the test fails and says so.
#   fe_deny   :8080  deny (429) for 203.0.113.7 and 2001:db8:bad:1::/64, ACL file
#   fe_reject :8081  tcp-request connection reject, inline
#   fe_rl     :8082  --rate-limit 3/10s: the 4th request of a source is 429;
#                    two addresses of one /64 share one counter
. "$(dirname "$0")/lib.sh"

live_ns lbtdeny 192.0.2.1 203.0.113.7 203.0.113.8 2001:db8::1 2001:db8:bad:1::5 \
    2001:db8:bad:1::6 2001:db8:bad:2::5

# get FROM URL - the HTTP status a request from FROM gets ("000": none)
get() {
	ip netns exec "$ns" curl -s -o /dev/null -w '%{http_code}' --max-time 3 \
	    --interface "$1" "$2"
}

lbt-deny -o acl.lst 203.0.113.7 2001:db8:bad:1::/64 > deny.out 2> /dev/null &&
lbt-deny -a reject 203.0.113.7 2001:db8:bad:1::/64 > reject.out 2> /dev/null &&
lbt-deny --rate-limit 3/10s 203.0.113.7 2001:db8:bad:1::/64 > rl.out 2> /dev/null ||
	{ record "not ok" "lbt-deny wrote the three rules"; exit 1; }

{
	cat <<-EOF
	global
	    maxconn 100
	defaults
	    mode http
	    timeout connect 1s
	    timeout client 3s
	    timeout server 3s
	backend be_ok
	    http-request return status 200 content-type text/plain string ok
	EOF
	for f in deny:8080 reject:8081 rl:8082; do
		printf 'frontend fe_%s\n    bind 192.0.2.1:%s\n    bind [2001:db8::1]:%s\n' \
		    "${f%:*}" "${f#*:}" "${f#*:}"
		printf '    default_backend be_ok\n'
		cat "${f%:*}.out"
	done
} > haproxy.cfg

expect_success 'haproxy -c accepts the three generated rules' '
	ip netns exec "$ns" haproxy -c -dW -f haproxy.cfg
'

ip netns exec "$ns" haproxy -db -f haproxy.cfg > haproxy.log 2>&1 &
pid=$!
up=0
for _ in $(seq 1 50); do
	[ "$(get 203.0.113.8 http://192.0.2.1:8080/)" = 200 ] && { up=1; break; }
	sleep 0.1
done

expect_success 'HAProxy is up in the namespace' 'test "$up" = 1'

expect_success 'deny: the offender gets 429, its /24 neighbour 200' '
	test "$(get 203.0.113.7 http://192.0.2.1:8080/)" = 429 &&
	test "$(get 203.0.113.8 http://192.0.2.1:8080/)" = 200
'

expect_success 'deny: an address of the /64 gets 429, its /48 neighbour 200' '
	test "$(get 2001:db8:bad:1::5 "http://[2001:db8::1]:8080/")" = 429 &&
	test "$(get 2001:db8:bad:1::6 "http://[2001:db8::1]:8080/")" = 429 &&
	test "$(get 2001:db8:bad:2::5 "http://[2001:db8::1]:8080/")" = 200
'

expect_success 'reject: the offender gets no answer at all, the neighbours 200' '
	test "$(get 203.0.113.7 http://192.0.2.1:8081/)" = 000 &&
	test "$(get 2001:db8:bad:1::5 "http://[2001:db8::1]:8081/")" = 000 &&
	test "$(get 203.0.113.8 http://192.0.2.1:8081/)" = 200 &&
	test "$(get 2001:db8:bad:2::5 "http://[2001:db8::1]:8081/")" = 200
'

expect_success 'rate-limit 3/10s: 200 200 200 then 429 for the offender, 200 for the neighbour' '
	got="" && for i in 1 2 3 4 5; do got="$got $(get 203.0.113.7 http://192.0.2.1:8082/)"; done &&
	test "$got" = " 200 200 200 429 429" &&
	got="" && for i in 1 2 3 4 5; do got="$got $(get 203.0.113.8 http://192.0.2.1:8082/)"; done &&
	test "$got" = " 200 200 200 200 200"
'

expect_success 'rate-limit: two addresses of the /64 share one counter' '
	u="http://[2001:db8::1]:8082/" &&
	got="$(get 2001:db8:bad:1::5 $u) $(get 2001:db8:bad:1::6 $u) $(get 2001:db8:bad:1::5 $u) $(get 2001:db8:bad:1::6 $u)" &&
	test "$got" = "200 200 200 429" &&
	test "$(get 2001:db8:bad:2::5 $u)" = 200
'
test_done
