#!/bin/sh
# lbt-timeline across load balancers and HAProxy's server lines, on real
# lines rearranged with awk: the incident's rfc3164 copy split between two
# syslog hosts, lb2 taking every other request until 07:45:45 but for a
# hole from 07:45:12 to 07:45:25, lb1 everything else; and a real "Server
# be_app/app1 is DOWN" / "is UP" pair of HAProxy 2.6 (tests/data/real)
# replayed four times, 5 s apart.  The expected times come from awk on the
# fixture made here.
test_description='lbt-timeline: a load balancer that stops, a hole, a crash loop'
. "$LBT_TOP/tests/cli/lib.sh"

INC=$DATA/incident
REAL=$DATA/real/haproxy-httplog-rfc3164.log
[ -f "$INC/haproxy-httplog-rfc3164.log.zst" ] || missing "the incident capture in $INC"
[ -f "$REAL" ] || missing "$REAL"
test_have gawk || missing gawk

# The split: field 4 is the syslog host; the request's %tr decides.
zstd -dcq "$INC/haproxy-httplog-rfc3164.log.zst" | awk '
	{ t = "" } match($0, /\[30\/Nov\/2026:[0-9:.]+\]/) { t = substr($0, RSTART + 13, 12) }
	t != "" && t < "07:45:45" && NR % 2 == 1 && !(t >= "07:45:12" && t < "07:45:25") {
		$4 = "lb2" }
	{ print }' > two.log
# The DOWN and UP lines of app1, at 07:45:12 + 5k s and 2 s after.
for k in 0 1 2 3; do
	awk -v d=$((12 + 5 * k)) -v u=$((14 + 5 * k)) '
		/is DOWN/ && /app1/ { sub(/07:50:00/, sprintf("07:45:%02d", d)); print }
		/is UP/ && /app1/ && /07:50:02/ { sub(/07:50:02/, sprintf("07:45:%02d", u)); print }' \
	    "$REAL"
done >> two.log
lbt-timeline --tsv two.log > ev.tsv 2> err

# lb2's request times as "HH:MM:SS.mmm", sorted
awk '$4 == "lb2" && match($0, /\[30\/Nov\/2026:[0-9:.]+\]/) {
	print substr($0, RSTART + 13, 12) }' two.log | sort > lb2.times

expect_success 'the fixture: two load balancers, four DOWN lines' '
	test ! -s err && test "$(wc -l < lb2.times)" -gt 500 &&
	test "$(grep -c "app1 is DOWN" two.log)" -eq 4
'

expect_success 'lb2 stops logging at its last request; lb1 takes its load' '
	awk -F "\t" "\$3 == \"lb_stop\" { print \$5, \$1, \$22 }" ev.tsv > got &&
	echo "lb2 2026-11-30T$(tail -n 1 lb2.times)Z lb1" > expect && test_cmp expect got &&
	test "$(awk -F "\t" "\$3 == \"lb_stop\" && \$5 == \"lb1\"" ev.tsv | wc -l)" -eq 0
'

expect_success 'the hole in lb2 log: from the second after its last line to its first again' '
	before=$(awk "\$1 < \"07:45:12\"" lb2.times | tail -n 1 | cut -c 1-8) &&
	after=$(awk "\$1 >= \"07:45:25\"" lb2.times | head -n 1 | cut -c 1-8) &&
	s=$(date -u -d "2026-11-30 $before 1 second" +%Y-%m-%dT%H:%M:%S.000Z) &&
	e=$(date -u -d "2026-11-30 $after" +%Y-%m-%dT%H:%M:%S.000Z) &&
	awk -F "\t" "\$3 == \"lb_gap\" { print \$5, \$1, \$7 }" ev.tsv > got &&
	echo "lb2 $s $e" > expect && test_cmp expect got
'

# A second split of the legitimate requests only (the offenders' lines left
# out): lb2 every other request, but from 07:45:30 to 07:45:50 only one in
# ten of those, lb1 the rest.
zstd -dcq "$INC/haproxy-httplog-rfc3164.log.zst" | awk '
	/ 203\.0\.113\.7:| 2001:db8:bad:1:/ { next }
	{ t = "" } match($0, /\[30\/Nov\/2026:[0-9:.]+\]/) { t = substr($0, RSTART + 13, 12) }
	t != "" && n++ % 2 == 1 && (t < "07:45:30" || t >= "07:45:50" || n % 20 == 0) {
		$4 = "lb2" }
	{ print }' > shift.log

expect_success 'lb2 falls to a tenth while lb1 rises: a shift of its load, at 07:45:30' '
	lbt-timeline --tsv shift.log > shift.tsv &&
	awk -F "\t" "\$3 == \"lb_shift\" { print \$5, \$1, \$7, \$22 }" shift.tsv > got &&
	echo "lb2 2026-11-30T07:45:30.000Z 2026-11-30T07:45:50.000Z lb1" > expect &&
	test_cmp expect got && ! grep -q "	lb_stop	" shift.tsv
'

expect_success 'four DOWNs of app1: a crash loop, every 5 s, 07:45:12 to 07:45:29' '
	awk -F "\t" "\$3 == \"crash_loop\" { print \$5, \$15, \$20, \$1, \$7 }" ev.tsv > got &&
	echo "be_app/app1 4 5.000 2026-11-30T07:45:12.000Z 2026-11-30T07:45:29.000Z" > expect &&
	test_cmp expect got
'

# Inside the crash loop each DOWN and UP stays an event: a post-mortem
# quotes each transition's time (the times the fixture was given above).
expect_success 'and each of its DOWN and UP lines is an event at its time' '
	awk -F "\t" "\$5 == \"be_app/app1\" && (\$3 == \"server_down\" || \$3 == \"server_up\") { print \$3, substr(\$1, 12, 8) }" \
		ev.tsv > got &&
	for k in 0 1 2 3; do
		printf "server_down 07:45:%02d\nserver_up 07:45:%02d\n" $((12 + 5 * k)) $((14 + 5 * k))
	done | sort > expect && sort got > got.s && test_cmp expect got.s
'

expect_success 'with --flaps 5 the same lines are single downs and ups' '
	lbt-timeline --tsv --flaps 5 two.log | awk -F "\t" "\$5 == \"be_app/app1\" { print \$3 }" |
		sort | uniq -c | awk "{ print \$2, \$1 }" > got &&
	printf "server_down 4\nserver_up 4\n" > expect && test_cmp expect got
'

expect_success 'the LB chart of the page: one series each' '
	lbt-timeline --html page.html two.log > /dev/null &&
	awk "/<figure id=\"chart-lbs\">/, /<\/figure>/" page.html | grep -o "<title>lb[12]</title>" |
		sort -u > got &&
	printf "<title>lb1</title>\n<title>lb2</title>\n" > expect && test_cmp expect got
'

test_done
