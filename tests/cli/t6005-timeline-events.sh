#!/bin/sh
# lbt-timeline's rules against false and missing events (issue 18), on
# logs generated here with awk, second by second from 2026-12-01 10:00:00:
#   a.log  all traffic 5/s, 50/s from 60 s, 150/s from 90 s (it triples),
#          5/s from 120 s to 180 s;
#   c.log  192.0.2.1 10/s all along; 192.0.2.2 3/s from 4 s (inside the
#          baseline window), 60/s from 120 s to 150 s, 3/s after;
#   d.log  192.0.2.1 10/s; 198.51.100.9 new at 30 s at 10/s, 35/s (3.5x)
#          from 60 s to 90 s, 10/s to 150 s;
#   e.log  192.0.2.1 5/s for 240 s; 198.51.100.7 100/s from 60 s to 90 s,
#          then 3/s to the end (its own series never settles);
#   f.log  192.0.2.1 10/s for 150 s; 30 new sources 203.0.113.1-30, six
#          more each second from 70 s to 74 s, 4/s each until 120 s.
# Every expected time is a second of that construction; counts and shares
# are awk's over the generated lines.
test_description='lbt-timeline: no false event, the missing ones'
. "$LBT_TOP/tests/cli/lib.sh"

cat > gen.awk <<'AWK'
function emit(s, n, src, path,   k) {
	for (k = 0; k < n; k++)
		printf "%s:4000 [01/Dec/2026:10:%02d:%02d.%03d] fe be/s1 0/0/0/1/1 200 10 - - ---- 1/1/0/0/0 0/0 \"GET %s HTTP/1.1\"\n", src, int(s / 60), s % 60, int(k * 1000 / n), path
}
AWK
gen() { { cat gen.awk; echo "BEGIN { $1 }"; } > prog.awk && awk -f prog.awk | sort -s -k2,2 > "$2"; }
gen 'for (s = 0; s < 180; s++) { r = s < 60 ? 5 : s < 90 ? 50 : s < 120 ? 150 : 5
	for (i = 0; i < r; i++) emit(s, 1, "192.0.2." (i % 200 + 1), "/k" (i % 3)) }' a.log
gen 'for (s = 0; s < 200; s++) { emit(s, 10, "192.0.2.1", "/a")
	if (s >= 4) emit(s, s >= 120 && s < 150 ? 60 : 3, "192.0.2.2", "/c") }' c.log
gen 'for (s = 0; s < 150; s++) { emit(s, 10, "192.0.2.1", "/a")
	if (s >= 30) emit(s, s >= 60 && s < 90 ? 35 : 10, "198.51.100.9", "/d") }' d.log
gen 'for (s = 0; s < 240; s++) { emit(s, 5, "192.0.2.1", "/a")
	if (s >= 60) emit(s, s < 90 ? 100 : 3, "198.51.100.7", "/e") }' e.log
gen 'for (s = 0; s < 150; s++) { emit(s, 10, "192.0.2.1", "/a")
	for (j = 1; j <= 30; j++) if (s >= 70 + int((j - 1) / 6) && s < 120)
		emit(s, 4, "203.0.113." j, "/f" j) }' f.log
# r.log: 192.0.2.1 10/s for 120 s; 198.51.100.40 sends a batch of 300
# distinct requests (/b1 .. /b300) at 30 s, answered 200, the same batch
# at 60 s refused 429 and again at 61, 62 and 63 s, refused each time; a
# pinger, 192.0.2.9, every 2 s on /p, refused once at 60 s, goes on.
cat > retry.awk <<'AWK'
function line(s, ms, src, path, st) {
	printf "%s:4000 [01/Dec/2026:10:%02d:%02d.%03d] fe be/s1 0/0/0/1/1 %d 10 - - %s 1/1/0/0/0 0/0 \"GET %s HTTP/1.1\"\n", src, int(s / 60), s % 60, ms, st, st == 429 ? "PR--" : "----", path
}
BEGIN { for (s = 0; s < 120; s++) { for (k = 0; k < 10; k++) line(s, k * 100, "192.0.2.1", "/a", 200)
		if (s % 2 == 0) line(s, 5, "192.0.2.9", "/p", s == 60 ? 429 : 200)
		if (s == 30 || (s >= 60 && s <= 63)) for (k = 1; k <= 300; k++)
			line(s, int(k * 3), "198.51.100.40", "/b" k, s == 30 ? 200 : 429) } }
