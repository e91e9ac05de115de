#!/bin/sh
# lbt-index: load, idempotence, growth, rotated copies, stdin, views, errors.
. "$(dirname "$0")/lib.sh"

gen() { sh "$TOP/bench/genlog.sh" "$@"; }
count() { sqlite3 t.db "SELECT count(*) FROM requests"; }

expect_success 'index a log: one row per line' '
	gen 2000 > a.log &&
	lbt-index -q -d t.db a.log &&
	test "$(count)" = 2000 &&
	test "$(sqlite3 t.db "PRAGMA user_version")" = 5 &&
	test "$(sqlite3 t.db "SELECT lines FROM files")" = 2000
'

expect_success 'the summary counts files, lines, records' '
	rm -f t.db && lbt-index -d t.db a.log 2> err &&
	grep "^lbt-index: 1 file (0 already indexed), 2000 lines, 2000 records, 0 events, 0 malformed, " err
'

expect_success 'indexing the same file again adds nothing' '
	lbt-index -d t.db a.log 2> err &&
	test "$(count)" = 2000 &&
	grep "1 file (1 already indexed), 0 lines, 0 records" err
'

expect_success 'a grown file adds only its new lines' '
	gen 150 7 >> a.log &&
	lbt-index -q -d t.db a.log &&
	test "$(count)" = 2150 &&
	test "$(sqlite3 t.db "SELECT min(line), max(line) FROM requests WHERE id > 2000")" = "2001|2150"
'

expect_success 'a grown file keeps the format it was first read with' '
	test "$(sqlite3 t.db "SELECT format FROM files")" = haproxy-httplog &&
	echo "garbage" >> a.log && gen 1 11 >> a.log &&
	test_expect_code 3 lbt-index -d t.db a.log 2> err &&
	grep "2 lines, 1 records, 0 events, 1 malformed" err &&
	grep -q "^lbt-index: a.log: 1 of its 2 lines (50.0 %) could not be read" err &&
	! grep "format detected" err &&
	test "$(count)" = 2151
'

expect_success 'rotated copies (renamed, gzip, zstd) are not counted twice' '
	cp a.log a.log.1 && gzip -k a.log.1 && zstd -q a.log.1 -o a.log.1.zst &&
	lbt-index -q -d t.db a.log.1 a.log.1.gz a.log.1.zst &&
	test "$(count)" = 2151 &&
	test "$(sqlite3 t.db "SELECT count(*) FROM files WHERE copy_of = 1")" = 3
'

expect_success 'a rotated copy that grew before rotation adds its tail' '
	cp a.log b.log && gen 10 9 >> b.log && gzip b.log &&
	lbt-index -q -d t.db b.log.gz &&
	test "$(count)" = 2161 &&
	test "$(sqlite3 t.db "SELECT count(*) FROM requests_v WHERE file = '"'"'b.log.gz'"'"'")" = 10
'

expect_success 'standard input with --name, resumed by name' '
	gen 300 3 > c.log &&
	lbt-index -q -d s.db --name c.log - < c.log &&
	lbt-index -q -d s.db --name c.log - < c.log &&
	test "$(sqlite3 s.db "SELECT count(*), min(file), max(file) FROM requests_v")" = "300|c.log|c.log"
'

expect_success 'standard input without --name: the same lines twice are stored once' '
	lbt-index -q -d n.db - < c.log && lbt-index -q -d n.db - < c.log &&
	test "$(sqlite3 n.db "SELECT count(*), count(DISTINCT file_id) FROM requests")" = "300|1" &&
	test "$(sqlite3 n.db "SELECT DISTINCT path FROM files")" = "(stdin)"
'

expect_success 'the views show names, addresses and times as text' '
	sqlite3 t.db "SELECT time, client, net, key, status FROM requests_v WHERE line = 1 AND file = '"'"'a.log'"'"'" > got &&
	head -n 1 a.log > line1 &&
	client=$(sed "s/:[0-9]* .*//" line1) &&
	grep -F "2025-11-01T22:24:01.000Z|$client|" got
'

