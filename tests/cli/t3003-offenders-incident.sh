#!/bin/sh
# lbt-offenders on the real-server incident capture (tests/data/incident):
# 203.0.113.7 and 2001:db8:bad:1::/64 rank first and second, with request
# counts and tarpit seconds (sum of Tw over PT-- lines) counted again with
# awk on the log; the decoys 203.0.113.8 (same /24) and 2001:db8:bad:2::5
# (same /48) stay separate sources.  A missing capture is a failure.
. "$(dirname "$0")/lib.sh"

inc=${LBT_INCIDENT:-$DATA/incident}
# Copy FILE of the capture here, decompressed.  @return 1 when absent.
get() {
	if [ -e "$inc/$1.zst" ]; then zstd -q -dc "$inc/$1.zst" > "$1"
	elif [ -e "$inc/$1" ]; then cp "$inc/$1" "$1"
	else return 1; fi
}
if ! get haproxy-httplog.log; then
	missing "the incident capture in $inc"
fi

# Requests and held seconds per source group, by awk: request lines only
# (the second field is the date), the port cut off, v4-mapped read as v4.
awk '$2 ~ /^\[/ {
	s = $1; sub(/:[0-9]+$/, "", s); sub(/^::ffff:/, "", s)
	if (s ~ /^2001:db8:bad:1:/) s = "2001:db8:bad:1::/64"
	else if (s ~ /^2001:db8:bad:2:/) s = "2001:db8:bad:2::/64"
	n[s]++
	if ($10 ~ /^PT/) { split($5, t, "/"); h[s] += t[2] }
} END { for (s in n) printf "%s\t%d\t%.3f\n", s, n[s], h[s] / 1000 }' haproxy-httplog.log |
	sort > counts

# source, requests, held_s of the sources named in $@, from counts.
want() { for s in "$@"; do grep "^$s	" counts; done; }

expect_success 'the two offenders first, counts and held seconds as awk finds' '
	lbt-offenders --no-geoip --no-header haproxy-httplog.log > out &&
	head -n 2 out | cut -f 1,2,9 | sort > got &&
	want 203.0.113.7 2001:db8:bad:1::/64 | sort > expect &&
	test "$(wc -l < expect)" = 2 && test_cmp expect got
'

expect_success 'the decoys are sources of their own' '
	grep -E "^(203\.0\.113\.8|2001:db8:bad:2::/64)	" out | cut -f 1,2,9 | sort > got &&
	want 203.0.113.8 2001:db8:bad:2::/64 | sort > expect &&
	test "$(wc -l < expect)" = 2 && test_cmp expect got
'

expect_success 'the offenders are new against the baseline before the flood' '
	head -n 2 out | cut -f 12 | sort -u > got && echo new > expect && test_cmp expect got
'

expect_success 'the /64 is one source of several addresses' '
	test "$(grep "^2001:db8:bad:1::/64	" out | cut -f 5)" -gt 1
'

expect_success 'the same numbers through the syslog (RFC 3164) copy' '
	get haproxy-httplog-rfc3164.log &&
	lbt-offenders --no-geoip --no-header haproxy-httplog-rfc3164.log > all && cut -f 1-12 all > got &&
	cut -f 1-12 out > expect && test_cmp expect got
'
# The source column cut from the TSV is an HAProxy ACL file: haproxy -c
# accepts it in the reject rule of the lab's last phase.
expect_success 'the top two sources, cut to an ACL file, pass haproxy -c' '
	head -n 2 out | cut -f 1 > offenders.lst &&
	printf "%s\n" 203.0.113.7 2001:db8:bad:1::/64 | sort > expect && sort offenders.lst > got &&
	test_cmp expect got &&
	cat > h.cfg <<-EOF &&
	defaults
	  mode http
	  timeout client 1s
	  timeout server 1s
	  timeout connect 1s
	frontend fe
	  bind 127.0.0.1:8080
	  tcp-request connection reject if { src -f $PWD/offenders.lst }
	  default_backend be
	backend be
	  server s 127.0.0.1:9
	EOF
	haproxy -c -q -f h.cfg
'
test_done