AWK
awk -f retry.awk | sort -s -k2,2 > r.log
# g.log: 192.0.2.1 10/s on /a for 120 s; 198.51.100.1 and 198.51.100.2
# send /x 20 a second each from 30 s, .1 until 60 s, .2 until 100 s.
gen 'for (s = 0; s < 120; s++) { emit(s, 10, "192.0.2.1", "/a")
	if (s >= 30 && s < 60) emit(s, 20, "198.51.100.1", "/x")
	if (s >= 30 && s < 100) emit(s, 20, "198.51.100.2", "/x") }' g.log
# b.log: 192.0.2.1 10/s on /a for 120 s; 198.51.100.50 and .60 send /y
# 20 a second each, the last 10 of each second answered 429 from 40 s to
# 60 s; from 60 s .50 sends 4 a second (it backs off), .60 goes on at 20.
cat > backoff.awk <<'AWK'
function line(s, ms, src, st) {
	printf "%s:4000 [01/Dec/2026:10:%02d:%02d.%03d] fe be/s1 0/0/0/1/1 %d 10 - - %s 1/1/0/0/0 0/0 \"GET /y HTTP/1.1\"\n", src, int(s / 60), s % 60, ms, st, st == 429 ? "PR--" : "----"
}
BEGIN { for (s = 0; s < 120; s++) { for (k = 0; k < 10; k++) printf "192.0.2.1:4000 [01/Dec/2026:10:%02d:%02d.%03d] fe be/s1 0/0/0/1/1 200 10 - - ---- 1/1/0/0/0 0/0 \"GET /a HTTP/1.1\"\n", int(s / 60), s % 60, k * 100
		for (k = 0; k < 20; k++) {
			st = s >= 40 && s < 60 && k >= 10 ? 429 : 200
			line(s, k * 50, "198.51.100.60", st)
			if (s < 60 || k < 4) line(s, k * 50 + 1, "198.51.100.50", st) } } }
AWK
awk -f backoff.awk | sort -s -k2,2 > b.log
# s.log: 192.0.2.1 10/s to be_app for 120 s, served at once (srv_conn 3);
# from 50 s to 70 s 198.51.100.70 adds 20 a second that wait in the queue
# (Tw 200 ms, srv_conn 10, srv_queue 4, backend_queue 6), the last 5 of
# each second answered 503 by HAProxy after the queue timeout (sQ--).
cat > sat.awk <<'AWK'
function line(s, ms, src, tw, st, term, sc, sq, bq) {
	printf "%s:4000 [01/Dec/2026:10:%02d:%02d.%03d] fe be_app/s1 0/%d/0/1/1 %d 10 - - %s 1/1/%d/%d/0 %d/%d \"GET /s HTTP/1.1\"\n", src, int(s / 60), s % 60, ms, tw, st, term, sc, sc, sq, bq
}
BEGIN { for (s = 0; s < 120; s++) { for (k = 0; k < 10; k++) line(s, k * 100, "192.0.2.1", 0, 200, "----", 3, 0, 0)
		if (s >= 50 && s < 70) for (k = 0; k < 20; k++)
			if (k < 15) line(s, k * 50 + 1, "198.51.100.70", 200, 200, "----", 10, 4, 6)
			else line(s, k * 50 + 1, "198.51.100.70", 200, 503, "sQ--", 10, 4, 6) } }
