#!/bin/sh
# Every program gives the same output from the logs and from the index
# (--db), with and without filters.  The fixture is sorted by time: the
# index returns records in time order, a log in the order lines were written.
. "$(dirname "$0")/lib.sh"

# A log in time order: bench/genlog.sh lines, stably sorted on the date field.
expect_success 'index a time-ordered log' '
	sh "$TOP/bench/genlog.sh" 6000 > gen.log &&
	sort -s -t " " -k2,2 gen.log > a.log &&
	lbt-index -q -d t.db a.log
'

# Run "$@" on the log and on the index, compare the outputs.
both() {
	"$@" a.log > raw.out && "$@" --db t.db > db.out && test_cmp raw.out db.out &&
	test -s raw.out
}

# the flooded key: the most frequent one
flood=$(sed "s/.*GET \/\(ping\/\)\{0,1\}\([^ ]*\) .*/\2/" gen.log | sort | uniq -c |
	sort -rn | awk "NR == 1 { print \$2 }")

expect_success 'the flooded key has records from 203.0.113.7 with status 500' '
	test "$(grep -c "^203.0.113.7:.* 500 .*$flood" a.log)" -gt 100
'


for filter in "" "--key $flood" "--src 2001:db8:bad:1::/64" "--src 203.0.113.0/24" \
    "--status 5xx" "--term PT" "--since 2025-11-01T22:24:02Z --until 2025-11-01T22:24:03Z" \
    "--since 22:24:02" "--key $flood --src 203.0.113.7 --status 500"; do
	expect_success "lbt-cat $filter: same records from the log and the index" "
		both lbt-cat $filter
	"
	expect_success "lbt-cat --json $filter: same records" "
		both lbt-cat --json $filter
	"
done

for prog in lbt-rate lbt-offenders lbt-tarpit lbt-timeline; do
	command -v "$prog" > /dev/null 2>&1 || continue
	for filter in "" "--key $flood" "--src 2001:db8:bad:1::/64"; do
		expect_success "$prog $filter: same output from the log and the index" "
			both $prog --tsv $filter
		"
	done
done

# Two LBs over the same minutes, 40000 lines each: three runs a file, the
# runs of the two files interleaved in time, and within a second the lines
# out of time order (bench/genlog.sh writes the milliseconds twice a
# second).  From the index, lbt-cat must give the records of both files
# stably sorted by time: (time, file, line), the order of the index; with
# filters too (keys, sources and time bounds skip runs and blocks).
expect_success 'two files of three runs each, out of order: (time, file, line) from the index' '
	sh "$TOP/bench/genlog.sh" 40000 3 | sed "s/^/Nov  1 22:24:01 lb1 haproxy[1]: /" > lb1.log &&
	sh "$TOP/bench/genlog.sh" 40000 4 | sed "s/^/Nov  1 22:24:01 lb2 haproxy[1]: /" > lb2.log &&
	lbt-index -q -d runs.db lb1.log lb2.log &&
	test "$(sqlite3 runs.db "SELECT count(*), count(DISTINCT file_id) FROM runs")" = "6|2" &&
	lbt-cat --no-header lb1.log lb2.log | sort -s -t "	" -k1,1 > want &&
	lbt-cat --db runs.db --no-header > got &&
	test "$(wc -l < got)" = 80000 && test_cmp want got
'
for filter in "--key $flood" "--src 2001:db8:bad:1::/64" "--src 192.0.2.0/24" \
    "--since 2025-11-01T22:24:05.500Z --until 2025-11-01T22:24:13Z" "--lb lb2 --status 404" \
    "--key $flood --since 2025-11-01T22:24:15Z"; do
	expect_success "two files, lbt-cat $filter: the sorted records of the logs" "
		lbt-cat --no-header $filter lb1.log lb2.log | sort -s -t '	' -k1,1 > want &&
		lbt-cat --db runs.db --no-header $filter > got &&
		test -s got && test_cmp want got
	"
done

