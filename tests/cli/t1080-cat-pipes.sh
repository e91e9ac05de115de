#!/bin/sh
# Inputs that are not regular files (a FIFO, a process substitution, a
# pipe on stdin, tail -f) are read once, from their first byte, as their
# lines come: every program gives the totals of every line, never hangs
# on a second open, and lbt-cat prints each record as it is read
# (docs/inputs.md, "Streams").
. "$LBT_TOP/tests/cli/lib.sh"

sh "$TOP/bench/genlog.sh" 3000 > in.log || missing "bench/genlog.sh"
# Expected counts, from the lines themselves: every line is a request of
# a ping UUID.
lines=$(wc -l < in.log)
pings=$(awk '/"GET \/(ping\/)?[0-9a-f]{8}-[0-9a-f-]+ HTTP/ { n++ } END { print n + 0 }' in.log)
[ "$lines" -eq 3000 ] && [ "$pings" -eq 3000 ] || missing "3000 ping lines"

# Write in.log in three chunks with a pause between them (bounded: 3
# chunks, 0.4 s each): the reader sees a slow writer, and the first
# chunk is not the whole sample detection would like.
cat > slow.sh <<'EOF'
sed -n '1,7p' in.log; sleep 0.4
sed -n '8,1500p' in.log; sleep 0.4
sed -n '1501,$p' in.log
EOF
slow() { sh slow.sh; }

# Run a program under test on a fresh FIFO fed by slow(): at most 60 s,
# a hang is exit 124 (timeout).  The status goes to rc.
on_fifo() {
	rm -f f && mkfifo f || return 1
	(slow > f) &
	timeout 60 "$@" f > out 2> err
	echo $? > rc
	wait
}

# The sum of the totals column of lbt-rate --tsv output.
rate_total() { awk -F'\t' 'NR > 1 { s += $2 } END { print s + 0 }' "$1"; }

expect_success 'lbt-cat on a FIFO fed slowly prints every record' '
	on_fifo lbt-cat -f client,status &&
	test "$(cat rc)" = 0 &&
	test "$(($(wc -l < out) - 1))" -eq "$lines"
'

expect_success 'lbt-rate on a FIFO fed slowly counts every request' '
	on_fifo lbt-rate --tsv --top 0 &&
	test "$(cat rc)" = 0 &&
	test "$(rate_total out)" -eq "$pings" &&
	! grep -q malformed err
'

expect_success 'lbt-triage on a FIFO fed slowly returns, with every line' '
	on_fifo lbt-triage &&
	test "$(cat rc)" -ne 124 && test "$(cat rc)" -lt 86 &&
	grep -q " $lines lines, $pings requests" out
'

expect_success 'lbt-index on a FIFO fed slowly returns, every line stored' '
	on_fifo lbt-index -d f.db &&
	test "$(cat rc)" = 0 &&
	lbt-cat --db f.db -f client > rows &&
	test "$(($(wc -l < rows) - 1))" -eq "$lines"
'

if test_have bash; then
	expect_success 'lbt-rate on <(slow writer) counts every request' '
		bash -c "timeout 60 lbt-rate --tsv --top 0 <(sh slow.sh) > out 2> err; echo \$? > rc" &&
		test "$(cat rc)" = 0 &&
		test "$(rate_total out)" -eq "$pings"
	'
	expect_success 'lbt-cat on <(slow writer) keeps the first lines' '
		bash -c "timeout 60 lbt-cat -f port,status <(sh slow.sh) > out 2> err; echo \$? > rc" &&
		test "$(cat rc)" = 0 &&
		awk "NR > 1" out > got &&
		awk "{ n = split(\$1, a, \":\"); print a[n] \"\t\" \$6 }" in.log > want &&
		test_cmp want got
	'
else
	skip 'no bash for a process substitution' 'lbt-rate on <(slow writer)'
fi

expect_success 'a pipe on stdin fed slowly: every record, status 0' '
	slow | timeout 60 lbt-rate --tsv --top 0 > out 2> err; test $? -eq 0 &&
	test "$(rate_total out)" -eq "$pings"
'

# tail -f never ends: the first record must come out while it runs.  The
# waits are bounded (10 s each, polled every tenth of a second); the writer
# is stopped by the timeouts around it.
lines_of() { if [ -f "$1" ]; then wc -l < "$1" | tr -d " "; else echo 0; fi; }
wait_lines() {     # FILE N: tenths of a second until FILE has N lines, at most 100
	n=0
	while [ "$n" -lt 100 ] && [ "$(lines_of "$1")" -lt "$2" ]; do
		sleep 0.1; n=$((n + 1))
	done
	echo "$n"
}
expect_success 'tail -f | lbt-cat prints the first records within seconds' '
	head -3 in.log > grow.log &&
	{ timeout 25 tail -f grow.log | timeout 25 lbt-cat -f client,status 2> err | cat > got; } &
	i=$(wait_lines got 4)
	sed -n 4p in.log >> grow.log
	j=$(wait_lines got 5)
	cp got seen; echo "waited $i, then $j tenths of a second"
	test "$i" -lt 100 && test "$j" -lt 100 &&
	printf "client\tstatus\n" > want &&
	awk "NR <= 4 { sub(/:[0-9]+$/, \"\", \$1); print \$1 \"\t\" \$6 }" in.log >> want &&
	head -5 seen > first5 && test_cmp want first5
'
kill_tail() { pkill -f "tail -f grow.log" 2>/dev/null; wait; }
kill_tail

test_done
