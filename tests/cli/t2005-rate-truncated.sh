#!/bin/sh
# A log truncated in place while it is read (logrotate copytruncate) gives
# a partial answer: it must say so, with the sizes, and exit 1 (an input
# that broke midway, docs/exit-status.md), not print a partial count with
# status 0.
. "$LBT_TOP/tests/cli/lib.sh"

sh "$TOP/bench/genlog.sh" 3000 > one.log || missing "bench/genlog.sh"
i=0; while [ "$i" -lt 60 ]; do cat one.log; i=$((i + 1)); done > big.log
size=$(wc -c < big.log)
[ "$size" -gt 30000000 ] || missing "a log of 30 MB"

# Start lbt-rate on a copy of big.log, stop it (SIGSTOP) once it holds the
# file open and has read only part of it, truncate the file to 1 MB, let it
# go on.  The stop makes the truncation fall between open and end whatever
# the machine's speed (--tier all: no look at the file's first lines
# before it is read, so the one descriptor open is the reader's); an
# attempt where the read had ended already is retried (5 at most).  Leaves rate.out, rate.err, rc; "caught" on success.
truncate_while_read() {
	attempt=0
	while [ "$attempt" -lt 5 ]; do
		attempt=$((attempt + 1))
		cp big.log t.log
		lbt-rate --threads 1 --tier all --tsv --top 0 t.log > rate.out 2> rate.err &
		pid=$!
		k=0 caught=
		while [ "$k" -lt 2000 ] && kill -0 "$pid" 2>/dev/null; do
			fd=$(ls -l /proc/$pid/fd 2>/dev/null | awk '/t\.log$/ { print $9; exit }')
			if [ -n "$fd" ] && kill -STOP "$pid" 2>/dev/null; then
				pos=$(awk '/^pos:/ { print $2 }' /proc/$pid/fdinfo/$fd 2>/dev/null)
				if [ -n "$pos" ] && [ "$pos" -lt "$size" ]; then
					truncate -s 1000000 t.log && caught=1
				fi
				kill -CONT "$pid"
				break
			fi
			k=$((k + 1))
		done
		wait "$pid"; echo $? > rc
		echo "attempt $attempt: status $(cat rc), truncated: ${caught:-no}"
		[ -n "$caught" ] && return 0
	done
	return 1
}

expect_success 'a file truncated while read: the error names its sizes, exit 1' '
	truncate_while_read &&
	test "$(cat rc)" = 1 &&
	grep "t.log: shrank while read: $size bytes at open, 1000000 now" rate.err &&
	grep -q "1 of 1 file failed" rate.err
'

expect_success 'the same file whole: exit 0, every request counted' '
	lbt-rate --threads 1 --tsv --top 0 big.log > out 2> err &&
	awk -F"\t" "NR > 1 { s += \$2 } END { print s }" out > got &&
	wc -l < big.log | tr -d " " > want && test_cmp want got &&
	! grep -q shrank err
'

test_done
