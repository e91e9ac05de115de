#!/bin/sh
# lbt-audit on rate limits a client escapes or that teach it nothing
# (issue 18), on tests/data/audit/limits.cfg (its header works out each
# finding by hand) and a log written here by awk: for 60 s from 08:00:00,
# 192.0.2.5 sends 30 requests a second to fe_v6, the last 10 of each
# second answered 429, and 2001:db8:77:1::1 to ::10 (16 addresses of one
# /64) send 2 a second each, never limited.  Every proposed line is put in
# place of the old one and checked with haproxy -c.  The alert written out
# is read on maxconn.cfg (80 % of maxconn 10: 8 sessions).
. "$(dirname "$0")/lib.sh"

PATH=/usr/sbin:$PATH
test_have haproxy || missing haproxy
cp "$DATA"/audit/limits.cfg "$DATA"/audit/maxconn.cfg "$DATA"/audit/maxconn.log . ||
    missing "tests/data/audit"
awk 'BEGIN { for (s = 0; s < 60; s++) { for (k = 0; k < 30; k++)
		printf "192.0.2.5:%d [01/Dec/2026:08:00:%02d.%03d] fe_v6 be_app/<NOSRV> 0/0/0/0/0 %d 125 - - %s 1/1/0/0/0 0/0 \"GET /ping/e66c0e98-1942-4e8a-b4c6-049fa9998118 HTTP/1.1\"\n", 30000 + k, s, k * 33, k < 20 ? 200 : 429, k < 20 ? "----" : "PR--"
	for (a = 1; a <= 16; a++) for (k = 0; k < 2; k++)
		printf "2001:db8:77:1::%x:%d [01/Dec/2026:08:00:%02d.%03d] fe_v6 be_app/<NOSRV> 0/0/0/0/0 200 125 - - ---- 1/1/0/0/0 0/0 \"GET /ping/7d3f7c2e-2b1a-4c55-9d0e-3a1f5b2c9e01 HTTP/1.1\"\n", a, 31000 + a, s, 500 + k * 400 + a } }' |
    sort -s -k2,2 > limits.log

# line PATTERN - the number of the first line of limits.cfg holding it
line() { grep -n -F -- "$1" limits.cfg | head -n 1 | cut -d: -f1; }
# rows: the findings but the log-format ones, columns 1-4 and $1
rows() { sed 1d out.tsv | awk -F "\t" '$4 != "log-format"' | cut -f "1-4${1:+,$1}"; }
# apply N TEXT - limits.cfg with line N replaced by TEXT, checked by haproxy
apply() { awk -v n="$1" -v t="$2" 'NR == n { print "    " t; next } { print }' limits.cfg > changed.cfg &&
	haproxy -c -f changed.cfg > /dev/null 2>&1; }

expect_success 'haproxy -c accepts limits.cfg' 'haproxy -c -f limits.cfg > /dev/null 2>&1'

expect_success 'the configuration alone: the per-address key (info), two 429s without Retry-After' '
	test_expect_code 4 lbt-audit limits.cfg > out.tsv &&
	{ printf "warn\tlimits.cfg:%s\tfe_429\tretry-after\n" $(line "deny_status 429 if { sc_http_req_rate(0) gt 10 }") &&
	  printf "warn\tlimits.cfg:%s\tfe_429\tretry-after\n" $(line "return status 429") &&
	  printf "info\tlimits.cfg:%s\tfe_v6\trate-limit-key\n" $(line "track-sc0 src table st_v6"); } > expect &&
	rows > got && test_cmp expect got
'

expect_success 'retry-after: Retry-After the counter period before the condition, haproxy accepts it' '
	rows 7 | cut -f 2,5 > changes &&
	printf "%s\n" "http-request deny deny_status 429 hdr Retry-After 1 if { sc_http_req_rate(0) gt 10 }" \
	    "http-request return status 429 content-type text/plain string slow hdr Retry-After 10 if { sc1_http_req_rate gt 50 }" \
	    "http-request track-sc0 src,ipmask(32,64) table st_v6" > expect &&
	cut -f 2 changes > got && test_cmp expect got &&
	while IFS="	" read -r where change; do
		apply "${where#limits.cfg:}" "$change" || { echo "haproxy refuses: $change"; exit 1; }
	done < changes
'

expect_success 'rate-limit-key without logs: the IPv6 bind named' '
	rows 5 | awk -F "\t" "\$4 == \"rate-limit-key\"" | cut -f 5 > what &&
	grep -F "counts each client address apart (\`track-sc0 src\`, line $(line "track-sc0 src table st_v6")), and it listens on IPv6 (\`bind\` line $(line "bind :::18481"))" what
'

expect_success 'with the log: the /64 that rotated 16 addresses and was never limited (awk), warn' '
	test_expect_code 4 lbt-audit limits.cfg limits.log > out.tsv 2> err && test ! -s err &&
	rows | awk -F "\t" "\$4 == \"rate-limit-key\"" > got &&
	printf "warn\tlimits.cfg:%s\tfe_v6\trate-limit-key\n" $(line "track-sc0 src table st_v6") > expect &&
	test_cmp expect got &&
	n=$(grep -c "^2001:db8:77:1::" limits.log) &&
	a=$(grep "^2001:db8:77:1::" limits.log | sed "s/:[0-9]* .*//" | sort -u | wc -l) &&
	test "$a" -eq 16 &&
	rows 5 | awk -F "\t" "\$4 == \"rate-limit-key\"" | cut -f 5 |
	    grep -F "in the logs 2001:db8:77:1::/64 sent $n requests from $a addresses and was never limited"
'

expect_success 'the alert written out: Prometheus and Netdata at 80 % of maxconn 10' '
	test_expect_code 4 lbt-audit maxconn.cfg maxconn.log > out.tsv &&
	sed 1d out.tsv | awk -F "\t" "\$4 == \"alert-threshold\"" | cut -f 6 > why &&
	grep -F "expr: haproxy_frontend_current_sessions{proxy=\"fe_small\"} >= 0.80 * haproxy_frontend_limit_sessions{proxy=\"fe_small\"}" why &&
	grep -F "on: haproxy_f.scur; lookup: max -10s unaligned of fe_small; every: 10s; warn: \$this >= 8; crit: \$this >= 9" why
'

test_done
