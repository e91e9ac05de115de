#!/bin/sh
# lbt-cat unhappy paths: missing and broken files, malformed lines,
# --strict, bad option values, detection failure, write errors.
test_description='lbt-cat errors'
. "$LBT_TOP/tests/cli/lib.sh"

cp "$DATA/cli/httplog.log" "$DATA/cli/nginx.log" "$DATA/cli/bad.log" .
H="--format haproxy-httplog"
TIMES="(2025-11-01T23:24:01[Z|+01:00], 2025-11-01, 23:24[:01], -15m, @1762035841)"

expect_success 'missing file: named, exit 1, the other files still read' '
	printf "line\n1\n2\n" >expect &&
	printf "%s\n" "lbt-cat: nosuch.log: No such file or directory" \
	    "lbt-cat: 1 of 2 files failed (see above)" >expect.err &&
	test_expect_code 1 lbt-cat -f line nosuch.log nginx.log >out 2>err &&
	test_cmp expect out && test_cmp expect.err err
'

expect_success 'a directory is not a log' '
	mkdir d &&
	test_expect_code 1 lbt-cat -f line d nginx.log >out 2>err &&
	printf "line\n1\n2\n" >expect && test_cmp expect out &&
	head -n 1 err >got && echo "lbt-cat: d: Is a directory" >expect.err &&
	test_cmp expect.err got
'

# 20000 numbered lines; the zstd file cut in the middle.
awk "BEGIN { for (i = 1; i <= 20000; i++)
	printf \"203.0.113.%d:%d [01/Nov/2025:23:24:01.123] fe_http be_app/app1 0/0/1/12/13 200 135 - - ---- 12/8/3/2/0 0/0 \\\"GET /ping/%08d HTTP/1.1\\\"\n\", i % 250, 10000 + i, i }" >big.log

expect_success 'truncated .zst: records before the damage, file and offset named, exit 1' '
	zstd -q -c big.log >full.zst &&
	size=$(wc -c <full.zst) && head -c $((size / 2)) full.zst >cut.log.zst &&
	cut=$(wc -c <cut.log.zst) &&
	test_expect_code 1 lbt-cat $H --no-header -f line cut.log.zst >out 2>err &&
	n=$(wc -l <out) && test "$n" -gt 1000 && test "$n" -lt 20000 &&
	seq 1 "$n" >expect && test_cmp expect out &&
	head -n 1 err | grep -F "lbt-cat: cut.log.zst: truncated zstd stream at byte $cut" &&
	tail -n 1 err >got && echo "lbt-cat: 1 of 1 file failed (see above)" >expect &&
	test_cmp expect got
'

expect_success 'truncated .gz: the same, and the next file is still read' '
	gzip -c big.log >full.gz &&
	size=$(wc -c <full.gz) && head -c $((size / 2)) full.gz >cut.log.gz &&
	test_expect_code 1 lbt-cat $H --no-header -f line cut.log.gz httplog.log >out 2>err &&
	grep -F "lbt-cat: cut.log.gz: truncated gzip stream at byte" err &&
	tail -n 4 out >last && printf "1\n2\n3\n4\n" >expect && test_cmp expect last &&
	n=$(($(wc -l <out) - 4)) && test "$n" -gt 1000 &&
	head -n "$n" out >first && seq 1 "$n" >expect && test_cmp expect first
'

# bad.log: 11 lines; 1, 4 and 8 are good, 5 is blank, 2 3 6 7 9 10 11 are
# malformed (3 has the date "01/Nox/2025").  The reasons belong to the
# format module; here the file:line prefixes and the count are checked.
# 7 of 11 lines is more than 1 %: the answer is partial, exit 3, and the
# last note says so with the counts (63.6 %, the first at line 2).
reasons_cut() { sed "s/^\(lbt-cat: bad.log:[0-9]*\): .*/\1/"; }
partial_cut() { sed "s/\(could not be read, the first at line [0-9]*\): .*/\1/"; }

