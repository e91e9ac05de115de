#!/bin/sh
# lbt-tarpit on the real-server incident capture (tests/data/incident, made
# by tests/lab/incident.sh --save): a tarpit flood against HAProxy with
# maxconn 20.  The held seconds must equal the sum of Tw over the PT lines
# computed here with awk, the full frontend must be reported during the
# tarpit phase (phases.tsv) and not outside it, and the two flooding sources
# must hold the tarpit.  A missing capture is a failure.
. "$(dirname "$0")/lib.sh"

INC=${LBT_INCIDENT:-$DATA/incident}
if [ ! -f "$INC/haproxy-httplog.log.zst" ] || [ ! -f "$INC/phases.tsv.zst" ]; then
	missing "the incident capture in $INC"
fi
zstd -dcq "$INC/haproxy-httplog.log.zst" > httplog.log
zstd -dcq "$INC/phases.tsv.zst" > phases.tsv
CFG="--haproxy-cfg $INC/haproxy-tarpit.cfg --frontend fe_http"

# phase start and end in epoch seconds (phases.tsv: name start_us end_us)
phase() { awk -F "\t" -v p="$1" -v c="$2" '$1 == p { printf "%d\n", $c / 1e6 }' phases.tsv; }

expect_success 'maxconn 20 read from the configuration of the tarpit phase' '
	lbt-tarpit --tsv $CFG --summary httplog.log > sum.tsv 2> err &&
	awk -F "\t" "\$2 == \"fe_http\" { print \$15 }" sum.tsv > got &&
	echo 20 > expect && test_cmp expect got
'

expect_success 'held seconds = sum of Tw over PT lines (awk), both ways' '
	awk "\$3 == \"fe_http\" && \$10 ~ /^PT/ { split(\$5, t, \"/\"); w += t[2]; a += t[5] }
		END { printf \"%.3f %.3f\n\", w / 1000, a / 1000 }" httplog.log > expect &&
	awk -F "\t" "\$2 == \"fe_http\" { print \$6, \$7 }" sum.tsv > got &&
	test_cmp expect got && ! grep -q "^0.000" got
'

expect_success 'PT count = PT lines (awk)' '
	awk "\$3 == \"fe_http\" && \$10 ~ /^PT/" httplog.log | wc -l | tr -d " " > expect &&
	awk -F "\t" "\$2 == \"fe_http\" { print \$4 }" sum.tsv > got &&
	test_cmp expect got
'

expect_success 'the full frontend is reported, in the tarpit phase only' '
	grep -F "note: fe_http was full: the logged fc reached maxconn 20" err &&
	grep -F "These logs understate waiting and lost connections" err &&
	lbt-tarpit --tsv $CFG --step 1s --full httplog.log > full.tsv 2> /dev/null &&
	ts=$(phase tarpit 2) && te=$(phase tarpit 3) &&
	sed 1d full.tsv | cut -f 3 | sed "s/Z\$//; s/T/ /" |
		while read -r d; do date -u -d "$d" +%s; done > full.s &&
	test -s full.s &&
	awk -v ts=$ts -v te=$te "\$1 >= ts && \$1 <= te { n++ } END { exit !(n > 0) }" full.s &&
	awk -v ts=$ts -v te=$te "\$1 < ts || \$1 > te + 2 { bad++ } END { exit bad > 0 }" full.s
'

expect_success 'a period at >= 90 % of maxconn overlaps the tarpit phase; none if denied' '
	lbt-tarpit --tsv $CFG --periods httplog.log > per.tsv 2> /dev/null &&
	ts=$(phase tarpit 2) && te=$(phase tarpit 3) &&
	awk -F "\t" "\$2 == \"fe_http\" && \$3 == \"logged\" { print \$4, \$5 }" per.tsv |
		sed "s/Z//g; s/T/ /g" > per.txt && test -s per.txt &&
	while read -r d1 t1 d2 t2; do
		echo $(date -u -d "$d1 $t1" +%s) $(date -u -d "$d2 $t2" +%s)
	done < per.txt > per.s &&
	awk -v ts=$ts -v te=$te "\$1 <= te && \$2 >= ts { n++ } END { exit !(n > 0) }" per.s &&
	! awk -F "\t" "\$3 == \"what-if\"" per.tsv | grep -q .
'

expect_success 'the two flooding sources hold the tarpit' '
	lbt-tarpit --tsv $CFG --by-source --top 2 httplog.log > all 2> /dev/null &&
	cut -f 1 all | sed 1d | sort > got &&
	printf "2001:db8:bad:1::/64\n203.0.113.7\n" > expect && test_cmp expect got
'

expect_success 'the rfc3164 copy gives the same held seconds, under lb1' '
	zstd -dcq "$INC/haproxy-httplog-rfc3164.log.zst" > rfc.log &&
	lbt-tarpit --tsv $CFG --summary rfc.log > all 2> /dev/null &&
	awk -F "\t" "\$2 == \"fe_http\" { print \$1, \$6 }" all > got &&
	awk -F "\t" "\$2 == \"fe_http\" { print \"lb1\", \$6 }" sum.tsv > expect &&
	test_cmp expect got
'

test_done
