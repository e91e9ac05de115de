#!/bin/sh
# A log whose every line names a frontend of its own (a damaged log, or a
# forged one: the frontend word rewritten) must not take the machine: each
# frontend costs the tarpit analysis an occupancy of tens of KiB, so 20,000
# of them took 1.8 GB, and 200,000 16 GB.  Past the frontends' share of
# --max-memory the requests are counted, not analysed, and a note says how
# many: the rows plus the note add up to every request (awk's count).
. "$(dirname "$0")/lib.sh"

sh "$TOP/bench/genlog.sh" 20000 3 | awk '{ $3 = "fe_" NR; print }' > many.log
total=$(wc -l < many.log)

expect_success 'the fixture: a frontend of its own on every line' '
	test "$(awk "{ print \$3 }" many.log | sort -u | wc -l)" = "$total"
'

expect_success 'lbt-tarpit --max-memory 16M: rows + the note = every request, memory bounded' '
	/usr/bin/time -f %M -o rss lbt-tarpit --max-memory 16M --tsv --summary many.log > sum.tsv 2> err &&
	rows=$(sed 1d sum.tsv | grep -vc "^(total)") &&
	inrows=$(sed 1d sum.tsv | grep -v "^(total)" | awk -F "\t" "{ n += \$3 } END { print n }") &&
	past=$(sed -n "s/.*note: \([0-9]*\) requests of frontends past the first \([0-9]*\) were not analysed.*/\1 \2/p" err) &&
	test -n "$past" && set -- $past &&
	test "$2" = "$rows" && test $(($1 + inrows)) = "$total" &&
	test "$rows" -lt 1000 && test "$(tail -n 1 rss)" -lt 400000
'

expect_success 'lbt-triage says it in its approximations' '
	lbt-triage --json many.log > t.json 2> err; test $? -le 5 &&
	python3 -c "
import json, sys
d = json.load(open(\"t.json\"))
a = [x for x in d[\"approximations\"] if x[\"what\"] == \"frontends\"]
sys.exit(0 if a and a[0][\"dropped\"] > 0 else 1)" &&
	grep -q "requests of frontends past the first" err
'

test_done
