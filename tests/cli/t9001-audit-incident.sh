#!/bin/sh
# lbt-audit on the bundled incident (tests/data/incident: HAProxy 2.6 with
# the lab's haproxy-tarpit.cfg, a tarpit flood against fe_http, maxconn
# 20).  The configuration is first checked by haproxy -c (its run paths
# pointed at this directory, a self-signed certificate made for it: the
# line numbers stay).  Every expected value comes from the configuration
# by hand or from awk on the log:
#   tarpit     gt 10 over http_req_rate(1s): 11 requests a second, held 1 s
#              (timeout tarpit 1s): 11 slots a client, ceil(20 / 11) = 2
#              clients fill maxconn 20; the logs: PT lines and their Tw, and
#              the busiest second of each tarpitted source
#   maxconn    fc >= 19 by the second each request ended (date + Ta)
#   alert      80 % of 20 = 16: the first second a request with fc >= 16
#              ended in, which is the first second of the tarpit phase
#              (phases.tsv)
#   per address  `track-sc0 src` gives each address its own counter, and
#              2001:db8:bad:1::/64 came from 8 addresses (awk)
. "$(dirname "$0")/lib.sh"

PATH=/usr/sbin:$PATH
INC=${LBT_INCIDENT:-$DATA/incident}
[ -f "$INC/haproxy-httplog.log.zst" ] || missing "the incident capture in $INC"
test_have haproxy || missing haproxy
test_have openssl || missing openssl
zstd -dcq "$INC/haproxy-httplog.log.zst" > httplog.log
zstd -dcq "$INC/haproxy-httplog-rfc3164.log.zst" > rfc3164.log
zstd -dcq "$INC/phases.tsv.zst" > phases.tsv
cp "$INC/haproxy-tarpit.cfg" haproxy.cfg

# fe_http's request lines: client sod_ms end_ms fc term Tw line, one each
# (sod: ms since midnight of the request date; end: sod + Ta)
awk '$3 == "fe_http" && $5 ~ /\// {
	split($2, d, ":"); split($5, t, "/"); split($11, c, "/")
	sod = (d[2] * 3600 + d[3] * 60 + substr(d[4], 1, 6)) * 1000
	a = $1; sub(/:[0-9]+$/, "", a)
	printf "%s %d %d %d %s %d %d\n", a, sod, sod + t[5], c[2], $10, t[2], NR
}' httplog.log > req.txt

# hms S - "2026-11-30THH:MM:SSZ" for second S of the day of the capture
hms() { printf '2026-11-30T%02d:%02d:%02dZ' $(($1 / 3600)) $(($1 % 3600 / 60)) $(($1 % 60)); }
# sec_where COND - the first second (of ends) where COND on fc ($4) holds
first_sec() { awk "$1 { s = int(\$3 / 1000); if (m == \"\" || s < m) m = s } END { print m }" req.txt; }
# evidence SEC FC - of the requests ending in second SEC with fc FC, the
# smallest by (time, line)
evidence() {
	awk -v s="$1" -v f="$2" 'int($3 / 1000) == s && $4 == f { print $2, $7 }' req.txt |
	    sort -n -k1,1 -k2,2 | head -n 1 | cut -d" " -f2
}
# col N - column N of out.tsv's rows
col() { sed 1d out.tsv | cut -f "$1"; }

mkdir -p lab/conf
expect_success 'haproxy -c accepts the incident configuration' '
	openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out crt.pem -subj /CN=lb1 \
	    -days 2 > /dev/null 2>&1 && cat crt.pem key.pem > lab/conf/lb.pem &&
	sed "s#/var/lib/lbtlab#$PWD/lab#g" haproxy.cfg > checked.cfg &&
	haproxy -c -f checked.cfg > /dev/null 2>&1
'

# fe LINE-PATTERN - the line number of its first line in fe_http
fe() { awk -v p="$1" '/^frontend fe_http/ { f = 1 } f && index($0, p) { print NR; exit }' haproxy.cfg; }

