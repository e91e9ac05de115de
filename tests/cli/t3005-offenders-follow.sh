#!/bin/sh
# lbt-offenders --follow: only the records of the last --window count;
# one NDJSON snapshot a line without a terminal; SIGTERM a clean exit 0.
# Counts are the writer's (tests/cli/follow-writer.py).
. "$LBT_TOP/tests/cli/lib.sh"
cp "$TOP/tests/cli/follow-writer.py" writer.py

expect_success 'a 2 s window holds 2 s of the writer'"'"'s lines' '
	{ lbt-offenders --follow --window 2s --interval 500ms grow.log > snaps 2> err & }
	pid=$!
	python3 writer.py grow.log 6 100 9 > counts &&
	sleep 1 && kill -TERM $pid && wait $pid &&
	read lines w200 w429 < counts &&
	python3 - "$lines" snaps <<-PY
	import json, sys
	lines = int(sys.argv[1])
	snaps = [json.loads(l) for l in open(sys.argv[2])]
	last = snaps[-1]
	assert last["lines"] == lines, (last["lines"], lines)
	# 100 lines a second, a window of 2 s: the records of [newest - 2 s, newest]
	assert 200 <= last["window_records"] <= 201, last["window_records"]
	rows = {r["source"]: r["requests"] for r in last["answer"]}
	assert 100 <= rows["203.0.113.7"] <= 101, rows
	PY
'

test_done
