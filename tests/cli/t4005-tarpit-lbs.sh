#!/bin/sh
# Figures across LBs (issue 10): two LBs of real captures in two formats in
# one run, lb1 the incident's httplog (fe_http), lb2 the lab's custom
# compact log-format (fe_compact, read with its haproxy.cfg).  Each LB keeps
# its row under its name and a "(total)" row adds them up: lbt-tarpit's
# requests, tarpitted and held seconds, lbt-rate --by lb's requests and the
# peak of their sum.  Every figure is computed here with awk from the lines.
. "$(dirname "$0")/lib.sh"

zstd -dcq "$DATA/incident/haproxy-httplog.log.zst" > lb1.log || missing "tests/data/incident"
cp "$DATA/real/haproxy-compact.log" lb2.log
cp "$DATA/real/haproxy.cfg" lb2.cfg
IN="--input 'lb1.log lb=lb1' --input 'lb2.log haproxy-cfg=lb2.cfg lb=lb2'"

# httplog: client [date] fe be/srv TR/Tw/Tc/Tr/Ta status bytes - - term ...
# compact: %Ts%ms %ci %cp %ft %b %s %TR %Tw %Tc %Tr %Ta %Tt %ST %B %tsc ...
# "requests tarpitted held_s" of each, then both
tw1() {
	awk '$2 ~ /^\[/ { n++; if (substr($10, 1, 2) == "PT") { pt++; split($5, t, "/"); tw += t[2] } }
	    END { printf "%d %d %.3f\n", n, pt, tw / 1000 }' lb1.log
}
tw2() {
	awk '$1 ~ /^[0-9]+$/ && NF >= 15 { n++; if (substr($15, 1, 2) == "PT") { pt++; tw += $8 } }
	    END { printf "%d %d %.3f\n", n, pt, tw / 1000 }' lb2.log
}
one=$(tw1) two=$(tw2)
both=$(printf "%s\n%s\n" "$one" "$two" | awk '{ n += $1; pt += $2; tw += $3 }
    END { printf "%d %d %.3f\n", n, pt, tw }')

expect_success 'the fixture: both LBs have requests and tarpitted ones' '
	test "$one" = "3835 413 413.661" && test "$two" = "34 1 1.001"
'

expect_success 'lbt-tarpit --tsv --summary: a row per LB under its name, and their total (awk)' '
	eval lbt-tarpit --tsv --summary "$IN" >sum.tsv 2>err &&
	cut -f 1-4,6 sum.tsv | sed 1d >got &&
	{ printf "lb1\tfe_http\t%s\n" "$one"; printf "lb2\tfe_compact\t%s\n" "$two";
	  printf "(total)\t\t%s\n" "$both"; } | awk -F "[\t ]" -v OFS="\t" \
	    "{ print \$1, \$2, \$3, \$4, \$5 }" >expect &&
	test_cmp expect got
'

expect_success 'the total spans the first LB'"'"'s first and the last one'"'"'s last; no peak of sums' '
	awk -F "\t" "NR == 1 { for (i = 1; i <= NF; i++) c[\$i] = i; next }
	    { f[\$1] = \$c[\"first\"]; l[\$1] = \$c[\"last\"]; p[\$1] = \$c[\"peak\"] }
	    END { print (f[\"(total)\"] == (f[\"lb1\"] < f[\"lb2\"] ? f[\"lb1\"] : f[\"lb2\"])),
	                (l[\"(total)\"] == (l[\"lb1\"] > l[\"lb2\"] ? l[\"lb1\"] : l[\"lb2\"])),
	                p[\"(total)\"] == \"\", p[\"lb1\"] != \"\" }" sum.tsv >got &&
	echo "1 1 1 1" >expect && test_cmp expect got
'

expect_success 'the screen has a block for both LBs with the same sums' '
	eval lbt-tarpit --table --summary "$IN" >screen 2>err &&
	set -- $both &&
	grep -q "^every frontend on all 2 LBs (lb1, lb2)" screen &&
	grep -q "^requests  *$1, " screen &&
	grep -q "^tarpitted (PT)  *$2; " screen &&
	grep -q "^held, sum of Tw  *$3 s over $2 PT lines" screen
'

expect_success 'one LB: no total' '
	lbt-tarpit --tsv --summary --input "lb1.log lb=lb1" >one.tsv 2>err &&
	test "$(grep -c "^(total)" one.tsv)" -eq 0 && test "$(wc -l <one.tsv)" -eq 2
'

# epoch second of each request: httplog's accept date (all on 2026-11-30),
# compact's %Ts%ms
day=$(date -u -d 2026-11-30 +%s)
awk -v d="$day" '$2 ~ /^\[/ { split(substr($2, 14, 8), t, ":"); print d + t[1] * 3600 + t[2] * 60 + t[3] }' \
    lb1.log >secs
awk '$1 ~ /^[0-9]+$/ && NF >= 15 { print int($1 / 1000) }' lb2.log >>secs
# the busiest second of both together (the earliest of a tie) and its count
peak=$(sort -n secs | uniq -c | sort -k1,1nr -k2,2n | head -n 1)

expect_success 'lbt-rate --by lb: each LB, and the total with the peak of the sum (awk)' '
	eval lbt-rate --by lb --tsv "$IN" >rate.tsv 2>err &&
	set -- $peak $both &&
	at=$(date -u -d "@$2" +%Y-%m-%dT%H:%M:%SZ) &&
	first=$(date -u -d "@$(sort -n secs | head -n 1)" +%Y-%m-%dT%H:%M:%SZ) &&
	grep "^(total)" rate.tsv | cut -f 1-4,9 >got &&
	printf "(total)\t%s\t%s.00\t%s\t%s\n" "$3" "$1" "$at" "$first" >expect &&
	test_cmp expect got &&
	cut -f 1,2 rate.tsv | sed 1d >got &&
	printf "lb1\t3835\nlb2\t34\n(total)\t3869\n" >expect && test_cmp expect got
'

# Two LBs busy at the same seconds: the incident's requests in its compact
# copy as lb2 (the same traffic logged through another format), so the
# total's peak is the peak of the sum, not the larger of the two peaks.
zstd -dcq "$DATA/incident/haproxy-compact.log.zst" > lb2c.log
T=$(cat "$DATA/incident/haproxy-compact.template")
awk '$1 ~ /^[0-9]+$/ && NF >= 15 { print int($1 / 1000) }' lb2c.log >secs2
awk -v d="$day" '$2 ~ /^\[/ { split(substr($2, 14, 8), t, ":"); print d + t[1] * 3600 + t[2] * 60 + t[3] }' \
    lb1.log >>secs2
peak2=$(sort -n secs2 | uniq -c | sort -k1,1nr -k2,2n | head -n 1)

expect_success 'lbt-rate --by lb, LBs busy together: the total peak is the busiest second of the sum' '
	lbt-rate --by lb --tsv --input "lb1.log lb=lb1" \
	    --input "lb2c.log log-format='"'"'$T'"'"' lb=lb2" >rate2.tsv 2>err &&
	set -- $peak2 &&
	at=$(date -u -d "@$2" +%Y-%m-%dT%H:%M:%SZ) &&
	grep "^(total)" rate2.tsv | cut -f 2-4 >got &&
	printf "%s\t%s.00\t%s\n" "$(wc -l <secs2)" "$1" "$at" >expect && test_cmp expect got &&
	l1=$(awk -F "\t" "\$1 == \"lb1\" { print \$3 }" rate2.tsv) &&
	test "$1.00" != "$l1"
'

test_done
