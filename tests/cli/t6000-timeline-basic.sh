#!/bin/sh
# lbt-timeline: options, errors and exit statuses, the output forms and the
# documented schema (man page = TSV header = NDJSON keys), on small inputs.
test_description='lbt-timeline basics'
. "$LBT_TOP/tests/cli/lib.sh"

INC=$DATA/incident
[ -f "$INC/haproxy-httplog.log.zst" ] || missing "the incident capture in $INC"
test_have mandoc || missing mandoc
zstd -dcq "$INC/haproxy-httplog.log.zst" > inc.log

# The schema's columns as the man page lists them (the .It lines of "The
# event schema"), one a line.
schema() {
	mandoc -T ascii "$TOP/man/lbt-timeline.1" | sed "s/.$(printf '\b')//g" |
	    sed -n '/^  *The event schema/,/^  *The kinds:/p' |
	    grep -E '^     [a-z_]+(, [a-z_]+)*( {2,}.*)?$' |
	    sed -E 's/^ *//; s/ {2,}.*//; s/, /\n/g'
}

expect_success '--help: the options, exit 0, nothing on stderr' '
	lbt-timeline --help >out 2>err && test ! -s err &&
	for o in --step --top --track --ratio --maxconn --alert-pct --retry-window \
	    --retry-min --flaps --html --since --until --db --md --json --tsv; do
		grep -q -- "$o" out || { echo "missing $o"; exit 1; }
	done
'

expect_success 'bad option values: the option named, exit 1' '
	test_expect_code 1 lbt-timeline --ratio 1 inc.log 2>err &&
	grep -F "lbt-timeline: --ratio" err &&
	test_expect_code 1 lbt-timeline --alert-pct 0 inc.log 2>err &&
	grep -F "lbt-timeline: --alert-pct" err &&
	test_expect_code 1 lbt-timeline --top 0 inc.log 2>err && grep -F -- "--top" err &&
	test_expect_code 1 lbt-timeline --step 0 inc.log 2>err && grep -F -- "--step" err &&
	test_expect_code 1 lbt-timeline --flaps 1 inc.log 2>err && grep -F -- "--flaps" err
'

expect_success 'two output modes, an unknown option: usage, exit 1' '
	test_expect_code 1 lbt-timeline --md --json inc.log 2>err &&
	grep -F "choose one of --tsv, --json, --table and --md" err &&
	test_expect_code 1 lbt-timeline --nosuch inc.log 2>err &&
	grep -F "usage: lbt-timeline" err
'

expect_success 'a missing file is named, the others are read, exit 1' '
	test_expect_code 1 lbt-timeline --tsv nosuch.log inc.log >out 2>err &&
	grep -F "lbt-timeline: nosuch.log" err && grep -q "	rise	" out
'

expect_success 'an unwritable --html path is named, exit 1, the report still printed' '
	test_expect_code 1 lbt-timeline --tsv --html nodir/x.html inc.log >out 2>err &&
	grep -F "lbt-timeline: nodir/x.html" err && grep -q "	end	" out
'

expect_success 'an empty input: a note, no event, exit 2 (empty)' '
	: > empty.log &&
	test_expect_code 2 lbt-timeline --tsv empty.log >out 2>err &&
	grep -F "lbt-timeline: no request with a time in the input" err &&
	test "$(wc -l < out)" -eq 1
'

expect_success 'the TSV header is the schema of the man page' '
	schema > expect && test "$(wc -l < expect)" -eq 26 &&
	lbt-timeline --tsv inc.log | head -n 1 | tr "\t" "\n" > got &&
	test_cmp expect got
'

expect_success 'NDJSON: one object a line, the schema keys in order, same events as TSV' '
	lbt-timeline --json inc.log > ev.json &&
	schema | tr "\n" " " > expect &&
	sed -e "s/^{//" -e "s/\"\([a-z_]*\)\":\(\"\([^\"\\\\]\|\\\\.\)*\"\|[^,}]*\)[,}]/\1 /g" ev.json |
		sort -u > keys && test "$(wc -l < keys)" -eq 1 &&
	printf "%s\n" "$(cat expect)" > expect1 && test_cmp expect1 keys &&
	lbt-timeline --tsv inc.log | sed 1d | cut -f 2,3 > tsv.keys &&
	sed "s/.*\"time_us\":\([0-9]*\),\"kind\":\"\([a-z_]*\)\".*/\1	\2/" ev.json > json.keys &&
	test_cmp tsv.keys json.keys
'

expect_success 'piped without a mode: TSV; --md: the Markdown report' '
	lbt-timeline inc.log | head -n 1 | cut -f 1-3 > got &&
	printf "time\ttime_us\tkind\n" > expect && test_cmp expect got &&
	lbt-timeline --md inc.log > md &&
	head -n 1 md > got && echo "## Incident timeline" > expect && test_cmp expect got &&
	grep -Fx "| time | event | numbers | evidence |" md &&
	test "$(grep -c "^| " md)" -eq $(( $(lbt-timeline --tsv inc.log | wc -l) + 1 ))
'

expect_success '--table: the summary and aligned columns' '
	lbt-timeline --table --wide inc.log > t && head -n 1 t | grep -Fx "Incident timeline" &&
	grep -q "^time  *event  *numbers  *evidence" t
'

expect_success '--table at 80 columns leaves the evidence out first' '
	lbt-timeline --table inc.log > t80 && grep -q "^time  *event  *numbers$" t80 &&
	! grep -q "^time .*evidence" t80
'

expect_success 'lbt timeline runs lbt-timeline' '
	lbt timeline --tsv inc.log > a && lbt-timeline --tsv inc.log > b && test_cmp a b
'

test_done