AWK
awk -f sat.awk | sort -s -k2,2 > s.log
# k.log: key K1 10/s from 192.0.2.1 all along; key K2 3/s from 4 s (from
# 50 addresses in turn, no source of its own), 60/s from 120 s to 150 s.
K1=11111111-1111-1111-1111-111111111111 K2=22222222-2222-2222-2222-222222222222
gen 'for (s = 0; s < 200; s++) { emit(s, 10, "192.0.2.1", "/ping/'$K1'")
	if (s >= 4) emit(s, s >= 120 && s < 150 ? 60 : 3, "192.0.2." (s % 50 + 2), "/ping/'$K2'") }' k.log
# m.log: 198.51.100.7 sends /m once a second for 160 s but 50 a second
# from 60 s to 70 s (its batch /m0 .. /m4, ten times a second), answered
# 503 (sQ) -- a retry storm -- and 50 a second
# again from 120 s to 130 s, all answered 200: the mitigation is in place,
# nothing refuses it; 192.0.2.1 10/s all along.
cat > m.awk <<'AWK'
function line(s, ms, src, st, p) {
	printf "%s:4000 [01/Dec/2026:10:%02d:%02d.%03d] fe be/s1 0/0/0/1/1 %d 10 - - %s 1/1/0/0/0 0/0 \"GET /m%s HTTP/1.1\"\n", src, int(s / 60), s % 60, ms, st, st == 503 ? "sQ--" : "----", p
}
BEGIN { for (s = 0; s < 160; s++) { for (k = 0; k < 10; k++) printf "192.0.2.1:4000 [01/Dec/2026:10:%02d:%02d.%03d] fe be/s1 0/0/0/1/1 200 10 - - ---- 1/1/0/0/0 0/0 \"GET /a HTTP/1.1\"\n", int(s / 60), s % 60, k * 100
		n = (s >= 60 && s < 70) || (s >= 120 && s < 130) ? 50 : 1
		for (k = 0; k < n; k++) line(s, k * 20 + 1, "198.51.100.7", s >= 60 && s < 70 ? 503 : 200,
		    n == 1 ? "" : k % 5) } }
AWK
awk -f m.awk | sort -s -k2,2 > m.log
for f in a c d e f r g b s k m; do lbt-timeline --tsv $f.log > $f.tsv 2> $f.err || exit 1; done

# epoch µs of second $1 after 10:00:00
at() { echo $(( (1796119200 + $1) * 1000000 )); }
# the time_us (col 2) of events of kind $1 about subject $2 in $3
when() { awk -F "\t" -v k="$1" -v s="$2" '$3 == k && $5 == s { print $2 }' "$3"; }
# succeed when every number on stdin is within one bucket (1 s) of $1
near() { awk -v t="$1" '{ n++ } $1 < t - 1000000 || $1 > t + 1000000 { bad++ }
	END { exit !(n > 0 && bad == 0) }'; }

expect_success 'the generated logs: their sizes by construction' '
	test "$(wc -l < a.log)" -eq $((60 * 5 + 30 * 50 + 30 * 150 + 60 * 5)) &&
	test "$(wc -l < f.log)" -eq $((150 * 10 + 6 * 4 * (50 + 49 + 48 + 47 + 46)))
'

expect_success 'traffic that triples is no "back to its baseline": it settles at 120 s' '
	test "$(awk -F "\t" "\$3 == \"rise_end\" && \$10 + 0 >= \$9 + 0" a.tsv | wc -l)" -eq 0 &&
	when rise_end all a.tsv > ends && test "$(wc -l < ends)" -eq 1 && near $(at 120) < ends
'

