#!/bin/sh
# lbt-triage --follow: growing logs followed as tail -F does (rotation,
# truncation, a file that appears later), the screen redrawn in a
# terminal (tmux, 80x40), a watched network's answers before and after
# they turned to 429, NDJSON snapshots without a terminal, SIGINT/SIGTERM
# a clean exit 0, memory bounded over a run.  The expected counts are the
# writer's (below), never the program's.
. "$LBT_TOP/tests/cli/lib.sh"

# The writer: tests/cli/follow-writer.py (its counts are its own).
cp "$TOP/tests/cli/follow-writer.py" writer.py

# wait_for FILE: up to 10 s for FILE to exist (a bounded loop).
wait_for() {
	i=0
	while [ ! -s "$1" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	[ -s "$1" ]
}

# wait_said FILE TEXT: up to 10 s for FILE to hold TEXT (a bounded loop):
# the follower has said it waits before the writer makes the file.
wait_said() {
	i=0
	while ! grep -q "$2" "$1" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	grep -q "$2" "$1"
}

expect_success 'without a terminal: one valid JSON snapshot a line, the writer'"'"'s counts' '
	{ lbt-triage --follow --watch 203.0.113.0/24 --window 1m follow.log \
	    > snaps 2> err & }
	pid=$!
	wait_said err "follow.log: No such file or directory: waiting for it" &&
	python3 writer.py follow.log 8 100 4 rotate@2,truncate@6 > counts &&
	sleep 2 && kill -TERM $pid && wait $pid && echo rc=$? > rc &&
	echo rc=0 > want && test_cmp want rc &&
	read lines w200 w429 < counts &&
	python3 - "$lines" "$w200" "$w429" snaps <<-PY
	import json, sys
	lines, w200, w429 = map(int, sys.argv[1:4])
	snaps = [json.loads(l) for l in open(sys.argv[4])]
	assert len(snaps) >= 7, len(snaps)
	last = snaps[-1]
	assert last["lines"] == lines, (last["lines"], lines)
	w = last["watch"][0]
	assert w["net"] == "203.0.113.0/24", w
	assert w["before"] == {"requests": w200, "429": 0, "backend": w200}, w
	assert w["after"] == {"requests": w429, "429": w429, "backend": 0}, w
	assert w["mark"] is not None
	assert last["answer"]["verdict"] in ("ongoing", "over"), last["answer"]["verdict"]
	assert snaps[0]["lines"] < lines
	PY
	grep "follow.log: rotated (a new file under its name): read from its start" err &&
	grep "follow.log: truncated to .* read again from its start" err &&
	grep "follow.log: No such file or directory: waiting for it" err &&
	grep "follow.log: appeared: read from its start" err
'

expect_success 'no --watch: the networks of the rule proposed are watched, window recounted' '
	{ lbt-triage --follow rule.log > snaps 2> err & }
	pid=$!
	python3 writer.py rule.log 8 100 4 > counts &&
	sleep 1.5 && kill -TERM $pid && wait $pid &&
	read lines w200 w429 < counts &&
	python3 - "$w200" "$w429" snaps <<-PY
	import json, sys
	w200, w429 = int(sys.argv[1]), int(sys.argv[2])
	last = [json.loads(l) for l in open(sys.argv[3])][-1]
	assert last["answer"]["rule"]["networks"] == ["203.0.113.7"], last["answer"]["rule"]
	w = last["watch"]
	assert [x["net"] for x in w] == ["203.0.113.7"], w
	assert w[0]["before"] == {"requests": w200, "429": 0, "backend": w200}, w
	assert w[0]["after"] == {"requests": w429, "429": w429, "backend": 0}, w
	PY
'

expect_success 'stdin followed: its end ends the run, exit 0' '
	python3 writer.py piped.log 2 50 9 > counts &&
	read lines w200 w429 < counts &&
	lbt-triage --follow --interval 200ms < piped.log > snaps 2> err &&
	python3 -c "
import json, sys
s = [json.loads(l) for l in open(\"snaps\")]
assert s[-1][\"lines\"] == $lines, s[-1][\"lines\"]
assert s[-1][\"window_records\"] == $lines
"
'

if ! test_have tmux; then
	missing tmux
fi
sock=lbtf$$
expect_success 'in a terminal (tmux 80x40): redrawn, rotation read, the turn to 429 shown' '
	tmux -L $sock new-session -d -x 80 -y 40 \
	    "lbt-triage --follow --watch 203.0.113.0/24 --window 1m follow2.log 2> err2; echo rc=\$? > rc2" &&
	{ python3 writer.py follow2.log 8 200 4 rotate@2,truncate@6 > counts & }
	wpid=$!
	sleep 4 && tmux -L $sock capture-pane -p -J > cap1 &&
	wait $wpid && sleep 2 && tmux -L $sock capture-pane -p -J > cap2 &&
	tmux -L $sock send-keys C-c && wait_for rc2 &&
	read lines w200 w429 < counts &&
	echo rc=0 > want && test_cmp want rc2 &&
	! cmp -s cap1 cap2 &&
	grep "^$lines lines, 0 malformed, $lines requests ($lines in the window)\$" cap2 &&
	! grep "^$lines lines," cap1 &&
	grep "^lbt-triage --follow: 1 input, window 1m00s" cap1 &&
	grep -E "^203\.0\.113\.0/24 +before +$w200 +0\.0% +$w200\$" cap2 &&
	grep -E "^ +after +$w429 +100\.0% +0  since " cap2 &&
	grep "note: follow2.log: rotated (a new file under its name)" cap2 &&
	grep "note: follow2.log: truncated to" cap2 &&
	awk "length > 80 { print FILENAME \": \" length \": \" \$0; bad = 1 } END { exit bad }" cap1 cap2
'
tmux -L $sock kill-server 2>/dev/null

expect_success 'memory bounded: 1,000 lines/s for 60 s, RSS sampled from /proc' '
	{ ASAN_OPTIONS=$ASAN_OPTIONS:quarantine_size_mb=0:malloc_context_size=0 \
	    lbt-triage --follow --window 10s long.log > snaps 2> err & }
	pid=$!
	{ python3 writer.py long.log 60 1000 1000 > counts & }
	wpid=$!
	i=0 && : > rss &&
	while [ $i -lt 12 ]; do
		sleep 5; awk "/^VmRSS/ { print \$2 }" /proc/$pid/status >> rss; i=$((i + 1))
	done &&
	wait $wpid && sleep 2 && kill -TERM $pid && wait $pid &&
	cat rss &&
	first=$(sed -n 3p rss) && last=$(tail -1 rss) &&
	test "$last" -lt $((2 * first + 8192)) &&
	read lines w200 w429 < counts &&
	python3 -c "
import json
s = [json.loads(l) for l in open(\"snaps\")]
assert s[-1][\"lines\"] == $lines, (s[-1][\"lines\"], $lines)
assert max(x[\"window_records\"] for x in s) <= 11 * 1000, max(x[\"window_records\"] for x in s)
"
'

test_done
