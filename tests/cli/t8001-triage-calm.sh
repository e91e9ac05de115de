#!/bin/sh
# lbt-triage when nothing is wrong, when there is nothing, and when it is
# used wrong: the exit statuses of man lbt-triage (0 calm, 1 usage or input
# error, 2 no records), on the incident capture cut to its baseline phase
# (phases.tsv) and to its calm phase, on real fixtures of a quiet lab run
# (tests/data/real), on empty and filtered-out input.
. "$(dirname "$0")/lib.sh"

INC=${LBT_INCIDENT:-$DATA/incident}
if [ ! -f "$INC/haproxy-httplog.log.zst" ] || [ ! -f "$INC/phases.tsv.zst" ]; then
	missing "the incident capture in $INC"
fi
test_have python3 || missing python3
zstd -dcq "$INC/haproxy-httplog.log.zst" > httplog.log
zstd -dcq "$INC/phases.tsv.zst" > phases.tsv
CFG="--haproxy-cfg $INC/haproxy-tarpit.cfg --frontend fe_http"
# @EPOCH of a phase boundary (phases.tsv: name start_us end_us)
at() { awk -F "\t" -v p="$1" -v c="$2" '$1 == p { printf "@%d\n", $c / 1e6 }' phases.tsv; }
js() { python3 -c 'import json, sys; d = json.load(open(sys.argv[2])); print(eval(sys.argv[1]))' "$1" "$2"; }
Q="'"
wide() { awk 'length($0) > 80 { print FILENAME ":" FNR ": " $0 }' "$1"; }

expect_success 'the baseline phase alone (--until the tarpit phase): calm, exit 0, no rule' '
	test_expect_code 0 lbt-triage --until "$(at tarpit 2)" $CFG httplog.log > screen 2> err &&
	test ! -s err &&
	grep -q "^calm: no rise of the requests or of a key, no full frontend, no source to deny" screen &&
	grep -q "^rule: none " screen && ! grep -q "http-request" screen &&
	! grep -q "^ANOMALY" screen && test -z "$(wide screen)"
'

expect_success 'its document: verdict calm, no anomaly, no hot key, no offender, rule null' '
	lbt-triage --json --until "$(at tarpit 2)" $CFG httplog.log > calm.json ;
	test "$(js "(d[\"verdict\"], d[\"anomaly\"], d[\"rule\"], d[\"hot_keys\"])" calm.json)" = \
	    "(${Q}calm${Q}, None, None, [])" &&
	test "$(js "sum(s[\"offender\"] for s in d[\"sources\"])" calm.json)" = 0 &&
	test "$(js "d[\"pressure\"][0][\"tarpitted\"]" calm.json)" = 0
'

expect_success 'the calm phase alone (--since): calm, exit 0' '
	test_expect_code 0 lbt-triage --since "$(at calm 2)" $CFG httplog.log > screen_c &&
	grep -q "^calm: " screen_c
'

expect_success 'quiet real fixtures of HAProxy and NGINX: calm, exit 0, within 80 columns' '
	for f in haproxy-httplog.log haproxy-httplog-rfc5424.log haproxy-tcplog.log \
	    nginx-combined.log nginx-json.log; do
		test_expect_code 0 lbt-triage "$DATA/real/$f" > "q.$f" || exit 1
		grep -q "^calm: " "q.$f" && test -z "$(wide "q.$f")" || exit 1
	done
'

expect_success 'no records: filtered out or empty input, exit 2, said on both outputs' '
	test_expect_code 2 lbt-triage --since 2030-01-01 httplog.log > out 2> err &&
	echo "lbt-triage: no records in 3844 lines" > expect && test_cmp expect out &&
	grep -q "^lbt-triage: the window --since 2030-01-01T00:00:00Z lies outside the data (2026-11-30T07:45:10.548Z .. 2026-11-30T07:46:20.243Z): nothing to answer from\$" err &&
	test_expect_code 2 lbt-triage < /dev/null > out &&
	echo "lbt-triage: no records in 0 lines" > expect && test_cmp expect out &&
	test_expect_code 2 lbt-triage --json < /dev/null > none.json &&
	test "$(js "(d[\"verdict\"], d[\"data\"][\"requests\"], d[\"rule\"])" none.json)" = \
	    "(${Q}no-records${Q}, 0, None)"
'

expect_success 'records without a time (the minimal HAProxy format): no records, exit 2' '
	test_expect_code 2 lbt-triage "$DATA/real/haproxy-minimal.log" > out 2> err &&
	n=$(grep -c "^Connect from " "$DATA/real/haproxy-minimal.log") &&
	echo "lbt-triage: none of the $n records has a time" > expect && test_cmp expect out &&
	grep -q "^lbt-triage: no records to triage: none of the $n records has a time\$" err
'

expect_success '--now after the data: the rise is over, and the screen says how long ago' '
	test_expect_code 4 lbt-triage --now 2026-11-30T07:56:20Z $CFG httplog.log > late &&
	grep -q "^now 07:56:20 (--now): the data ends 600 s before" late &&
	grep -q "^ANOMALY .*, over: " late
'

expect_success 'bad usage: an unknown option, a bad value, --db with files: exit 1' '
	test_expect_code 1 lbt-triage --nosuch httplog.log 2> err &&
	grep -q "^lbt-triage: unknown option .--nosuch." err &&
	test_expect_code 1 lbt-triage --min-share 101 httplog.log 2> err &&
	grep -q "^lbt-triage: --min-share" err &&
	test_expect_code 1 lbt-triage --jump-factor 1 httplog.log 2> err &&
	grep -q "^lbt-triage: --jump-factor" err &&
	test_expect_code 1 lbt-triage --deny-v4-prefix 33 httplog.log 2> err &&
	test_expect_code 1 lbt-triage --db x.db httplog.log 2> err &&
	grep -q "no log file operands" err
'

expect_success 'a bad --allow: the file and line named, exit 1' '
	printf "192.0.2.0/24\nnot-a-network\n" > allow.lst &&
	test_expect_code 1 lbt-triage --allow allow.lst httplog.log 2> err > out &&
	grep -q "^lbt-triage: allow.lst:2: .not-a-network. is not an address or network" err &&
	test_expect_code 1 lbt-triage --allow no-such.lst httplog.log 2> err &&
	grep -q "^lbt-triage: no-such.lst: No such file or directory" err
'

expect_success 'an unreadable input among good ones: screen of the others, then exit 1' '
	test_expect_code 1 lbt-triage $CFG no-such.log httplog.log > out 2> err &&
	grep -q "^lbt-triage: no-such.log: No such file or directory" err &&
	grep -q "^ANOMALY " out
'

test_done