expect_success 'five findings: maxconn, tarpit (both crit), per address, 429 without Retry-After, the alert' '
	test_expect_code 4 lbt-audit --frontend fe_http haproxy.cfg httplog.log > out.tsv 2> err &&
	test ! -s err &&
	mc=$(grep -n "^    maxconn 20$" haproxy.cfg | cut -d: -f1) &&
	printf "crit\thaproxy.cfg:%s\tfe_http\tmaxconn-reached\n" $mc > expect &&
	printf "crit\thaproxy.cfg:%s\tfe_http\ttarpit-rate-limit\n" $(fe "http-request tarpit") >> expect &&
	printf "warn\thaproxy.cfg:%s\tfe_http\trate-limit-key\n" $(fe "track-sc0 src") >> expect &&
	printf "warn\thaproxy.cfg:%s\tfe_http\tretry-after\n" $(fe "deny deny_status 429") >> expect &&
	printf "info\thaproxy.cfg:%s\tfe_http\talert-threshold\n" $mc >> expect &&
	col 1-4 > got && test_cmp expect got
'

expect_success 'tarpit: 11 slots a client by hand, the offenders peaks and Tw by awk' '
	col 5 | sed -n 2p > what &&
	tt=$(grep -n "^    timeout tarpit 1s" haproxy.cfg | cut -d: -f1) &&
	grep -F "(\`timeout tarpit\` 1s, line $tt); every request of a client over the limit (11 requests in 1 s) is held 1 s: a client just over it holds 11 slots, 2 such clients fill maxconn 20" what &&
	awk "\$5 ~ /^PT/ { n++; w += \$6 } END { printf \"in the logs %d requests were tarpitted (%.3f s held)\n\", n, w / 1000 }" req.txt > expect &&
	grep -F "$(cat expect)" what &&
	awk "\$5 ~ /^PT/ { a = \$1; if (a ~ /:/) { split(a, h, \":\"); a = h[1] \":\" h[2] \":\" h[3] \":\" h[4] \"::/64\" } t[a] = 1 }
	    END { for (a in t) n++; print n }" req.txt > n_src &&
	awk "{ a = \$1; if (a ~ /:/) { split(a, h, \":\"); a = h[1] \":\" h[2] \":\" h[3] \":\" h[4] \"::/64\" }
	    print a, int(\$2 / 1000) }" req.txt | sort | uniq -c |
	    awk "{ if (\$1 > m[\$2]) m[\$2] = \$1 } END { for (s in m) print m[s], s }" |
	    grep -E " (203\.0\.113\.7|2001:db8:bad:1::/64)$" | sort -k1,1nr > peaks &&
	test $(wc -l < peaks) -eq 2 &&
	awk -v n=$(cat n_src) "NR == 1 { printf \"and the %d tarpitted sources peaked at\", n }
	    { printf \"%s %s %d req/s (%d slots at that rate)\", (NR > 1 ? \",\" : \"\"), \$2, \$1, \$1 }
	    END { print \"\" }" peaks > expect &&
	grep -F "$(cat expect)" what &&
	col 1 | sed -n 2p | grep -x crit
'

expect_success 'tarpit: the evidence is 203.0.113.7'"'"'s first tarpitted request' '
	awk "\$1 == \"203.0.113.7\" && \$5 ~ /^PT/ { print \$2, \$7 }" req.txt | sort -n -k1,1 -k2,2 |
	    head -n 1 | awk "{ print \"httplog.log:\" \$2 }" > expect &&
	col 8 | sed -n 2p > got && test_cmp expect got
'

expect_success 'maxconn: peak fc and the full seconds by awk, the evidence, the change' '
	peak=$(awk "\$4 > m { m = \$4 } END { print m }" req.txt) && test "$peak" -eq 20 &&
	awk "\$4 >= 19 { print int(\$3 / 1000) }" req.txt | sort -un > full &&
	printf "the logged fc of fe_http reached maxconn 20 (peak fc %d; fc >= 19 in %d buckets of 1 s, the first at %s, the last at %s); the rebuilt occupancy peaked at " \
	    $peak $(wc -l < full) $(hms $(head -n 1 full)) $(hms $(tail -n 1 full)) > expect &&
	col 5 | sed -n 1p > what && grep -F "$(cat expect)" what &&
	occ=$(sed "s/.*the rebuilt occupancy peaked at \([0-9]*\) slots.*/\1/" what) &&
	test "$occ" -ge 20 &&
	if [ "$occ" -gt "$peak" ]; then p=$occ; else p=$peak; fi &&
	echo "maxconn $((p * 100 / 80 + 1))" > expect && col 7 | sed -n 1p > got && test_cmp expect got &&
	s=$(head -n 1 full) &&
	f=$(awk -v s=$s "int(\$3 / 1000) == s && \$4 > m { m = \$4 } END { print m }" req.txt) &&
	echo "httplog.log:$(evidence $s $f)" > expect && col 8 | sed -n 1p > got && test_cmp expect got
'

expect_success 'alert: at 80 % (fc >= 16) in the first second of the tarpit phase' '
	s=$(first_sec "\$4 >= 16") && full=$(first_sec "\$4 >= 19") &&
	start=$(awk -F "\t" "\$1 == \"tarpit\" { printf \"%d\", \$2 / 1e6 % 86400 }" phases.tsv) &&
	test "$s" -eq "$start" &&
	f=$(awk -v s=$s "int(\$3 / 1000) == s && \$4 > m { m = \$4 } END { print m }" req.txt) &&
	printf "an alert on the sessions of fe_http at 80 %% of maxconn 20 (fc >= 16) would have fired at %s, the first bucket of 1 s with fc >= 16 (fc %d), before fc reached maxconn at %s\n" \
	    $(hms $s) $f $(hms $full) > expect &&
	col 5 | sed -n 5p > got && test_cmp expect got &&
	echo "alert when scur of fe_http >= 16 (show stat; slim 20)" > expect &&
	col 7 | sed -n 5p > got && test_cmp expect got &&
	echo "httplog.log:$(evidence $s $f)" > expect && col 8 | sed -n 5p > got && test_cmp expect got
'

expect_success 'per address: the /64 limited from 8 addresses (awk), track its /64 instead' '
	n=$(awk "\$1 ~ /^2001:db8:bad:1:/ { a[\$1] = 1 } END { for (k in a) n++; print n }" req.txt) &&
	test "$n" -eq 8 &&
	printf "the tarpit rate limit of fe_http at line %s counts each client address apart (\`track-sc0 src\`, line %s): in the logs 2001:db8:bad:1::/64 was limited from %d addresses, each with a limit of its own\n" \
	    $(fe "http-request tarpit") $(fe "track-sc0 src") $n > expect &&
	col 5 | sed -n 3p > got && test_cmp expect got &&
	echo "http-request track-sc0 src,ipmask(32,64) table st_src" > expect &&
	col 7 | sed -n 3p > got && test_cmp expect got &&
	awk "\$1 ~ /^2001:db8:bad:1:/ { print \$2, \$7 }" req.txt | sort -n -k1,1 -k2,2 | head -n 1 |
	    awk "{ print \"httplog.log:\" \$2 }" > expect &&
	col 8 | sed -n 3p > got && test_cmp expect got
'

expect_success 'the same findings through a syslog wrapper (rfc3164) and from the index (--db)' '
	test_expect_code 4 lbt-audit --frontend fe_http haproxy.cfg rfc3164.log > rfc.tsv &&
	sed "s/rfc3164\.log:/httplog.log:/" rfc.tsv > got && test_cmp out.tsv got &&
	lbt-index --haproxy-cfg haproxy.cfg --frontend fe_http -d inc.db httplog.log 2> /dev/null &&
	test_expect_code 4 lbt-audit --frontend fe_http --db inc.db haproxy.cfg > db.tsv &&
	test_cmp out.tsv db.tsv
'

expect_success 'without --frontend: every proxy audited, the log format detected, a note' '
	test_expect_code 4 lbt-audit haproxy.cfg httplog.log > all.tsv 2> err &&
	grep -F "lbt-audit: note: the frontends of haproxy.cfg log in several formats" err &&
	cut -f 3,4 all.tsv | grep -Fx "fe_http	maxconn-reached" &&
	cut -f 3,4 all.tsv | grep -Fx "fe_compact	tarpit-rate-limit" &&
	cut -f 3,4 all.tsv | grep -Fx "fe_clf	log-format"
'

test_done