expect_success 'malformed lines: first five with file:line, then a total' '
	printf "line\tstatus\n1\t200\n4\t200\n8\t500\n" >expect &&
	printf "%s\n" "lbt-cat: bad.log:2" "lbt-cat: bad.log:3" "lbt-cat: bad.log:6" \
	    "lbt-cat: bad.log:7" "lbt-cat: bad.log:9" \
	    "lbt-cat: 7 malformed lines of 11 (first 5 shown above)" \
	    "lbt-cat: bad.log: 7 of its 11 lines (63.6 %) could not be read, the first at line 2" \
	    >expect.err &&
	test_expect_code 3 lbt-cat $H -f line,status,time bad.log >all 2>err &&
	cut -f 1,2 all >out && test_cmp expect out &&
	reasons_cut <err | partial_cut >got && test_cmp expect.err got
'

expect_success 'more than 1 % of a file malformed: exit 3, although records were read' '
	test_expect_code 3 lbt-cat $H -f line bad.log >/dev/null 2>&1
'

expect_success 'the reason names what is wrong' '
	test_expect_code 3 lbt-cat $H -f line,time bad.log 2>err >/dev/null &&
	grep "^lbt-cat: bad.log:3: .*01/Nox/2025" err
'

expect_success '--strict: stop at the first malformed line, exit 1' '
	printf "line\n1\n" >expect &&
	test_expect_code 1 lbt-cat $H --strict -f line bad.log >out 2>err &&
	test_cmp expect out && test "$(wc -l <err)" -eq 1 &&
	reasons_cut <err >got && echo "lbt-cat: bad.log:2" >expect.err &&
	test_cmp expect.err got
'

expect_success '--strict stops before the next file too' '
	test_expect_code 1 lbt-cat $H --strict -f line bad.log httplog.log >out 2>/dev/null &&
	printf "line\n1\n" >expect && test_cmp expect out
'

expect_success 'a line over 1 MiB is malformed, the next line is read' '
	{
		head -n 1 httplog.log &&
		awk "BEGIN { s = sprintf(\"%1100000s\", \"\"); gsub(/ /, \"x\", s); print s }" &&
		sed -n 2p httplog.log
	} >long.log &&
	printf "line\n1\n3\n" >expect &&
	printf "%s\n" "lbt-cat: long.log:2: line longer than 1 MiB" \
	    "lbt-cat: 1 malformed line of 3" \
	    "lbt-cat: long.log: 1 of its 3 lines (33.3 %) could not be read, the first at line 2" \
	    >expect.err &&
	test_expect_code 3 lbt-cat $H -f line long.log >out 2>err && test_cmp expect out &&
	partial_cut <err >got && test_cmp expect.err got
'

# A file name cannot hold a NUL byte: in lbt-tsv's "file" column one used to
# cut the name there ("a" for "a<NUL>b.log"); found by tests/fuzz/fuzz_tsv.c.
expect_success 'lbt-tsv: a NUL byte in the file column makes the line malformed' '
	printf "file\tline\tstatus\na\000b.log\t3\t200\nc.log\t4\t404\n" >nul.tsv &&
	printf "file\tline\tstatus\nc.log\t4\t404\n" >expect &&
	printf "%s\n" "lbt-cat: (stdin):2: bad file (a NUL byte) at column 1" \
	    "lbt-cat: 1 malformed line of 3" \
	    "lbt-cat: standard input: 1 of its 3 lines (33.3 %) could not be read, the first at line 2" \
	    >expect.err &&
	test_expect_code 3 lbt-cat --format lbt-tsv -f file,line,status <nul.tsv >out 2>err &&
	test_cmp expect out && partial_cut <err >got && test_cmp expect.err got
'

expect_success 'no format matches: the file is unread (exit 3), with the best candidates' '
	printf "hello\nworld\nagain\n" >junk.log &&
	test_expect_code 3 lbt-cat -f line junk.log nginx.log >out 2>err &&
	printf "line\n1\n2\n" >expect && test_cmp expect out &&
	head -n 1 err >got &&
	grep "^lbt-cat: junk.log: no known format matches the first 3 lines (best: [a-z-]* 0/3, [a-z-]* 0/3, [a-z-]* 0/3); use --format, --log-format, --haproxy-cfg or --nginx-conf\$" got
