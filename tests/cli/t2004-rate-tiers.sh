#!/bin/sh
# The LB and the NGINX behind it log the same requests: an analysis counts
# one tier (lib/run/stream.c), the LB tier by default when both are there,
# and says what it left out.  On the real incident capture
# (tests/data/incident: HAProxy httplog and NGINX combined of one run),
# from the logs and from an index of both.  Expected totals are awk's.
. "$(dirname "$0")/lib.sh"

inc=${LBT_INCIDENT:-$DATA/incident}
for f in haproxy-httplog.log nginx-combined.log; do
	zstd -q -dc "$inc/$f.zst" > $f 2> /dev/null || missing "the incident capture in $inc"
done
U=f768064f-9585-47ad-a39e-ed24c2c063fe
lb=$(awk -v u=$U '$2 ~ /^\[/ && index($0, u)' haproxy-httplog.log | wc -l)
web=$(grep -c -F "$U" nginx-combined.log)
nweb=$(wc -l < nginx-combined.log)

# total of key $U in lbt-rate TSV output
total() { awk -F '\t' -v u=$U '$1 == u { print $2 }' "$1"; }

expect_success 'the capture: both tiers saw the flooded key' '
	test "$lb" = 3245 && test "$web" = 923 && test "$nweb" = 1513
'

expect_success 'both tiers given: the LB tier is counted, and a note says why' '
	lbt-rate --tsv --top 0 haproxy-httplog.log nginx-combined.log > out 2> err &&
	test "$(total out)" = "$lb" &&
	echo "lbt-rate: note: $nweb requests of the backend tier left out (first: nginx-combined.log): the inputs hold both tiers, which log the same requests; counting the lb tier (--tier backend or --tier all to choose)" > expect &&
	test_cmp expect err
'

expect_success 'the same as the LB log alone, row for row' '
	lbt-rate --tsv --top 0 haproxy-httplog.log > alone &&
	test_cmp alone out
'

expect_success '--tier backend, --tier all: no note, the totals of awk' '
	lbt-rate --tsv --top 0 --tier backend haproxy-httplog.log nginx-combined.log > b 2> err &&
	test "$(total b)" = "$web" && test ! -s err &&
	lbt-rate --tsv --top 0 nginx-combined.log > nginx-alone && test_cmp nginx-alone b &&
	lbt-rate --tsv --top 0 --tier all haproxy-httplog.log nginx-combined.log > all 2> err &&
	test "$(total all)" = $((lb + web)) && test ! -s err
'

expect_success 'one tier only: nothing left out, no note' '
	lbt-rate --tsv --top 0 nginx-combined.log > out 2> err &&
	test "$(total out)" = "$web" && test ! -s err
'

expect_success 'tier= of an input overrides the format'\''s' '
	lbt-rate --tsv --top 0 --input "nginx-combined.log tier=lb" haproxy-httplog.log > out 2> err &&
	test "$(total out)" = $((lb + web)) && test ! -s err
'

expect_success 'lbt-cat prints every tier unless asked (--tier)' '
	lbt-cat --tsv --fields tier haproxy-httplog.log nginx-combined.log > out &&
	test "$(grep -cx lb out)" = "$(awk "\$2 ~ /^\\[/" haproxy-httplog.log | wc -l)" &&
	test "$(grep -cx backend out)" = "$nweb" &&
	lbt-cat --tsv --fields tier --tier backend haproxy-httplog.log nginx-combined.log > out &&
	test "$(tail -n +2 out | sort -u)" = backend
'

expect_success 'lbt-offenders counts one tier too' '
	lbt-offenders --tsv --top 0 --no-geoip haproxy-httplog.log nginx-combined.log > out 2> err &&
	lbt-offenders --tsv --top 0 --no-geoip haproxy-httplog.log > alone &&
	test_cmp alone out && grep -F "note: $nweb requests of the backend tier left out" err
'

expect_success 'an index of both tiers: the same answers as the logs' '
	lbt-index -q -d both.db haproxy-httplog.log nginx-combined.log &&
	test "$(sqlite3 both.db "SELECT count(*) FROM requests_v WHERE tier = '"'"'backend'"'"'")" = "$nweb" &&
	lbt-rate --db both.db --tsv --top 0 > out 2> err &&
	lbt-rate --tsv --top 0 haproxy-httplog.log > alone && test_cmp alone out &&
	echo "lbt-rate: note: $nweb requests of the backend tier left out (first: nginx-combined.log): the inputs hold both tiers, which log the same requests; counting the lb tier (--tier backend or --tier all to choose)" > expect &&
	test_cmp expect err &&
	lbt-rate --db both.db --tsv --top 0 --tier all > out &&
	test "$(total out)" = $((lb + web))
'

expect_success 'the flood ends where the LB says, not where the sum of tiers does' '
	lbt-rate --tsv --top 1 haproxy-httplog.log > a &&
	lbt-rate --db both.db --tsv --top 1 > b 2> /dev/null &&
	test_cmp a b && test -n "$(cut -f 7 a | tail -n 1)"
'

expect_success 'a bad --tier is a usage error' '
	test_expect_code 1 lbt-rate --tier web haproxy-httplog.log > out 2> err &&
	grep -Fx "lbt-rate: --tier: '"'"'web'"'"' is not lb, backend or all" err &&
	grep -F "usage: lbt-rate" err
'

test_done
