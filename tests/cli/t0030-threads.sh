#!/bin/sh
# --threads: the same output on 1, 2 and 3 threads (more than the cores of
# this machine), byte for byte, evidence file:line included.  A plain file
# is cut at line starts into one part per thread (parts of 64 KiB at
# least; the incident capture, ~800 KB, is cut too, past its first 1000
# lines read for detection); compressed input and stdin are decoded ahead
# on a thread of their own.  That the files really are cut is checked by
# tests/unit/check_par.c (its counter of parts).
. "$(dirname "$0")/lib.sh"

for f in haproxy-httplog haproxy-httplog-rfc3164 nginx-combined; do
	zstd -qdc "$DATA/incident/$f.log.zst" > $f.log
done
sh "$TOP/bench/genlog.sh" 60000 > gen.log
cp "$DATA/incident/haproxy-httplog.log.zst" incident.zst

# Run lbt-PROG on 1, 2 and 3 threads; stdout and stderr must be the same.
same() {
	p=$1; shift
	for t in 1 2 3; do
		lbt-$p --threads $t "$@" > out.$t 2> err.$t
		echo $? > rc.$t
	done
	cmp out.1 out.2 && cmp out.1 out.3 && cmp err.1 err.2 && cmp err.1 err.3 &&
	cmp rc.1 rc.2 && cmp rc.1 rc.3 && test -s out.1
}

for f in haproxy-httplog.log haproxy-httplog-rfc3164.log nginx-combined.log gen.log; do
	for p in rate tarpit timeline; do
		expect_success "lbt-$p $f: same on 1, 2, 3 threads" "same $p --tsv $f"
	done
	expect_success "lbt-cat $f: same on 1, 2, 3 threads" "same cat --json $f"
done
# The offenders' top_keys counts past LBT_OFF_TOPK keys a source are
# order-dependent: their files are read whole (docs/threads.md).
for f in haproxy-httplog.log nginx-combined.log gen.log incident.zst; do
	expect_success "lbt-offenders $f: same on 1, 2, 3 threads" "same offenders --tsv $f"
done
# lbt-triage runs four analyses at once, lbt-audit those of a haproxy.cfg
# (their statuses say what they found: the same on every thread count).
expect_success 'lbt-triage and lbt-audit: same on 1, 2, 3 threads' '
	same triage haproxy-httplog.log && test "$(cat rc.1)" = 4 &&
	same triage gen.log &&
	same audit "$DATA/incident/haproxy-tarpit.cfg" haproxy-httplog.log
'
expect_success 'several files, every part merged in file order' '
	same rate --tsv haproxy-httplog.log gen.log haproxy-httplog-rfc3164.log
'
expect_success '--since late in the file: the same' '
	same rate --tsv --since 2025-11-01T22:25:30Z gen.log
'
expect_success 'a file smaller than two parts is read whole, the same' '
	head -n 100 haproxy-httplog.log > small.log && same tarpit --tsv small.log
'
expect_success '.zst and stdin: decoded ahead, the same as the plain file' '
	same rate --tsv incident.zst && cp out.1 z.out &&
	lbt-rate --threads 1 --tsv haproxy-httplog.log > p.out && cmp z.out p.out &&
	zstd -qdc incident.zst | lbt-rate --threads 2 --tsv > s.out && cmp p.out s.out &&
	cat gen.log | lbt-cat --threads 1 --tsv > s1.out &&
	cat gen.log | lbt-cat --threads 2 --tsv > s2.out && cmp s1.out s2.out &&
	test "$(wc -l < s1.out)" = 60001
'

# Malformed lines in every part: the first five reported, in file order,
# with their true line numbers (awk counts them), and the summary.
awk 'NR % 9000 == 7 { print "garbage line" } { print }' gen.log > mal.log
expect_success 'malformed lines: file:line and order kept' '
	same rate --tsv mal.log &&
	awk "/^garbage/ { print NR }" mal.log | head -n 5 > want.lines &&
	grep -c "^lbt-rate: mal.log:[0-9]*: " err.1 > n && test "$(cat n)" = 5 &&
	sed -n "s/^lbt-rate: mal.log:\([0-9]*\): .*/\1/p" err.1 > got.lines &&
	cmp want.lines got.lines &&
	grep -qx "lbt-rate: 7 malformed lines of 60007 (first 5 shown above)" err.1
'
# The first part all malformed (junk longer than the requests after it,
# so the cut falls inside it): the part that read nothing does not make
# the file unread, the file is read in part (half its lines: exit 3, the
# file's counts, not a part's); statuses, counts and reports as on one
# thread.
awk 'NR <= 20000 { printf "junk %0250d\n", NR } NR > 100 && NR <= 20100 { print }' gen.log > junkfirst.log
expect_success 'a first part of malformed lines only: the same, exit 3, the file counted' '
	same rate --format haproxy-httplog --tsv junkfirst.log && test "$(cat rc.1)" = 3 &&
	grep -qx "lbt-rate: 20000 malformed lines of 40000 (first 5 shown above)" err.1 &&
	grep -q "^lbt-rate: junkfirst.log: 20000 of its 40000 lines (50.0 %) could not be read, the first at line 1: " err.1
'

# An event line without a stamp takes the time of the request line before
# it, also when that line is the last of the part before: put one right at
# the cut of two threads (the first line start at or after half the file,
# the event's bytes included).
awk -v ev="Server be_app/app2 is DOWN, reason: Layer4 connection problem, info: \"Connection refused\", check duration: 0ms. 1 active and 0 backup servers left. 0 sessions active, 0 requeued, 0 remaining in queue." '
	{ line[NR] = $0; size += length($0) + 1 }
	END {
		half = int((size + length(ev) + 1) / 2)
		for (i = 1; i <= NR; i++) {
			if (!put && off >= half) { print ev; put = 1 }
			print line[i]; off += length(line[i]) + 1
		}
	}' gen.log > ev.log
expect_success 'an event without a stamp at a cut: timed by the line before' '
	same timeline --tsv ev.log && grep -q "be_app/app2.*ev.log:" out.1 &&
	same cat --events --tsv ev.log
'

head -c 20000 incident.zst > trunc.zst
expect_success 'a truncated .zst: the same lines, the same error' '
	same rate --tsv trunc.zst && test "$(cat rc.1)" = 1 &&
	grep -q "^lbt-rate: trunc.zst: truncated zstd stream at byte 20000" err.1
'
expect_success '--threads is checked' '
	test_expect_code 1 lbt-rate --threads 0 gen.log 2> err &&
	grep -q "threads" err
'
test_done