expect_success 'no rise whose rate fell, no end whose rate rose' '
	cat a.tsv c.tsv d.tsv e.tsv f.tsv | awk -F "\t" "
		(\$3 == \"rise\" || \$3 == \"source_rise\" || \$3 == \"new_source\") && \$9 != \"\" &&
		    \$10 + 0 < \$9 + 0 { print }
		\$3 == \"rise_end\" && \$10 + 0 >= \$9 + 0 { print }" > bad &&
	test ! -s bad
'

expect_success 'a source first seen inside the baseline window is not new' '
	test -z "$(when new_source 192.0.2.2 c.tsv)" &&
	when source_rise 192.0.2.2 c.tsv | near $(at 120)
'

expect_success 'a key first seen inside the baseline window: no "new key appears", its one rise at 120 s' '
	when rise $K2 k.tsv > rises && test "$(wc -l < rises)" -eq 1 && near $(at 120) < rises &&
	lbt-timeline --md k.log 2> /dev/null | tr "\n" " " > k.md &&
	! grep -F "new key" k.md && grep -F "The incident ran from 10:02:00" k.md
'

expect_success 'a new source going 10 -> 35 req/s (3.5x, below --ratio 20) is no rise' '
	when new_source 198.51.100.9 d.tsv | near $(at 30) &&
	test -z "$(when source_rise 198.51.100.9 d.tsv)"
'

expect_success 'the end of the incident where the total settled, though a source goes on' '
	when end all e.tsv | near $(at 90) &&
	lbt-timeline --md e.log 2> /dev/null | tr "\n" " " > e.md &&
	! grep -F "still going on" e.md &&
	grep -F "The incident ran from 10:01:00 to 10:01:30 (30 s)" e.md &&
	grep -F "All traffic was back within its baseline band for good at 10:01:30" e.md
'

expect_success 'a burst of 30 new sources: one event, its span, count and share (awk)' '
	awk -F "\t" "\$3 == \"source_burst\" { print \$2, \$8, \$15, \$17, \$18 }" f.tsv > got &&
	test "$(wc -l < got)" -eq 1 && read -r t e n pct v < got &&
	echo $t | near $(at 70) && echo $e | near $(at 75) && test "$v" -eq 30 &&
	awk "/:01:[1-5][0-9]/ { all++; if (/^203\\.0\\.113\\./) b++ }
		END { printf \"%d %.2f\n\", b, 100 * b / all }" f.log > expect &&
	echo "$n $pct" > got2 && test_cmp expect got2 &&
	test -z "$(awk -F "\t" "\$3 == \"new_source\"" f.tsv)"
'

expect_success 'a source that stops while another goes on with its requests; one that ends' '
	awk -F "\t" "\$3 == \"vanish\" { print \$5, \$2, \$22 }" g.tsv > got &&
	last1=$(grep "^198\.51\.100\.1:" g.log | tail -n 1 | sed "s/.*:10:\([0-9]*\):\([0-9.]*\)\].*/\1 \2/") &&
	last2=$(grep "^198\.51\.100\.2:" g.log | tail -n 1 | sed "s/.*:10:\([0-9]*\):\([0-9.]*\)\].*/\1 \2/") &&
	us() { awk -v m=$1 -v s=$2 "BEGIN { printf \"%d\", (1796119200 + m * 60) * 1000000 + s * 1000000 }"; } &&
	printf "198.51.100.1 %s \n198.51.100.2 %s ended\n" $(us $last1) $(us $last2) > expect &&
	test_cmp expect got &&
	lbt-timeline --md g.log 2> /dev/null | grep -F "source 198.51.100.2 ends" &&
	lbt-timeline --md g.log 2> /dev/null | grep -F "source 198.51.100.1 stops at once"
'

expect_success 'a source that slows to a fifth after its 429s backs off; one that keeps its rate does not' '
	awk -F "\t" "\$3 == \"backoff\" { print \$5, \$9, \$10, \$15 }" b.tsv > got &&
	echo $(at 60) > t && when backoff 198.51.100.50 b.tsv | near $(cat t) &&
	n=$(grep "^198\.51\.100\.50:" b.log | grep -c " 429 ") &&
	echo "198.51.100.50 20.000 4.000 $n" > expect && test_cmp expect got
'

expect_success 'backend saturation: the queue and HAProxy'"'"'s own 503, counted by awk' '
	awk -F "\t" "\$3 == \"backend_saturation\" { print \$5, \$2, \$8, \$15, \$16, \$12, \$18 }" s.tsv > got &&
	shed=$(awk "\$6 == 503 && \$10 ~ /^sQ/" s.log | wc -l) &&
	queued=$(awk "{ split(\$5, t, \"/\"); split(\$12, q, \"/\") } t[2] > 0 || q[1] > 0 || q[2] > 0" s.log | wc -l) &&
	echo "be_app $(at 50) $(at 70) $shed $queued 6.000 10" > expect && test_cmp expect got
'

# The reload's changes: before.cfg limits with a tarpit, after.cfg with a
# deny that says when to come back, and its global maxconn raised; x.log
# 10 requests a second for 60 s to fe, HAProxy's raw "Proxy fe stopped"
# line (no time) between 10:00:30 and 10:00:31.  By hand: two lines
# removed, two added (the deny's extra blanks are no change of words).
cat > before.cfg <<'CFG'
global
    maxconn 100
defaults
    mode http
    log stdout format raw local0
    option httplog
    timeout client 10s
frontend fe
    bind 127.0.0.1:18491
    http-request track-sc0 src
    http-request tarpit if { sc0_http_req_rate gt 10 }
    default_backend be
backend be
    server s1 192.0.2.10:80
CFG
sed -e "s/^    maxconn 100/    maxconn 200/" \
    -e "s/http-request tarpit if/http-request deny   deny_status 429 hdr Retry-After 1 if/" \
    before.cfg > after.cfg
{ cat gen.awk; echo 'BEGIN { for (s = 0; s < 60; s++) { emit(s, 10, "192.0.2.1", "/a")
	if (s == 30) print "Proxy fe stopped (cumulated conns: FE: 310, BE: 0)." } }'; } > xprog.awk
