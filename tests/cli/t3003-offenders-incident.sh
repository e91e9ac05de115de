#!/bin/sh
# lbt-offenders on the real-server incident capture (tests/data/incident):
# 203.0.113.7 and 2001:db8:bad:1::/64 rank first and second, with request
# counts and tarpit seconds (sum of Tw over PT-- lines) counted again with
# awk on the log; the decoys 203.0.113.8 (same /24) and 2001:db8:bad:2::5
# (same /48) stay separate sources.  Their ratio, baseline and episodes
# are lbt-rate --by net's on the same log (one engine, one definition),
# and the offenders are new from the flood start (phases.tsv).  A missing
# capture is a failure.
. "$(dirname "$0")/lib.sh"

inc=${LBT_INCIDENT:-$DATA/incident}
# Copy FILE of the capture here, decompressed.  @return 1 when absent.
get() {
	if [ -e "$inc/$1.zst" ]; then zstd -q -dc "$inc/$1.zst" > "$1"
	elif [ -e "$inc/$1" ]; then cp "$inc/$1" "$1"
	else return 1; fi
}
if ! get haproxy-httplog.log || ! get phases.tsv; then
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

# first (ms) and jump_start (s) against the tarpit phase's start.
expect_success 'they are new from the flood start: first request and first rise (phases.tsv)' '
	t=$(awk -F"	" "\$1 == \"tarpit\" { printf \"%d\", \$2 / 1000000 }" phases.tsv) &&
	for r in 1 2; do
		f=$(sed -n ${r}p out | cut -f 10) && j=$(sed -n ${r}p out | cut -f 16) &&
		d=$(( $(date -u -d "$f" +%s) - t )) && e=$(( $(date -u -d "$j" +%s) - t )) &&
		test "$d" -ge 0 && test "$d" -le 1 && test "$e" -ge -1 && test "$e" -le 1 || exit 1
	done
'

# source, ratio, baseline_rps, episodes, jump_start, jump_end,
# sustained_rps of every source, from both programs.
expect_success 'ratio, new, baseline and episodes: those of lbt-rate --by net' '
	lbt-offenders --no-geoip --no-header --top 0 haproxy-httplog.log |
	    cut -f 1,12,14-18 | sort > got &&
	lbt-rate --by net --top 0 --no-header haproxy-httplog.log |
	    awk -F"	" -v OFS="	" "{ print \$1, \$11, \$5, \$10, \$6, \$7, \$8 }" | sort > expect &&
	test "$(wc -l < expect)" -ge 10 && test_cmp expect got &&
	lbt-offenders --no-geoip --episodes --top 0 haproxy-httplog.log | sed 1d | sort > got &&
	lbt-rate --by net --episodes --top 0 haproxy-httplog.log | sed 1d | sort > expect &&
	test "$(wc -l < expect)" = 4 && test_cmp expect got
'

expect_success '--by ratio: the new sources with a rise first, by its mean' '
	lbt-offenders --no-geoip --no-header --by ratio --top 3 haproxy-httplog.log | cut -f 1,12 > got &&
	printf "2001:db8:bad:1::/64\tnew\n203.0.113.7\tnew\n" > expect &&
	head -n 2 got | test_cmp expect - &&
	test "$(sed -n 3p got | cut -f 2)" = ""
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