expect_success '--lb-name names the load balancer of files without a syslog host' '
	lbt-index -q -d l.db --lb-name edge-7 c.log &&
	test "$(sqlite3 l.db "SELECT DISTINCT lb FROM requests_v")" = edge-7
'

expect_success 'an unreadable file is reported, the others are indexed' '
	test_expect_code 1 lbt-index -q -d u.db nope.log c.log 2> err &&
	grep "^lbt-index: nope.log: " err &&
	test "$(sqlite3 u.db "SELECT count(*) FROM requests")" = 300
'

expect_success 'a database that is not an index is refused' '
	sqlite3 other.db "CREATE TABLE x (y)" &&
	test_expect_code 1 lbt-index -q -d other.db c.log 2> err &&
	grep "^lbt-index: other.db: not an lbt index" err
'

expect_success '--help prints the synopsis; a bad option is a usage error' '
	lbt-index --help > out && grep -- "--keep-raw" out &&
	test_expect_code 1 lbt-index --batch 0 c.log 2> err && grep "batch" err &&
	test_expect_code 1 lbt-index --name x c.log 2> err && grep -- "--name applies to standard input" err
'

expect_success '--keep-raw keeps every line, with a trained dictionary' '
	lbt-index -q --keep-raw -d r.db a.log &&
	test "$(sqlite3 r.db "SELECT count(*) FROM raw")" = 2151 &&
	test "$(sqlite3 r.db "SELECT count(*) FROM raw_dicts")" = 1
'

# lbt-tsv rows without a time: stored first in their run (a NULL time
# sorts first), in line order, then the timed ones by time: by hand,
# lines 3 and 5 (no time), then 4 (23:24:00) and 2 (23:24:01).
expect_success 'records without a time come first, then by time, from the index' '
	printf "time\tclient\tpath\tstatus\n" > u.tsv &&
	printf "2025-11-01T23:24:01.000Z\t192.0.2.1\t/a\t200\n" >> u.tsv &&
	printf "\t192.0.2.2\t/b\t404\n" >> u.tsv &&
	printf "2025-11-01T23:24:00.000Z\t192.0.2.3\t/c\t200\n" >> u.tsv &&
	printf "\t192.0.2.4\t/d\t500\n" >> u.tsv &&
	lbt-index -q -d tsv.db --format lbt-tsv u.tsv &&
	lbt-cat --db tsv.db --no-header --fields line,path > got &&
	printf "3\t/b\n5\t/d\n4\t/c\n2\t/a\n" > want &&
	test_cmp want got &&
	test "$(sqlite3 tsv.db "SELECT untimed, min_time < max_time FROM runs")" = "2|1" &&
	lbt-cat --db tsv.db --no-header --fields line --since 2025-11-01T23:24:00.500Z > got &&
	echo 2 > want && test_cmp want got
'

# The same requests through two syslog wrappers (rfc3164 and rfc5424 sinks
# of one lab frontend): different bytes, the same records.
expect_success 'the same requests under another wrapper are not stored twice' '
	a="$DATA/real/haproxy-httplog-rfc3164.log" b="$DATA/real/haproxy-httplog-rfc5424.log" &&
	n=$(lbt-cat --tsv --no-header --fields time "$a" | wc -l) &&
	test "$n" -gt 0 &&
	test_expect_code 0 lbt-index -d w.db "$a" 2>err1 &&
	test "$(sqlite3 w.db "SELECT count(*) FROM requests")" = "$n" &&
	test_expect_code 0 lbt-index -d w.db "$b" 2>err2 &&
	grep "^lbt-index: $b: holds the requests of '\''$a'\'', indexed already" err2 &&
	grep "1 left out as a duplicate" err2 &&
	test "$(sqlite3 w.db "SELECT count(*) FROM requests")" = "$n" &&
	test "$(sqlite3 w.db "SELECT count(*) FROM files")" = 1 &&
	test_expect_code 0 lbt-index -q -d w.db c.log &&
	test "$(sqlite3 w.db "SELECT count(*) FROM files")" = 2
'

test_done
