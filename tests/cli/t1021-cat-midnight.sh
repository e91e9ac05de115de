#!/bin/sh
# An incident across midnight: the real tarpit capture of tests/data/incident
# with its stamps rewritten (gawk) to run from Nov 30 23:24 to Dec 1 01:09
# (90 times slower), behind an RFC 3164 syslog header.  A bare HH:MM in
# --since/--until is the occurrence nearest the first record; every count
# is checked against gawk reading the same stamps.
. "$LBT_TOP/tests/cli/lib.sh"

test_have gawk || missing gawk
test_have zstd || missing zstd

# Rewrite [30/Nov/2026:07:45:10.548] -> 23:24:00.000 + 90 x (t - first).
zstd -dc "$DATA/incident/haproxy-httplog.log.zst" | gawk '
BEGIN {
	split("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec", m, " ")
	for (i = 1; i <= 12; i++) mon[m[i]] = i
	t0 = mktime("2026 11 30 07 45 10", 1) * 1000 + 548
	base = mktime("2026 11 30 23 24 00", 1) * 1000
}
match($0, /\[([0-9][0-9])\/([A-Z][a-z][a-z])\/([0-9]{4}):([0-9:]{8})\.([0-9]{3})\]/, d) {
	split(d[4], hms, ":")
	t = mktime(d[3] " " mon[d[2]] " " d[1] " " hms[1] " " hms[2] " " hms[3], 1) * 1000 + d[5]
	n = base + (t - t0) * 90
	s = int(n / 1000)
	stamp = strftime("%d/%b/%Y:%H:%M:%S", s, 1) sprintf(".%03d", n % 1000)
	line = substr($0, 1, RSTART - 1) "[" stamp "]" substr($0, RSTART + RLENGTH)
	print strftime("%b %e %H:%M:%S", s, 1) " lb1 haproxy[4242]: " line
	next
}
{ print }' > midnight.log
touch -d 2026-12-01T02:00:00Z midnight.log

# gawk's count of the request lines whose accept date lies in [a, b) (epoch s).
count() {
	gawk -v a="$1" -v b="$2" '
	BEGIN { split("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec", m, " ")
		for (i = 1; i <= 12; i++) mon[m[i]] = i }
	match($0, /\[([0-9][0-9])\/([A-Z][a-z][a-z])\/([0-9]{4}):([0-9:]{8})\.([0-9]{3})\]/, d) {
		split(d[4], hms, ":")
		t = mktime(d[3] " " mon[d[2]] " " d[1] " " hms[1] " " hms[2] " " hms[3], 1) + d[5] / 1000
		if (t >= a && t < b) n++
	} END { print n + 0 }' midnight.log
}
since_2339=$(date -u -d 2026-11-30T23:39:00Z +%s)
until_0106=$(date -u -d 2026-12-01T01:06:00Z +%s)
since_0011=$(date -u -d 2026-12-01T00:11:00Z +%s)

expect_success 'the rewritten capture crosses midnight' '
	head -n 1 midnight.log | grep -q "^Nov 30 23:24:00 lb1 " &&
	grep -q "\[01/Dec/2026:01:0" midnight.log &&
	test "$(count 0 9999999999)" -gt 3000
'

expect_success '--since 23:39 --until 01:06: 23:39 to 01:06 of the next day' '
	want=$(count "$since_2339" "$until_0106") &&
	test "$want" -gt 0 &&
	lbt-cat --tsv --no-header --fields time --since 23:39 --until 01:06 midnight.log >got &&
	test "$(wc -l <got)" = "$want" &&
	head -n 1 got | grep -q "^2026-11-30T23:" &&
	tail -n 1 got | grep -q "^2026-12-01T01:0[0-5]"
'

expect_success '--since 00:11 means the next day'"'"'s 00:11, not the first day'"'"'s' '
	want=$(count "$since_0011" 9999999999) &&
	test "$want" -gt 0 &&
	lbt-cat --tsv --no-header --fields time --since 00:11 midnight.log >got &&
	test "$(wc -l <got)" = "$want" &&
	! grep -q "^2026-11-30" got
'

expect_success 'lbt-offenders counts the same requests after 00:11' '
	want=$(count "$since_0011" 9999999999) &&
	lbt-offenders --top 0 --no-geoip --since 00:11 midnight.log >off &&
	test "$(gawk -F"\t" "NR > 1 { s += \$2 } END { print s + 0 }" off)" = "$want"
'

test_done
