#!/bin/sh
# lbt-triage on the real-server incident capture (tests/data/incident, made
# by tests/lab/incident.sh --save): one ping UUID flooded from 203.0.113.7
# and eight addresses of 2001:db8:bad:1::/64, tarpitted against maxconn 20,
# then denied, then rejected, then calm.  Every expected value comes from
# elsewhere: the hot key and the request counts from awk on the log, the
# jump time from phases.tsv, the held seconds from awk (sum of Tw over the
# PT lines), the rule's networks from the lab's own offenders list
# (LAB_OFFENDERS in tests/lab/lib.sh, what the reject phase denied), the
# rule line from lbt-deny run with the command the screen gives, and
# haproxy -c -dW reads it.  A missing capture is a failure.
. "$(dirname "$0")/lib.sh"

INC=${LBT_INCIDENT:-$DATA/incident}
if [ ! -f "$INC/haproxy-httplog.log.zst" ] || [ ! -f "$INC/phases.tsv.zst" ]; then
	missing "the incident capture in $INC"
fi
test_have python3 || missing python3
test_have zstd || missing zstd
PATH=/usr/sbin:/sbin:$PATH
test_have haproxy || missing haproxy
zstd -dcq "$INC/haproxy-httplog.log.zst" > httplog.log
zstd -dcq "$INC/phases.tsv.zst" > phases.tsv
CFG="--haproxy-cfg $INC/haproxy-tarpit.cfg --frontend fe_http"
OFFENDERS=$(sed -n 's/^LAB_OFFENDERS="\(.*\)"$/\1/p' "$TOP/tests/lab/lib.sh")
[ -n "$OFFENDERS" ] || missing "LAB_OFFENDERS in tests/lab/lib.sh"

# phase start in epoch seconds, floored (phases.tsv: name start_us end_us)
phase_s() { awk -F "\t" -v p="$1" -v c="$2" '$1 == p { printf "%d\n", $c / 1e6 }' phases.tsv; }
# js EXPR - evaluate EXPR on the document tri.json (d) with python3
js() { python3 -c 'import json, sys; d = json.load(open("tri.json")); print(eval(sys.argv[1]))' "$1"; }
# epoch seconds of an ISO 8601 UTC time
epoch() { date -u -d "$(echo "$1" | sed 's/T/ /; s/Z$//')" +%s; }
Q="'"
# wide FILE - print the lines longer than 80 columns (none expected)
wide() { awk 'length($0) > 80 { print FILENAME ":" FNR ": " length($0) ": " $0 }' "$1"; }

expect_success 'the incident: an anomaly that is over by now, exit 4, screen and document' '
	test_expect_code 4 lbt-triage $CFG httplog.log > screen 2> err &&
	test ! -s err &&
	test_expect_code 4 lbt-triage --json $CFG httplog.log > tri.json &&
	test "$(js "d[\"verdict\"]")" = over &&
	grep -q "^ANOMALY 07:45:30 to 07:46:01, over: " screen
'

