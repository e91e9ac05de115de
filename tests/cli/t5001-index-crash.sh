#!/bin/sh
# lbt-index killed with SIGKILL at random points, then run to the end, has
# exactly the rows of one clean run.
. "$(dirname "$0")/lib.sh"

rows() {        # every row as text, whatever the ids: a checksum of the index
	sqlite3 "$1" "SELECT time, file, line, lb, client, net, port, frontend, backend,
	    server, method, path, query, host, version, status, bytes, tr, tw, tc, tresp, ta,
	    term, ac, fc, bc, sc, rc, sq, bq, ua, key FROM requests_v ORDER BY file, line" |
	    md5sum
}

# The status of a run killed with SIGKILL (137), or that ended before the
# kill (0); anything else (an error, another signal, a sanitizer's 86) fails.
killed_or_done() {
	case $1 in
	0 | 137) return 0 ;;
	*) echo "lbt-index exited $1, neither killed (137) nor done (0)"; return 1 ;;
	esac
}

expect_success 'a clean run of a 200000-line log' '
	sh "$TOP/bench/genlog.sh" 200000 > big.log &&
	lbt-index -q -d clean.db big.log &&
	test "$(sqlite3 clean.db "SELECT count(*) FROM requests")" = 200000 &&
	rows clean.db > clean.sum
'

expect_success 'killed 6 times at random points, then finished: the same rows' '
	: > partial &&
	for i in 1 2 3 4 5 6; do
		delay=$(awk -v s="$$$i" "BEGIN { srand(s); printf \"%.2f\", 0.02 + rand() * 0.3 }") &&
		{ lbt-index -q --batch 3000 -d crash.db big.log & pid=$!; } &&
		sleep "$delay" && kill -9 "$pid" 2> /dev/null; wait "$pid" 2> /dev/null
		killed_or_done $? || exit 1
		sqlite3 crash.db "SELECT count(*) FROM requests" >> partial 2> /dev/null || echo 0 >> partial
	done &&
	echo "rows after each kill: $(cat partial | tr "\n" " ")" &&
	lbt-index -q --batch 3000 -d crash.db big.log &&
	test "$(sqlite3 crash.db "SELECT count(*) FROM requests")" = 200000 &&
	test "$(sqlite3 crash.db "SELECT lines FROM files")" = 200000 &&
	rows crash.db > crash.sum &&
	test_cmp clean.sum crash.sum
'

expect_success 'a kill during a rerun on a grown file loses nothing either' '
	sh "$TOP/bench/genlog.sh" 50000 5 >> big.log &&
	{ lbt-index -q --batch 1000 -d crash.db big.log & pid=$!; } &&
	sleep 0.1 && kill -9 "$pid" 2> /dev/null; wait "$pid" 2> /dev/null
	killed_or_done $? &&
	lbt-index -q -d crash.db big.log &&
	lbt-index -q -d clean.db big.log &&
	test "$(sqlite3 crash.db "SELECT count(*) FROM requests")" = 250000 &&
	rows clean.db > clean.sum && rows crash.db > crash.sum &&
	test_cmp clean.sum crash.sum
'

# Wait until the writer $2 holds its flock(2) on the index $1 (never on
# time alone: a loaded machine may take seconds to start it), at most 60 s.
wait_locked() {
	_i=0
	while [ $_i -lt 600 ] && kill -0 "$2" 2>/dev/null; do
		[ -e "$1" ] && ! flock -n "$1" true 2>/dev/null && return 0
		sleep 0.1
		_i=$((_i + 1))
	done
	echo "wait_locked: $2 never held the lock on $1" >&2
	return 1
}

expect_success 'a second writer on the same index is refused while the first runs' '
	rm -f two.db* &&
	{ lbt-index -q -d two.db big.log & pid=$!; } &&
	wait_locked two.db "$pid" &&
	test_expect_code 1 lbt-index -q -d two.db big.log 2> err &&
	wait "$pid" &&
	grep "another lbt-index is writing this index" err &&
	test "$(sqlite3 two.db "SELECT count(*) FROM requests")" = 250000
'

test_done