'

expect_success 'an empty file is no error, but an empty answer (exit 2, a note)' '
	: >empty.log && test_expect_code 2 lbt-cat -f line empty.log >out 2>err &&
	echo line >expect && test_cmp expect out &&
	echo "lbt-cat: no request in the input (0 lines: 0 malformed, 0 events)" >expect &&
	test_cmp expect err
'

# exact messages of bad option values; nothing on stdout, exit 1
bad_value() {
	echo "$1" >expect.err &&
	shift &&
	test_expect_code 1 lbt-cat "$@" httplog.log >out 2>err &&
	test ! -s out && test_cmp expect.err err
}

expect_success 'bad --since' '
	bad_value "lbt-cat: --since: '\''yesterday'\'' is not a time $TIMES" --since yesterday
'

expect_success 'bad --until' '
	bad_value "lbt-cat: --until: '\''25:00'\'' is not a time $TIMES" --until 25:00
'

expect_success 'bad --status' '
	bad_value "lbt-cat: --status: '\''6xx'\'' is not a status or class (100..599, 1xx..5xx, -1)" --status 429,6xx
'

expect_success 'bad --src' '
	bad_value "lbt-cat: --src: '\''10.0.0.0/33'\'' is not an address or network (203.0.113.7, 198.51.100.0/24, 2001:db8::/64)" --src 10.0.0.0/33
'

expect_success 'bad --term' '
	bad_value "lbt-cat: --term: '\''PTXYZ'\'' is not a termination-state prefix (1 to 4 characters such as PT, sQ, PR--)" --term PTXYZ
'

expect_success 'bad --fields lists the valid names' '
	bad_value "lbt-cat: --fields: '\''nope'\'' is not a field (fields: time lb client port frontend backend server method path query host version status bytes Th Ti Tq TR Tw Tc Tr Ta Tt term ac fc bc sc rc sq bq ua key msg event level request clock tier client_from conn file line)" -f time,nope
'

expect_success 'bad --key-regex: PCRE2 message and offset' '
	bad_value "lbt-cat: --key-regex: missing closing parenthesis at offset 5" --key-regex "(abcd"
'

expect_success '--key-regex needs exactly one group' '
	bad_value "lbt-cat: --key-regex: pattern must have exactly one capture group (has 2)" --key-regex "/(a)(b)"
'

expect_success 'bad --log-tz' '
	test_expect_code 1 lbt-cat --log-tz Mars/Olympus httplog.log >out 2>err &&
	test ! -s out && grep -F "Mars/Olympus" err
'

expect_success 'unknown --format' '
	test_expect_code 1 lbt-cat --format nosuch httplog.log >out 2>err &&
	test ! -s out && grep -F "nosuch" err
'

expect_success '--log-format without any variable' '
	bad_value "lbt-cat: --log-format: '\''plain text 100%'\'' has neither HAProxy %-items nor NGINX \$variables" --log-format "plain text 100%"
'

expect_success 'format options exclude each other' '
	bad_value "lbt-cat: --format, --log-format, --haproxy-cfg and --nginx-conf exclude each other" $H --log-format "%ci"
'

expect_success '--frontend needs --haproxy-cfg' '
	bad_value "lbt-cat: --frontend needs --haproxy-cfg" --frontend fe_http
'

expect_success '--escape needs --log-format' '
	bad_value "lbt-cat: --escape needs --log-format" --escape json
'

if [ -w /dev/full ]; then
	expect_success 'a write error is reported, exit 1' '
		test_expect_code 1 lbt-cat $H httplog.log >/dev/full 2>err &&
		echo "lbt-cat: error writing the output: No space left on device" >expect &&
		test_cmp expect err
	'
fi

test_done
