#!/bin/sh
# Most of a file unread must never look like an answer (issue 19, item 3).
# Detection scores the first 50 lines; a flood that begins later, in
# another built-in format, widens the set from the failing lines and is
# read whole; lines that no format reads, more than 1 % of a file, make
# every program say so with the counts (awk's) and exit 3, and lbt-triage
# never says "calm" then.  A lone long word is no record.
. "$(dirname "$0")/lib.sh"

I=$DATA/incident
zstd -dcq "$I/nginx-combined.log.zst" | head -n 300 > nginx.part
zstd -dcq "$I/haproxy-httplog.log.zst" | head -n 1200 > haproxy.part
test "$(wc -l < nginx.part)" = 300 && test "$(wc -l < haproxy.part)" = 1200 ||
	missing "the incident captures"

# 300 NGINX lines, then 1,200 HAProxy httplog lines (80 % of the file)
cat nginx.part haproxy.part > flood.log
# the same 300, then 1,200 lines no format reads
awk '{ print } END { for (i = 1; i <= 1200; i++) printf "flood %d GET /x\n", i }' \
    nginx.part > junk.log
# 60 NGINX lines, then the rest of each interleaved, one for one
{ head -n 60 nginx.part; tail -n +61 nginx.part | paste -d '\n' - haproxy.part |
    grep -v '^$'; } > mixed.log

expect_success 'a flood in another built-in after the sample: every line read, exit 0' '
	lbt-cat --tsv --fields line,client flood.log > out 2> err &&
	tail -n +2 out | cut -f 1 > got && seq 1 1500 > expect && test_cmp expect got &&
	grep -x "lbt-cat: flood.log:301: 50 of 50 lines in a row from here fit none of the formats detected on the first lines: read with haproxy-httplog as well" err &&
	test "$(wc -l < err)" = 1
'

expect_success 'the flood'\''s records are those of the HAProxy lines read alone' '
	lbt-cat --tsv --no-header --fields client,status,path flood.log > all 2> /dev/null &&
	lbt-cat --format haproxy-httplog --tsv --no-header --fields client,status,path \
	    haproxy.part > alone &&
	tail -n 1200 all > got && test_cmp alone got
'

expect_success 'lbt-rate and lbt-triage count the flood (1,500 requests, 2 threads too)' '
	lbt-rate --threads 2 --tsv flood.log > r2 2> /dev/null &&
	lbt-rate --threads 1 --tsv flood.log > r1 2> /dev/null && test_cmp r1 r2 &&
	lbt-triage flood.log > tri 2> /dev/null;
	test $? -ne 3 && grep -q " 1500 lines, 1500 requests" tri
'

expect_success 'a flood interleaved with the lines detected: read too' '
	lbt-cat --tsv --fields line mixed.log > out 2> err &&
	tail -n +2 out > got && seq 1 "$(wc -l < mixed.log)" > expect && test_cmp expect got
'

# awk's counts of junk.log: lines, those after the 300 NGINX ones, the first
lines=$(awk 'END { print NR }' junk.log)
bad=$(awk '/^flood / { n++ } END { print n }' junk.log)
first=$(awk '/^flood / { print NR; exit }' junk.log)

expect_success 'lines no format reads (80 %): exit 3 with the counts, records still printed' '
	test "$lines $bad $first" = "1500 1200 301" &&
	test_expect_code 3 lbt-cat --tsv --fields line junk.log > out 2> err &&
	test "$(tail -n +2 out | wc -l)" = 300 &&
	grep -x "lbt-cat: $bad malformed lines of $lines (first 5 shown above)" err &&
	grep "^lbt-cat: junk.log: $bad of its $lines lines (80.0 %) could not be read, the first at line $first: more than 1 % of the input is missing from the answer" err
'

expect_success 'every program says so: lbt-rate, lbt-offenders, lbt-tarpit, lbt-index exit 3' '
	for p in rate offenders tarpit timeline; do
		test_expect_code 3 lbt-$p junk.log > out 2> err &&
		grep -q "^lbt-$p: junk.log: $bad of its $lines lines (80.0 %) could not be read" err ||
		exit 1
	done &&
	test_expect_code 3 lbt-index --db j.db junk.log > out 2> err &&
	grep -q "^lbt-index: junk.log: $bad of its $lines lines (80.0 %) could not be read" err &&
	{ ! test_have sqlite3 || test "$(sqlite3 j.db "SELECT count(*) FROM requests")" = 300; }
'

expect_success 'lbt-triage: exit 3 and never "calm", on the screen or in --json' '
	test_expect_code 3 lbt-triage junk.log > tri 2> err &&
	! grep -q "^calm" tri &&
	grep -q "^NOT KNOWN: $bad of the $lines lines could not be read" tri &&
	test_expect_code 3 lbt-triage --json junk.log > tri.json 2> /dev/null &&
	grep -q "\"verdict\": \"unread\"" tri.json && grep -q "\"unread\": $bad," tri.json
'

expect_success 'one malformed line in 300 (0.33 %): no note, exit 0' '
	{ head -n 150 nginx.part; echo "not a log line"; tail -n 150 nginx.part; } > few.log &&
	lbt-cat --tsv --fields line few.log > out 2> err &&
	test "$(wc -l < err)" = 2 && grep -x "lbt-cat: 1 malformed line of 301" err
'

# A word of 1,000 non-space bytes: long enough to look cut by the logger,
# it was read by nginx-xff as a request with every field null.
awk 'BEGIN { s = sprintf("%1200s", ""); gsub(/ /, "A", s); print s }' > word.log
expect_success 'a lone long word is no record: unread, exit 3' '
	test_expect_code 3 lbt-cat --json word.log > out 2> err && test ! -s out &&
	test_expect_code 3 lbt-cat --format nginx-xff --json word.log > out 2> err &&
	test ! -s out && grep -q "^lbt-cat: word.log:1: " err
'

expect_success 'a long word among NGINX lines (in the sample): malformed, no record of nulls' '
	{ head -n 20 nginx.part; cat word.log; tail -n 280 nginx.part; } > some.log &&
	test_expect_code 0 lbt-cat --json --fields line,client,time some.log > out 2> err &&
	test "$(wc -l < out)" = 300 && ! grep -q "\"line\":21," out &&
	! grep -q "\"client\":null" out && grep -q "^lbt-cat: some.log:21: " err
'

test_done
