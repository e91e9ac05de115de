#!/bin/sh
# --log-tz on several threads: the zone is read once before the parse
# (its zoneinfo file into a table of transitions), so the threads share it
# read only; no TZ, no tzset (make tsan runs this script under
# ThreadSanitizer, which reported three races on setenv and tzset before).
# The times across Europe/Paris's change of 2025-03-30 (02:00 CET becomes
# 03:00 CEST, 01:00 UTC) are those worked out by hand: local minus 1 h
# before, minus 2 h after; the same output on 1, 2 and 3 threads.
. "$(dirname "$0")/lib.sh"

# one request a minute from 2025-03-01 00:00 local, 40000 minutes (27.8
# days: the change on day 30 is not reached, the hours are many)
awk 'BEGIN { for (l = 0; l < 40000; l++) { s = l * 60; d = 1 + int(s / 86400); r = s % 86400
	printf "192.0.2.%d:4000 [%02d/Mar/2025:%02d:%02d:%02d.000] fe be/s1 0/0/0/1/1 200 10 - - ---- 1/1/0/0/0 0/0 \"GET /k%d HTTP/1.1\"\n", 1 + l % 250, d, int(r / 3600), int(r % 3600 / 60), r % 60, l % 7 } }' > paris.log
# around the change: 01:59 CET, 03:00 and 03:01 CEST, 2 minutes of wall time
for t in 30/Mar/2025:01:59:00 30/Mar/2025:03:00:00 30/Mar/2025:03:01:00; do
	echo "192.0.2.9:4000 [$t.000] fe be/s1 0/0/0/1/1 200 10 - - ---- 1/1/0/0/0 0/0 \"GET /k HTTP/1.1\""
done > change.log

same() {
	p=$1; shift
	for t in 1 2 3; do
		lbt-$p --threads $t --log-tz Europe/Paris --tsv "$@" > out.$t 2> err.$t
		echo $? > rc.$t
	done
	cmp out.1 out.2 && cmp out.1 out.3 && cmp err.1 err.2 && cmp err.1 err.3 &&
	cmp rc.1 rc.2 && cmp rc.1 rc.3 && test -s out.1 && test "$(cat rc.1)" = 0
}

expect_success 'lbt-rate and lbt-cat --log-tz Europe/Paris: same on 1, 2, 3 threads' '
	same rate --by path paris.log && same cat paris.log && test "$(wc -l < out.1)" = 40001
'

expect_success 'the first line: 2025-03-01 00:00 CET is 2025-02-28 23:00 UTC' '
	lbt-cat --threads 2 --log-tz Europe/Paris --tsv paris.log > out &&
	sed -n 2p out | grep -q "2025-02-28T23:00:00.000Z"
'

expect_success 'across the change: 00:59, 01:00 and 01:01 UTC' '
	lbt-cat --log-tz Europe/Paris --tsv change.log > out &&
	tail -n +2 out | grep -o "2025-03-30T[0-9:.]*Z" > got &&
	printf "2025-03-30T00:59:00.000Z\n2025-03-30T01:00:00.000Z\n2025-03-30T01:01:00.000Z\n" > want &&
	test_cmp want got
'
test_done
