#!/bin/sh
# lbt-triage on a long input, as `tail -n 2000000` gives at 00:11: a day of
# quiet traffic (100000 requests from 250 addresses, 2000 keys), and a
# flood of two minutes at 300 requests a second from one address on one
# key, 20 hours in.  The rises of a day are first looked for in coarse
# buckets, then the start of the flood to the second: awk wrote the flood,
# so it knows the second it began, its requests and its source.
. "$(dirname "$0")/lib.sh"

T0=1762035841                 # 2025-11-01T22:24:01Z
FLOOD=$((T0 + 72000))         # 2025-11-02T18:24:01Z
KEY=f768064f-9585-47ad-a39e-ed24c2c063fe
# line SECONDS CLIENT STATUS TERM KEY: awk's printf of an httplog line
gen() {
	awk -v t0=$T0 -v f0=$FLOOD -v key=$KEY 'function line(t, c, st, ts, k, ms,   d, s) {
		d = int((t - 1761955200) / 86400); s = (t - 1761955200) % 86400
		printf "%s:1234 [%02d/Nov/2025:%02d:%02d:%02d.%03d] fe_http be_app/app1 0/0/0/5/5 %d 135 - - %s 20/18/3/1/0 0/0 \"GET /ping/%s HTTP/1.1\"\n", \
		    c, 1 + d, int(s / 3600), int(s % 3600 / 60), s % 60, ms, st, ts, k }
	BEGIN { srand(2)
		for (l = 0; l < 100000; l++)
			line(t0 + int(l * 86400 / 100000), "192.0.2." (1 + int(rand() * 250)), 200, "----",
			    sprintf("%08x-0000-4000-8000-%012x", int(rand() * 2000), 7), l % 1000)
		for (i = 0; i < 36000; i++)
			line(f0 + int(i / 300), "203.0.113.7", 429, "PR--", key, i % 1000) }'
}
gen > day.log
Q="'"
test_have python3 || missing python3
js() { python3 -c 'import json, sys; d = json.load(open("tri.json")); print(eval(sys.argv[1]))' "$1"; }
epoch() { date -u -d "$(echo "$1" | sed 's/T/ /; s/Z$//')" +%s; }

expect_success 'a day with a two-minute flood: an anomaly over by now, exit 4' '
	test_expect_code 4 lbt-triage day.log > screen &&
	test_expect_code 4 lbt-triage --json day.log > tri.json &&
	test "$(js "d[\"verdict\"]")" = over
'

expect_success 'the flooded key, its start to the second, its end within a coarse bucket' '
	test "$(js "d[\"hot_keys\"][0][\"key\"]")" = $KEY &&
	test "$(epoch "$(js "d[\"hot_keys\"][0][\"rise\"][\"start\"]")")" = $FLOOD &&
	en=$(epoch "$(js "d[\"hot_keys\"][0][\"rise\"][\"end\"]")") &&
	test "$en" -ge $((FLOOD + 120)) && test "$en" -le $((FLOOD + 120 + 24)) &&
	test "$(js "d[\"hot_keys\"][0][\"rise\"][\"peak_rps\"]")" = 300.0 &&
	grep -q "^$KEY  *new  *300.0  *300.0  18:24:01  18:2[67]:" screen
'

expect_success 'the one offender with its requests (awk), no collateral, the rule' '
	n=$(grep -c "^203\\.0\\.113\\.7:" day.log) &&
	test "$(js "[(s[\"source\"], s[\"requests\"]) for s in d[\"sources\"] if s[\"offender\"]]")" = \
	    "[(${Q}203.0.113.7${Q}, $n)]" &&
	grep -q "^    http-request deny deny_status 429 if { src 203.0.113.7 }$" screen &&
	grep -q "no collateral$" screen
'

expect_success 'times of the day of now are clock times; the screen fits in 80 columns' '
	grep -q "^ANOMALY 18:24:01 to 18:2[67]:.., over: " screen &&
	awk "length(\$0) > 80 { print; bad = 1 } END { exit bad }" screen
'

test_done