awk -f xprog.awk > x.log

expect_success '--haproxy-cfg-after: what the reload installed, one event a line, at the reload' '
	lbt-timeline --tsv --haproxy-cfg before.cfg --haproxy-cfg-after after.cfg x.log > x.tsv 2> err &&
	test ! -s err &&
	r=$(awk -F "\t" "\$3 == \"reload\" { print \$2 }" x.tsv) && test -n "$r" &&
	awk -F "\t" "\$3 == \"config_change\" { print \$2, \$23 }" x.tsv > got &&
	printf "%s\n" "$r global: - maxconn 100 (line 2)" \
	    "$r frontend fe: - http-request tarpit if { sc0_http_req_rate gt 10 } (line 11)" \
	    "$r global: + maxconn 200 (line 2)" \
	    "$r frontend fe: + http-request deny deny_status 429 hdr Retry-After 1 if { sc0_http_req_rate gt 10 } (line 11)" |
	    sort > expect && sort got > got.s && test_cmp expect got.s
'

expect_success '--haproxy-cfg-after without --haproxy-cfg: usage, exit 1' '
	test_expect_code 1 lbt-timeline --tsv --haproxy-cfg-after after.cfg x.log 2> err &&
	grep -F -- "--haproxy-cfg-after needs --haproxy-cfg" err
'

expect_success 'a retry storm only where refusals are: none after the mitigation' '
	when retry_storm 198.51.100.7 m.tsv > storms && test "$(wc -l < storms)" -eq 1 &&
	near $(at 60) < storms
'

expect_success 'a batch re-sent after 429s: the requests after the refusal over those refused' '
	awk -F "\t" "\$3 == \"retry\" { print \$5, \$15, \$16, \$14 }" r.tsv > got &&
	! grep "^192\.0\.2\.9 " got &&
	n=$(grep -c "^198\.51\.100\.40:.*:10:01:0[1-3]\." r.log) &&
	d=$(grep -c "^198\.51\.100\.40:.*:10:01:00\." r.log) && test "$d" -eq 300 &&
	echo "198.51.100.40 $n $d $(awk -v n=$n -v d=$d "BEGIN { printf \"%.2f\", n / d }")" > expect &&
	test_cmp expect got
'

test_done
