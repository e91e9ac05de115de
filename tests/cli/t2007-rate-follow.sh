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

expect_failure 1 '--follow does not read an index' '
	lbt-rate --follow --db none.db
'

test_done
