#!/bin/sh
# Files that mix formats, read line by line (lib/read/input_fmtset.c): the
# real /var/log/haproxy.log of the lab (haproxy-mixed.log: every proxy of
# its haproxy.cfg in one rfc3164 file, httplog, tcplog, httpslog, clf and a
# custom format, plus HAProxy's own lines), with its haproxy.cfg and with
# nothing; an NGINX log of `combined` and `main` lines.  Expected counts
# are grep's and awk's on the fixtures.
. "$(dirname "$0")/lib.sh"

R=$DATA/real
cp "$R/haproxy-mixed.log" "$R/haproxy.cfg" "$R/haproxy-clf.log" .

# Request lines per proxy: after the 5 words of the syslog header, httplog,
# tcplog and httpslog lines are "ci:cp [date] ft" (not "ft/bind:", the TLS
# error), compact ones "Ts ci cp ft", CLF ones quote "fe_clf".
count() {
	awk -v fe="$1" '($7 ~ /^\[/ && $8 !~ /:$/ && ($8 == fe || $8 == fe "~")) ||
		($6 ~ /^[0-9]+$/ && $9 == fe) || (fe == "fe_clf" && index($0, "\"fe_clf\" \""))' \
	    haproxy-mixed.log | wc -l
}
for fe in fe_http fe_nocap fe_tcp fe_https fe_clf fe_compact; do
	printf '%s\t%s\n' "$fe" "$(count "$fe")"
done | sort > per-fe
events=$(grep -c -E ': (Server |Proxy |backend |[^ ]+ \[[^]]+\] fe_https/1: SSL)' haproxy-mixed.log)

expect_success 'the fixture: six proxies and HAProxy'\''s own lines' '
	test "$(awk "{ s += \$2 } END { print s }" per-fe)" = 67 && test "$events" = 6 &&
	test "$(wc -l < haproxy-mixed.log)" = $((67 + 1 + events))
'

expect_success '--haproxy-cfg without --frontend: every line by its proxy, none malformed' '
	lbt-cat --haproxy-cfg haproxy.cfg --tsv --fields frontend haproxy-mixed.log > out 2> err &&
	test ! -s err &&
	tail -n +2 out | sort | uniq -c | awk -v OFS="\t" "{ print \$2, \$1 }" > got &&
	printf "\t1\n" | cat - per-fe | sort > expect && test_cmp expect got
'
# (the one record without a frontend is the CLF line of the 900-byte query
# that HAProxy cut at 1024 bytes: its frontend was past the cut)

expect_success 'with --events, HAProxy'\''s own lines are the rest' '
	lbt-cat --haproxy-cfg haproxy.cfg --events --tsv --fields event haproxy-mixed.log > out &&
	test "$(tail -n +2 out | grep -c .)" = "$events"
'

expect_success 'each proxy'\''s captures mean what its configuration says' '
	lbt-cat --haproxy-cfg haproxy.cfg --tsv --fields frontend,host,ua haproxy-mixed.log > out &&
	awk -F "\t" "\$1 == \"fe_http\" && \$2 == \"hc-ping.com\"" out | wc -l > got &&
	grep -c "\] fe_http .*{hc-ping.com|" haproxy-mixed.log > expect && test_cmp expect got &&
	test "$(awk -F "\t" "\$1 == \"fe_nocap\" && \$2 != \"\"" out | wc -l)" = 0 &&
	test "$(awk -F "\t" "\$1 == \"fe_compact\" && \$2 == \"hc-ping.com\"" out | wc -l)" = \
	    "$(grep -c "fe_compact.*\"hc-ping.com\"" haproxy-mixed.log)"
'

# (the fe_compact lines, a sixth of the file, are unread: exit 3)
expect_success 'without any option: the built-in formats that match, line by line' '
	test_expect_code 3 lbt-cat --tsv --fields frontend haproxy-mixed.log > out 2> err &&
	tail -n +2 out | sort | uniq -c | awk -v OFS="\t" "{ print \$2, \$1 }" > got &&
	printf "\t1\n" | cat - per-fe | grep -v "^fe_compact" | sort > expect &&
	test_cmp expect got &&
	grep -Fx "lbt-cat: $(grep "^fe_compact" per-fe | cut -f 2) malformed lines of 74 (first 5 shown above)" err
'
# (the compact lines are a custom log-format: no built-in reads them)

expect_success 'every malformed line without options is a fe_compact line' '
	lbt-cat --tsv --fields line --events haproxy-mixed.log 2> /dev/null | tail -n +2 > read &&
	awk "{ print NR }" haproxy-mixed.log | grep -vxF -f read > missed &&
	while read -r l; do sed -n "${l}p" haproxy-mixed.log; done < missed | awk "{ print \$9 }" |
	    sort -u > got && test "$(wc -l < missed)" = "$(count fe_compact)" &&
	echo fe_compact > expect && test_cmp expect got
'

expect_success 'the records are those of each proxy read alone (--frontend)' '
	lbt-cat --haproxy-cfg haproxy.cfg --tsv haproxy-mixed.log > all 2> /dev/null &&
	for fe in fe_http fe_nocap fe_tcp fe_https fe_clf fe_compact; do
		lbt-cat --haproxy-cfg haproxy.cfg --frontend $fe --tsv haproxy-mixed.log 2> /dev/null |
		    awk -F "\t" -v fe=$fe "NR > 1 && \$5 == fe" || exit 1
	done | sort > alone &&
	tail -n +2 all | awk -F "\t" "\$5 != \"\"" | sort > mixed &&
	test_cmp alone mixed
'

expect_success 'a CLF line without a stream (<BADREQ>) has no capture tokens: read' '
	lbt-cat --haproxy-cfg haproxy.cfg --frontend fe_clf --events --tsv --fields status haproxy-clf.log > out 2> err &&
	test ! -s err && test "$(tail -n +2 out | wc -l)" = "$(wc -l < haproxy-clf.log)" &&
	grep -o "\"<BADREQ>\" [0-9]*" haproxy-clf.log | cut -d " " -f 2 > expect &&
	test "$(wc -l < expect)" = 3 &&
	lbt-cat --haproxy-cfg haproxy.cfg --frontend fe_clf --tsv --fields status,request haproxy-clf.log |
	    awk -F "\t" "\$2 == \"<BADREQ>\" { print \$1 }" > got && test_cmp expect got'

expect_success '--format A,B: those built-ins, line by line' '
	lbt-cat --format haproxy-httplog,haproxy-tcplog --tsv --fields frontend haproxy-mixed.log > out 2> err;
	test "$?" = 3 &&
	for fe in fe_http fe_nocap fe_tcp; do
		test "$(grep -cx "$fe" out)" = "$(count $fe)" || exit 1
	done
'

expect_success 'NGINX combined and main lines in one log: every line read' '
	paste -d "\n" "$R/nginx-combined.log" "$R/nginx-main.log" > mixed.log &&
	n=$(wc -l < mixed.log) && test "$n" = 80 &&
	lbt-cat --tsv --fields line mixed.log > out 2> err &&
	test ! -s err && seq 1 80 > expect && tail -n +2 out > got && test_cmp expect got
'

expect_success 'lbt-formats --detect still scores one format at a time' '
	lbt-formats --detect haproxy-mixed.log > out &&
	test "$(sed -n 2p out | cut -f 1)" = haproxy-httplog-extra
'

test_done
