#!/bin/sh
# Every program gives the same output from the logs and from the index
# (--db), with and without filters.  The fixture is sorted by time: the
# index returns records in time order, a log in the order lines were written.
. "$(dirname "$0")/lib.sh"

# A log in time order: bench/genlog.sh lines, stably sorted on the date field.
expect_success 'index a time-ordered log' '
	sh "$TOP/bench/genlog.sh" 6000 > gen.log &&
	sort -s -t " " -k2,2 gen.log > a.log &&
	lbt-index -q -d t.db a.log
'

# Run "$@" on the log and on the index, compare the outputs.
both() {
	"$@" a.log > raw.out && "$@" --db t.db > db.out && test_cmp raw.out db.out &&
	test -s raw.out
}

# the flooded key: the most frequent one
flood=$(sed "s/.*GET \/\(ping\/\)\{0,1\}\([^ ]*\) .*/\2/" gen.log | sort | uniq -c |
	sort -rn | awk "NR == 1 { print \$2 }")

expect_success 'the flooded key has records from 203.0.113.7 with status 500' '
	test "$(grep -c "^203.0.113.7:.* 500 .*$flood" a.log)" -gt 100
'


for filter in "" "--key $flood" "--src 2001:db8:bad:1::/64" "--src 203.0.113.0/24" \
    "--status 5xx" "--term PT" "--since 2025-11-01T22:24:02Z --until 2025-11-01T22:24:03Z" \
    "--since 22:24:02" "--key $flood --src 203.0.113.7 --status 500"; do
	expect_success "lbt-cat $filter: same records from the log and the index" "
		both lbt-cat $filter
	"
	expect_success "lbt-cat --json $filter: same records" "
		both lbt-cat --json $filter
	"
done

for prog in lbt-rate lbt-offenders lbt-tarpit lbt-timeline; do
	command -v "$prog" > /dev/null 2>&1 || continue
	for filter in "" "--key $flood" "--src 2001:db8:bad:1::/64"; do
		expect_success "$prog $filter: same output from the log and the index" "
			both $prog --tsv $filter
		"
	done
done

expect_success 'lbt-cat --db --raw prints the original lines from the index alone' '
	lbt-index -q --keep-raw -d r.db a.log &&
	mv a.log a.log.away &&
	lbt-cat --db r.db --raw --src 203.0.113.7 > db.raw &&
	grep -F "203.0.113.7:" a.log.away > want.raw &&
	mv a.log.away a.log &&
	test_cmp want.raw db.raw
'

test_done
