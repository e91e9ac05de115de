#!/bin/sh
# lbt-index and standard input (and FIFOs): read once, and the same lines
# piped in again are not stored again: a second `... | lbt-index` used to
# store them twice, and lbt-rate then saw twice the real peak.
. "$(dirname "$0")/lib.sh"

gen() { sh "$TOP/bench/genlog.sh" "$@"; }
test_have sqlite3 || missing sqlite3
count() { sqlite3 "$1" "SELECT count(*) FROM requests"; }

gen 3000 > a.log || missing "bench/genlog.sh"
gen 3500 7 | tail -n 500 > more.log
lines=$(wc -l < a.log)
more=$(wc -l < more.log)

expect_success 'stdin piped twice: stored once, the second run says so' '
	cat a.log | lbt-index -d t.db 2> err1 && test "$(count t.db)" -eq "$lines" &&
	cat a.log | lbt-index -d t.db 2> err2 &&
	test "$(count t.db)" -eq "$lines" &&
	test "$(sqlite3 t.db "SELECT count(*) FROM files")" = 1 &&
	grep "(stdin): holds the requests of .(stdin)., indexed already (its $lines lines): not stored again" err2 &&
	grep "1 left out as a duplicate" err2
'

expect_success 'three runs: lbt-rate counts every request once' '
	cat a.log | lbt-index -q -d t.db &&
	lbt-rate --db t.db --tsv --top 0 > out &&
	awk -F"\t" "NR > 1 { s += \$2 } END { print s }" out > got &&
	echo "$lines" > want && test_cmp want got
'

expect_success 'stdin holding an indexed file: not stored again' '
	lbt-index -q -d f.db a.log &&
	cat a.log | lbt-index -d f.db 2> err &&
	test "$(count f.db)" -eq "$lines" &&
	grep "holds the requests of .a.log., indexed already" err
'

expect_success 'a stream that grew stores only its new lines, and says so' '
	cat a.log more.log | lbt-index -d t.db 2> err &&
	test "$(count t.db)" -eq "$((lines + more))" &&
	grep "its first $lines lines are those of .(stdin)., indexed already: only the $more lines after them were stored" err &&
	grep ", $more records," err
'

expect_success 'a FIFO piped twice: stored once' '
	mkfifo f &&
	(cat a.log > f &) && timeout 60 lbt-index -q -d p.db f &&
	(cat a.log > f &) && timeout 60 lbt-index -d p.db f 2> err &&
	test "$(count p.db)" -eq "$lines" &&
	grep "f: holds the requests of .f., indexed already" err
'

expect_success 'other lines on stdin are stored' '
	gen 200 11 > other.log && before=$(count t.db) &&
	lbt-index -q -d t.db - < other.log &&
	test "$(count t.db)" -eq "$((before + 200))" &&
	test "$(sqlite3 t.db "SELECT count(*) FROM files")" = 3
'

test_done
