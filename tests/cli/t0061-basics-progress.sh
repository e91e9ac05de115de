#!/bin/sh
# The progress line: on stderr when it is a terminal (tmux) and the reading
# lasts over a second, "NAME: MB, lines, lines/s[, ETA]", erased before
# the answer; never when stderr is a pipe.  The input is a FIFO that a
# bounded writer fills slowly (3,000 lines over about 3 s).
. "$LBT_TOP/tests/cli/lib.sh"

# slow.py FIFO: 3,000 httplog lines, 50 every 50 ms.
cat > slow.py <<'PY'
import sys, time
f = open(sys.argv[1], 'w')
for i in range(3000):
    stamp = time.strftime('%d/%b/%Y:%H:%M:%S', time.gmtime(time.time())) + '.000'
    f.write('198.51.100.%d:40000 [%s] fe_http be_app/app1 0/0/0/1/1 200 125 - - ---- '
            '1/1/0/0/0 0/0 "GET /ping/a HTTP/1.1"\n' % (i % 50 + 1, stamp))
    if i % 50 == 49:
        f.flush()
        time.sleep(0.05)
PY

# wait_for FILE: up to 10 s for FILE to exist (a bounded loop).
wait_for() {
	i=0
	while [ ! -s "$1" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	[ -s "$1" ]
}

test_have tmux || missing tmux
sock=lbtp$$
expect_success 'a terminal: the progress line while a slow FIFO is read, gone at the end' '
	mkfifo slow &&
	tmux -L $sock new-session -d -x 80 -y 20 \
	    "lbt-rate --by src slow > out; echo rc=\$? > rc; sleep 10" &&
	{ python3 slow.py slow & }
	wpid=$!
	sleep 2.2 && tmux -L $sock capture-pane -p > during &&
	wait $wpid && wait_for rc && tmux -L $sock capture-pane -p > after &&
	tmux -L $sock kill-server &&
	echo rc=0 > want && test_cmp want rc &&
	cat during &&
	grep -E "^lbt-rate: 0 MB, [0-9]+ lines, [0-9]+ lines/s\$" during > line &&
	n=$(sed "s/.* MB, \([0-9]*\) lines.*/\1/" line) &&
	test "$n" -gt 0 && test "$n" -lt 3000 &&
	! grep "lines/s" after
'
tmux -L $sock kill-server 2>/dev/null

expect_success 'stderr a pipe: no progress line' '
	mkfifo slow2 errpipe &&
	{ cat errpipe > err & }
	cpid=$!
	{ python3 slow.py slow2 & }
	lbt-rate --by src slow2 > out 2> errpipe &&
	wait $cpid &&
	! grep "lines/s" err &&
	test "$(awk -F "	" "NR == 2 { print \$2 }" out)" -eq $((3000 / 50))
'

test_done