# The incident capture (tests/data/incident) as the servers wrote it: an
# HAProxy log is in the order requests ended (a request held 1 s by the
# tarpit is written after those accepted later), and two files of two
# formats go into one index.  Every output, evidence lines (file:line)
# included and not masked, must be the same from the logs and from the
# index, and from the files in either order: evidence is the smallest
# qualifying record by (time, file name, line), not the first one read.
inc=${LBT_INCIDENT:-$DATA/incident}
# get FILE - FILE of the capture here, decompressed.  @return 1 when absent.
get() {
	if [ -e "$inc/$1.zst" ]; then zstd -q -dc "$inc/$1.zst" > "$1"
	elif [ -e "$inc/$1" ]; then cp "$inc/$1" "$1"
	else return 1; fi
}

# same3 PROG-AND-OPTIONS - the output (stdout, then stderr without the
# format-detection notes) of the program on the raw files $raw, on them in
# reverse order, and on the index $db: all three equal, and not empty.
same3() {
	"$@" $raw > raw.out 2> raw.err && "$@" $rev > rev.out 2> rev.err &&
	"$@" --db $db > db.out 2> db.err &&
	for f in raw rev db; do
		sed "/format detected as/d" $f.err >> $f.out || return 1
	done &&
	test_cmp raw.out db.out && test_cmp raw.out rev.out && test -s raw.out &&
	grep -qE "\.log:[0-9]+" raw.out
}

get haproxy-httplog.log && get haproxy-httplog-rfc3164.log && get nginx-combined.log ||
	missing "the incident capture in $inc"
{
	expect_success 'index the incident: the httplog alone, and rfc3164 + nginx-combined together' '
		lbt-index -q -d h.db --format haproxy-httplog haproxy-httplog.log &&
		lbt-index -q -d two.db --format haproxy-httplog haproxy-httplog-rfc3164.log &&
		lbt-index -q -d two.db --format nginx-combined nginx-combined.log
	'
	for set in h two; do
		if [ $set = h ]; then
			raw=haproxy-httplog.log rev=$raw db=h.db
		else
			raw="haproxy-httplog-rfc3164.log nginx-combined.log"
			rev="nginx-combined.log haproxy-httplog-rfc3164.log" db=two.db
		fi
		for v in "lbt-offenders --no-geoip --top 0" "lbt-offenders --no-geoip --top 0 --by held" \
		    "lbt-tarpit --maxconn 20" "lbt-tarpit --maxconn 20 --by-source" \
		    "lbt-tarpit --maxconn 20 --full" "lbt-tarpit --maxconn 20 --notes" \
		    "lbt-tarpit --maxconn 20 --series" "lbt-tarpit --maxconn 20 --periods"; do
			expect_success "incident ($raw): $v: the same from the logs and the index, evidence too" "
				same3 $v
			"
		done
	done
	# By hand (awk) on the httplog: the --full evidence of each bucket is,
	# of the lines with its largest fc, the earliest by %tr, then line.
	# Buckets of 10 s of the request's end, %tr + Ta; the log is one day.
	expect_success 'incident: the --full evidence is the earliest line at the largest fc (awk)' '
		awk "\$2 ~ /^\\[/ {
			split(\$2, c, \":\"); t = c[2] * 3600 + c[3] * 60 + c[4]
			split(\$5, tm, \"/\"); split(\$11, n, \"/\")
			b = int((t + tm[5] / 1000) / 10); k = sprintf(\"%012.3f %09d\", t, NR)
			if (!(b in fc) || n[2] + 0 > fc[b] || (n[2] + 0 == fc[b] && k < key[b])) {
				fc[b] = n[2] + 0; key[b] = k; ev[b] = FILENAME \":\" NR } }
			END { for (b in fc) if (fc[b] >= 19) print b * 10, ev[b] }" haproxy-httplog.log |
			sort -n | cut -d " " -f 2 > expect &&
		lbt-tarpit --maxconn 20 --full --no-header haproxy-httplog.log > all && cut -f 8 all > got &&
		test -s expect && test_cmp expect got
	'
}

expect_success 'lbt-cat --db --raw prints the original lines from the index alone' '
	lbt-index -q --keep-raw -d r.db a.log &&
	mv a.log a.log.away &&
	lbt-cat --db r.db --raw --src 203.0.113.7 > db.raw &&
	grep -F "203.0.113.7:" a.log.away > want.raw &&
	mv a.log.away a.log &&
	test_cmp want.raw db.raw
'

test_done
