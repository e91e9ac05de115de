#!/bin/sh
# A damaged index gives no answer: the analyses print no table (a table of
# the requests before the damage looked whole), only the error, and exit 1
# (docs/exit-status.md); lbt-cat, which streams its rows, says how many
# came before the damage.
. "$(dirname "$0")/lib.sh"

test_have sqlite3 || missing sqlite3
sh "$TOP/bench/genlog.sh" 20000 > a.log || missing "bench/genlog.sh"
lbt-index -q -d good.db a.log || missing "an index of a.log"
blocks=$(sqlite3 good.db "SELECT count(*) FROM blocks")
[ "$blocks" -gt 200 ] || missing "an index of more than 200 blocks"

# Block 100's columns replaced by bytes that decode to nothing.
cp good.db cols.db
sqlite3 cols.db "UPDATE blocks SET time = x'ffffffffffffffffffff', key = x'ffffffffffffffffffff',
    addr = x'ffffffffffffffffffff' WHERE id = 100" || missing "a block to damage"
# Block 100 claiming more requests than a block holds.
cp good.db count.db
sqlite3 count.db "UPDATE blocks SET n = 100000 WHERE id = 100"

for prog in lbt-rate lbt-offenders lbt-tarpit lbt-timeline lbt-triage; do
	expect_success "$prog on an index with a broken block: no table, the error, exit 1" "
		test_expect_code 1 $prog --db cols.db > out 2> err &&
		test ! -s out &&
		grep '^$prog: cols.db: a broken .* column in a block' err &&
		grep '^$prog: cols.db: the index is damaged: no answer printed' err
	"
done

expect_success 'a block that claims 100000 requests: named so, no table' '
	test_expect_code 1 lbt-rate --db count.db > out 2> err &&
	test ! -s out &&
	grep "^lbt-rate: count.db: a damaged block: it claims 100000 requests, a block holds 1 to 64" err
'

expect_success 'lbt-cat streams the rows before the damage and says how many' '
	test_expect_code 1 lbt-cat --db cols.db -f time > out 2> err &&
	got=$(($(wc -l < out) - 1)) &&
	grep "^lbt-cat: cols.db: the index is damaged: only the $got requests before the damage were read" err &&
	! grep "of 0 files" err
'

# A page of the blocks table overwritten (the SQLite file itself damaged):
# the page is found with the dbstat table, when SQLite has it.
if page=$(sqlite3 good.db "SELECT pageno FROM dbstat WHERE name = 'blocks' AND
    pagetype = 'leaf' ORDER BY pageno LIMIT 1 OFFSET 4" 2>/dev/null) && [ -n "$page" ]; then
	psize=$(sqlite3 good.db "PRAGMA page_size")
	cp good.db page.db
	awk 'BEGIN { for (i = 0; i < 512; i++) printf "GARBAGE!" }' |
		dd of=page.db bs=1 seek=$(( (page - 1) * psize + 8 )) conv=notrunc 2>/dev/null
	expect_success 'lbt-rate on an index with a damaged page: no table, exit 1' '
		test_expect_code 1 lbt-rate --db page.db > out 2> err &&
		test ! -s out &&
		grep "^lbt-rate: page.db: the index is damaged: no answer printed" err
	'
else
	skip 'SQLite without dbstat' 'lbt-rate on an index with a damaged page'
fi

expect_success 'the undamaged index: a table, exit 0' '
	lbt-rate --db good.db --tsv --top 0 > out &&
	awk -F"\t" "NR > 1 { s += \$2 } END { print s }" out > got &&
	wc -l < a.log | tr -d " " > want && test_cmp want got
'

test_done
