#!/bin/sh
# lbt-rate --follow: a growing log's window counted again each interval,
# one NDJSON snapshot a line without a terminal, its rows the rate's
# rows; SIGINT a clean exit 0.  Counts are the writer's
# (tests/cli/follow-writer.py).
. "$LBT_TOP/tests/cli/lib.sh"
cp "$TOP/tests/cli/follow-writer.py" writer.py

expect_success 'the rows of the window, per source, the writer'"'"'s counts' '
	{ lbt-rate --by src --follow --interval 500ms grow.log > snaps 2> err & }
	pid=$!
	python3 writer.py grow.log 3 100 1 > counts &&
	sleep 1.5 && kill -INT $pid && wait $pid &&
	read lines w200 w429 < counts &&
	python3 - "$lines" "$((w200 + w429))" snaps <<-PY
	import json, sys
	lines, watched = int(sys.argv[1]), int(sys.argv[2])
	snaps = [json.loads(l) for l in open(sys.argv[3])]
	assert len(snaps) >= 6, len(snaps)
	last = snaps[-1]
	assert last["lines"] == lines, (last["lines"], lines)
	rows = {r["src"]: r["total"] for r in last["answer"]}
	assert rows["203.0.113.7"] == watched, rows
	PY
'

expect_success 'two load balancers at once (--sources): each its own rows' '
	printf "%s\n" "lb1.log lb=lb1" "lb2.log lb=lb2" > lbs.txt &&
	{ lbt-rate --by lb --follow --interval 500ms --sources lbs.txt > snaps 2> err & }
	pid=$!
	{ python3 writer.py lb1.log 3 60 9 > counts1 & }
	w1=$!
	python3 writer.py lb2.log 3 40 9 > counts2 && wait $w1 &&
	sleep 1.5 && kill -INT $pid && wait $pid &&
	read l1 x y < counts1 && read l2 x y < counts2 &&
	python3 - "$l1" "$l2" snaps <<-PY
	import json, sys
	l1, l2 = int(sys.argv[1]), int(sys.argv[2])
	last = [json.loads(l) for l in open(sys.argv[3])][-1]
	assert last["lines"] == l1 + l2, (last["lines"], l1 + l2)
	rows = {r["lb"]: r["total"] for r in last["answer"]}
	assert rows == {"lb1": l1, "lb2": l2, "(total)": l1 + l2}, rows
	PY
'

expect_failure 1 '--follow does not read an index' '
	lbt-rate --follow --db none.db
'

expect_failure 1 '--watch, --window, --interval need --follow' '
	lbt-rate --watch 203.0.113.0/24 grow.log
'

test_done
