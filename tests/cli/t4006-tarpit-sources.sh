#!/bin/sh
# Issue 10's closing note: one command reads lb1 (httplog) + lb2 (a custom
# log-format, from its haproxy.cfg) + the NGINX behind them (JSON, from its
# nginx.conf) through a sources file, and prints per-LB and total figures.
# The fixtures are real HAProxy 2.6 / NGINX 1.22 output (tests/data/real);
# the sources file is tests/data/lbs/sources.txt, as the README's tour
# shows it.  Every figure is computed here with awk from the lines.
. "$(dirname "$0")/lib.sh"

S="$DATA/lbs/sources.txt"
[ -f "$S" ] || missing "tests/data/lbs/sources.txt"
R="$DATA/real"

# "frontend requests tarpitted held_s" per frontend of lb1 (httplog:
# client [date] fe be/srv TR/Tw/Tc/Tr/Ta status bytes - - term ...) and of
# lb2 (compact: %Ts%ms %ci %cp %ft %b %s %TR %Tw ... %tsc is field 15)
per_fe() {
	awk -v fe="$1" -v tm="$2" -v tw="$3" -v lb="$4" '
	    (lb == "lb1" && $2 ~ /^\[/) || (lb == "lb2" && $1 ~ /^[0-9]+$/ && NF >= 15) {
		f = $fe; n[f]++
		if (substr($tm, 1, 2) == "PT") {
			pt[f]++
			if (lb == "lb1") { split($tw, t, "/"); w[f] += t[2] } else w[f] += $tw
		}
	    }
	    END { for (f in n) printf "%s\t%s\t%d\t%d\t%.3f\n", lb, f, n[f], pt[f], w[f] / 1000 }' "$5"
}
{ per_fe 3 10 5 lb1 "$R/haproxy-httplog.log" | sort; per_fe 4 15 8 lb2 "$R/haproxy-compact.log" | sort; } >rows
awk -F "\t" '{ n += $3; pt += $4; w += $5 } END { printf "(total)\t\t%d\t%d\t%.3f\n", n, pt, w }' rows >total
nginx=$(wc -l <"$R/nginx-json.log")

expect_success 'the fixtures: two LBs, three frontends, tarpitted requests on each LB' '
	test "$(wc -l <rows)" -eq 3 && test "$(cut -f 1 rows | sort -u | wc -l)" -eq 2 &&
	test "$(awk -F "\t" "{ s += \$4 } END { print s }" rows)" -gt 1 && test "$nginx" -gt 0
'

expect_success 'lbt-tarpit --tsv --sources: each LB'"'"'s frontends under their names, then the total (awk)' '
	lbt-tarpit --sources "$S" --summary --tsv >sum.tsv 2>err &&
	cut -f 1-4,6 sum.tsv | sed 1d >got &&
	cat rows total >expect && test_cmp expect got
'

expect_success 'NGINX is read and its requests left out of the LB figures, said once' '
	grep -c "" err >n && echo 1 >expect && test_cmp expect n &&
	grep -q "^lbt-tarpit: note: $nginx requests of the backend tier left out (first: .*nginx-json.log)" err
'

expect_success 'the screen: a block per LB and frontend, and the sums over both LBs' '
	lbt-tarpit --sources "$S" --summary --table >screen 2>/dev/null &&
	set -- $(cut -f 3- total) &&
	test "$(grep -c "^fe_[a-z]* on lb[12] " screen)" -eq 3 &&
	grep -q "^every frontend on all 2 LBs (lb1, lb2)" screen &&
	grep -q "^requests  *$1, " screen && grep -q "^held, sum of Tw  *$3 s over $2 PT lines" screen
'

# the requests of both LBs by epoch second: the busiest second of the sum
day=$(date -u -d 2026-11-30 +%s)
{ awk -v d="$day" '$2 ~ /^\[/ { split(substr($2, 14, 8), t, ":"); print d + t[1] * 3600 + t[2] * 60 + t[3] }' \
      "$R/haproxy-httplog.log"
  awk '$1 ~ /^[0-9]+$/ && NF >= 15 { print int($1 / 1000) }' "$R/haproxy-compact.log"; } >secs
peak=$(sort -n secs | uniq -c | sort -k1,1nr -k2,2n | head -n 1)

expect_success 'lbt-rate --by lb --sources: lb1, lb2 and their total, peak of the sum (awk)' '
	lbt-rate --by lb --tsv --sources "$S" >rate.tsv 2>/dev/null &&
	set -- $peak &&
	awk -F "\t" "{ n[\$1] += \$3 } END { print n[\"lb1\"], n[\"lb2\"] }" rows >want &&
	read l1 l2 <want &&
	printf "lb1\t%s\nlb2\t%s\n(total)\t%s\n" "$l1" "$l2" "$((l1 + l2))" >expect &&
	cut -f 1,2 rate.tsv | sed 1d >got && test_cmp expect got &&
	printf "%s.00\t%s\n" "$1" "$(date -u -d "@$2" +%Y-%m-%dT%H:%M:%SZ)" >expect &&
	grep "^(total)" rate.tsv | cut -f 3,4 >got && test_cmp expect got
'

test_done