expect_success 'the hot key is the flooded UUID, with its requests (awk)' '
	awk "{ if (match(\$0, /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/))
		n[substr(\$0, RSTART, RLENGTH)]++ }
		END { for (k in n) print n[k], k }" httplog.log | sort -rn | head -n 1 > top &&
	read -r want_n want_k < top &&
	test "$(js "d[\"hot_keys\"][0][\"key\"]")" = "$want_k" &&
	test "$(js "d[\"hot_keys\"][0][\"requests\"]")" = "$want_n" &&
	test "$(js "len(d[\"hot_keys\"])")" = 1 &&
	grep -A1 "^hot key" screen | tail -n 1 | cut -c 1-36 > got &&
	echo "$want_k" > expect && test_cmp expect got
'

expect_success 'its jump starts within one 1 s bucket of the tarpit phase (phases.tsv)' '
	ts=$(phase_s tarpit 2) &&
	st=$(epoch "$(js "d[\"hot_keys\"][0][\"rise\"][\"start\"]")") &&
	test $((st - ts)) -ge -1 && test $((st - ts)) -le 1 &&
	test "$(js "d[\"hot_keys\"][0][\"rise\"][\"ongoing\"]")" = False &&
	en=$(epoch "$(js "d[\"hot_keys\"][0][\"rise\"][\"end\"]")") &&
	te=$(phase_s reject 3) && test "$en" -le "$te"
'

expect_success 'the two offenders, with their exact requests (awk), new, in the rule' '
	awk "\$1 ~ /^203\\.0\\.113\\.7:/ { a++ } \$1 ~ /^2001:db8:bad:1:/ { b++ }
		END { print \"2001:db8:bad:1::/64\", b; print \"203.0.113.7\", a }" httplog.log > expect &&
	js "\"\\n\".join(sorted(s[\"source\"] + \" \" + str(s[\"requests\"]) for s in d[\"sources\"] if s[\"offender\"]))" > got &&
	test_cmp expect got &&
	awk "\$NF == \"deny\" && \$1 ~ /^[0-9a-f.:\/]+\$/ { print \$1, \$2 }" screen | sort > got &&
	test_cmp expect got &&
	js "sorted(set(s[\"why\"] + \" \" + s[\"in_rule\"] for s in d[\"sources\"] if s[\"offender\"]))" > got &&
	echo "[${Q}new all${Q}]" > expect && test_cmp expect got
'

expect_success 'no other source offends: the decoys of the same /24 and /48 are not in the rule' '
	test "$(js "sum(1 for s in d[\"sources\"] if s[\"offender\"])")" = 2 &&
	lbt-triage --more-sources 20 $CFG httplog.log > screen20 ;
	grep -E "^(203\\.0\\.113\\.8|2001:db8:bad:2::/64) " screen20 > decoys &&
	test "$(wc -l < decoys)" -eq 2 && ! grep -q deny decoys
'

expect_success 'tarpit-held seconds = sum of Tw over the PT lines (awk)' '
	awk "\$3 == \"fe_http\" && \$10 ~ /^PT/ { split(\$5, t, \"/\"); w += t[2]; n++ }
		END { printf \"%.3f %d\n\", w / 1000, n }" httplog.log > expect &&
	js "\"%.3f %d\" % (d[\"pressure\"][0][\"held_s\"], d[\"pressure\"][0][\"tarpitted\"])" > got &&
	test_cmp expect got &&
	read -r held npt < expect &&
	grep -q "^  tarpit held $held s (sum of Tw) over $npt requests" screen
'

expect_success 'slots against maxconn 20 (from the configuration), full in the tarpit phase, not now' '
	test "$(js "d[\"pressure\"][0][\"maxconn\"]")" = 20 &&
	grep -q "^pressure on fe_http: maxconn 20 (haproxy-tarpit.cfg:" screen &&
	test "$(js "d[\"pressure\"][0][\"full_now\"]")" = False &&
	ff=$(epoch "$(js "d[\"pressure\"][0][\"full_from\"]")") &&
	ts=$(phase_s tarpit 2) && te=$(phase_s tarpit 3) &&
	test "$ff" -ge $((ts - 10)) && test "$ff" -le "$te" &&
	grep -q "^  full: fc at maxconn from .*, not now$" screen
'

expect_success 'the damage: requests, 429, 5xx and 503 answers (awk), none to the legitimate' '
	awk "\$6 ~ /^-?[0-9]+\$/ { n++ } \$6 == 429 { a++ } \$6 >= 500 && \$6 < 600 { f++ }
		\$6 == 503 { u++ } END { printf \"%d %d %d %d\\n\", n, a, f, u }" httplog.log > expect &&
	js "\" \".join(str(d[\"damage\"][k]) for k in (\"requests\", \"429\", \"5xx\", \"503\"))" > got &&
	test_cmp expect got &&
	read -r n a f u < expect &&
	grep -q "^damage: of $n answers, $(awk -v a=$a -v n=$n "BEGIN { printf \"%.1f\", 100 * a / n }")% 429, " screen &&
	test "$(js "(d[\"damage\"][\"legitimate\"][\"429\"], d[\"damage\"][\"legitimate\"][\"5xx\"])")" = "(0, 0)" &&
	grep -q "^  to the 8 legitimate sources (" screen
'

expect_success 'the rule covers exactly the lab'"'"'s offenders list, with no collateral' '
	printf "%s\n" $OFFENDERS | sort > expect &&
	js "\"\\n\".join(sorted(d[\"rule\"][\"networks\"]))" > got && test_cmp expect got &&
	test "$(js "d[\"rule\"][\"collateral\"][\"requests\"]")" = 0 &&
	grep -q "^rule: deny at once (429) for 2 networks, .*; no collateral$" screen
'

expect_success 'the rule lines are what the command shown places, above the line named' '
	awk "/^[a-z]/ { skip = (\$2 == \"fe_https\") } !skip" "$INC/haproxy-tarpit.cfg" > inc.cfg &&
	L=$(awk "/^[a-z]/ { f = (\$2 == \"fe_http\") } f && \$1 == \"http-request\" { print NR; exit }" inc.cfg) &&
	test_expect_code 4 lbt-triage --haproxy-cfg inc.cfg --frontend fe_http httplog.log > screen_p &&
	grep -q "^insert above inc.cfg:$L, fe_http.s first http-request track-sc0$" screen_p &&
	sed -n "/^written by:/,\$p" screen_p | sed 1d | sed "s/^ *//; s/ \\\\\$//" | tr "\n" " " > cmd &&
	grep -q "^lbt-deny --into inc.cfg --frontend fe_http -o inc.cfg.new " cmd &&
	sh cmd > diff.out 2> deny.err && grep -q "the configuration is valid" deny.err &&
	sed -n "$((L + 1))p" inc.cfg.new > expect &&
	sed -n "/^rule: /,/^written by:/p" screen_p | grep "^    [a-z]" > got &&
	test_cmp expect got &&
	grep -q "http-request deny deny_status 429 if { src " got &&
	printf "%s\n" "global" "    maxconn 100" "defaults" "    mode http" \
	    "    timeout connect 1s" "    timeout client 2s" "    timeout server 2s" \
	    "backend be_ok" "    http-request return status 200" \
	    "frontend fe_http" "    bind 127.0.0.1:18080" "    default_backend be_ok" > full.cfg &&
	cat got >> full.cfg && haproxy -c -dW -f full.cfg
'

expect_success 'every line of the screen fits in 80 columns, on every input shape' '
	lbt-triage $CFG httplog.log > s1 ;
	lbt-triage --deny-v4-prefix 24 --deny-v6-prefix 48 httplog.log > s2 ;
	lbt-triage --nginx --allow 203.0.113.7 httplog.log > s3 ;
	lbt-triage --until 2026-11-30T07:45:45Z $CFG httplog.log > s4 ;
	zstd -dcq "$INC/haproxy-httplog-rfc3164.log.zst" | lbt-triage --maxconn 20 > s5 ;
	zstd -dcq "$INC/nginx-combined.log.zst" | lbt-triage > s6 ;
	lbt-triage --keys 10 --more-sources 50 $CFG httplog.log > s7 ;
	for f in s1 s2 s3 s4 s5 s6 s7; do test -s $f && wide $f; done > long &&
	test ! -s long
'

expect_success 'ongoing: cut in the tarpit phase, the rise lasts to now and fe_http is FULL now, exit 5' '
	test_expect_code 5 lbt-triage --json --until 2026-11-30T07:45:45Z $CFG httplog.log > tri.json &&
	test "$(js "d[\"verdict\"]")" = ongoing &&
	test "$(js "d[\"hot_keys\"][0][\"rise\"][\"ongoing\"]")" = True &&
	test "$(js "d[\"pressure\"][0][\"full_now\"]")" = True &&
	test_expect_code 5 lbt-triage --until 2026-11-30T07:45:45Z $CFG httplog.log > screen4 &&
	grep -q "^ANOMALY since 07:45:30, ONGOING: " screen4 &&
	grep -q "  now$" screen4 && grep -q "^  FULL NOW: fc at maxconn" screen4
'

expect_success 'collateral said: /24 and /48 catch the decoys, their requests counted (awk)' '
	lbt-triage --json --deny-v4-prefix 24 --deny-v6-prefix 48 httplog.log > tri.json ;
	awk "\$1 ~ /^203\\.0\\.113\\.8:/ || \$1 ~ /^2001:db8:bad:2:/ { n++ } END { print n }" \
	    httplog.log > expect &&
	js "d[\"rule\"][\"collateral\"][\"requests\"] + d[\"rule\"][\"collateral\"][\"partial_requests\"]" > got &&
	test_cmp expect got &&
	n=$(cat expect) &&
	lbt-triage --deny-v4-prefix 24 --deny-v6-prefix 48 httplog.log > screen24 ;
	tr "\n" " " < screen24 | tr -s " " | grep -q "COLLATERAL: $n requests of 2 other sources" &&
	js "\"\\n\".join(d[\"rule\"][\"networks\"])" > nets &&
	printf "%s\n" 203.0.113.0/24 2001:db8:bad::/48 > expect && test_cmp expect nets
'

expect_success 'the rule that does not fit on one line names the list file, and lbt-deny writes it' '
	grep -q "src -f /etc/haproxy/offenders.lst }" screen24 &&
	sed -n "/^written by:/,\$p" screen24 | sed 1d | sed "s/^ *//; s/ \\\\\$//" | tr "\n" " " > cmd &&
	sed -i "s|/etc/haproxy/offenders.lst|$PWD/off.lst|" cmd &&
	sh cmd > /dev/null && grep -v "^#" off.lst > got &&
	printf "%s\n" 203.0.113.0/24 2001:db8:bad::/48 > expect && test_cmp expect got
'

expect_success '--allow cuts an offender out of the rule, and says why' '
	lbt-triage --allow 2001:db8:bad::/48 httplog.log > screen_a ;
	grep -q "^  left out 2001:db8:bad:1::/64: in the allow list (--allow 2001:db8:bad::/48)" screen_a &&
	grep -q "^    http-request deny deny_status 429 if { src 203.0.113.7 }$" screen_a &&
	grep -q "^2001:db8:bad:1::/64 .* left$" screen_a
'

expect_success 'the index (--db) and standard input give the screen of the files' '
	lbt-index -d inc.db --format haproxy-httplog httplog.log 2> /dev/null &&
	lbt-triage $CFG httplog.log | sed 1d > from_file ;
	lbt-triage --db inc.db $CFG | sed 1d > from_db ;
	lbt-triage $CFG < httplog.log | sed 1d > from_stdin ;
	test_cmp from_file from_db && test_cmp from_file from_stdin && test -s from_file
'

expect_success '--json: one document with the documented keys (python3 json)' '
	lbt-triage --json $CFG httplog.log > tri.json ;
	python3 - tri.json <<-EOF
	import json, sys
	d = json.load(open(sys.argv[1]))
	def keys(o, want, what):
	    assert sorted(o) == sorted(want.split()), (what, sorted(o))
	keys(d, "lbt_triage verdict data anomaly total hot_keys baseline sources pressure damage rule remedy approximations", "top")
	keys(d["data"], "lines unread records requests first last now sources x_forwarded_for", "data")
	keys(d["data"]["x_forwarded_for"], "trusted_proxies set_aside unverified trusted", "xff")
	keys(d["anomaly"], "since until", "anomaly")
	rise = "from_rps to_rps now_rps peak_rps peak_at start end ongoing new"
	keys(d["total"], rise, "total")
	keys(d["hot_keys"][0], "key requests rise", "hot_keys")
	keys(d["hot_keys"][0]["rise"], rise, "rise")
	keys(d["baseline"], "from to", "baseline")
	for s in d["sources"]:
	    keys(s, "source family requests share share_all ratio new baseline_rate resent_pct cause limit stopped slow peak_rps addresses first last offender why in_rule status from_header via", "source")
	    keys(s["status"], "2xx 3xx 4xx 429 5xx -1 other", "status")
	keys(d["pressure"][0], "lb frontend requests tarpitted held_s tarpit_slot_pct maxconn maxconn_from peak_slots peak_at peak_tarpitted peak_if_denied fc_max full_buckets full_from full_to full_now", "pressure")
	keys(d["damage"], "requests 429 503 5xx -1 legitimate rises", "damage")
	keys(d["damage"]["legitimate"], "sources requests 429 5xx -1", "legitimate")
	keys(d["damage"]["rises"][0], "status requests rise", "rises")
	keys(d["rule"], "dialect action networks lines list_file command requests share collateral left_out place", "rule")
	keys(d["rule"]["collateral"], "requests partial_requests sources", "collateral")
	keys(d["remedy"], "surge total_ratio capacity rate_limited rate_limit_lines retry_after prefixes timeout_lines", "remedy")
	assert d["lbt_triage"] and d["verdict"] == "over" and d["rule"]["dialect"] == "haproxy"
	assert d["data"]["requests"] == sum(s for s in [d["damage"]["requests"]])
	EOF
'

test_done
