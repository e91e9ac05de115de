#!/bin/sh
# lbt-tarpit --follow: the summary of the window per frontend, one NDJSON
# snapshot a line without a terminal (its rows an array); SIGTERM a clean
# exit 0.  Counts are the writer's (tests/cli/follow-writer.py).
. "$LBT_TOP/tests/cli/lib.sh"
cp "$TOP/tests/cli/follow-writer.py" writer.py

expect_success 'the summary of the window: the writer'"'"'s requests, maxconn given' '
	{ lbt-tarpit --follow --maxconn 100 --interval 500ms grow.log > snaps 2> err & }
	pid=$!
	python3 writer.py grow.log 3 50 9 > counts &&
	sleep 1.5 && kill -TERM $pid && wait $pid &&
	read lines w200 w429 < counts &&
	python3 - "$lines" snaps <<-PY
	import json, sys
	lines = int(sys.argv[1])
	last = [json.loads(l) for l in open(sys.argv[2])][-1]
	rows = last["answer"]
	assert [r["frontend"] for r in rows] == ["fe_http"], rows
	assert rows[0]["requests"] == lines and rows[0]["tarpitted"] == 0, rows
	assert rows[0]["maxconn"] == 100, rows
	PY
'

expect_failure 1 '--window is the slot sweep'"'"'s, --interval needs --follow' '
	lbt-tarpit --interval 2s grow.log
'

test_done
