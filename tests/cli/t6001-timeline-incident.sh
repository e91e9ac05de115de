#!/bin/sh
# lbt-timeline on the real-server incident capture (tests/data/incident:
# baseline -> tarpit -> deny 429 -> reject -> calm, phases.tsv and
# truth.tsv say when and who).  Every expected value comes from the truth
# files or from awk on the log, never from lbt: the flood's start (the
# key's and the offenders' episodes) within one bucket (1 s) of the tarpit
# phase, the tarpit giving way to deny at the deny phase, the offenders
# stopping at once under reject with nothing logged about it, saturation in
# the tarpit phase, the end of the incident, nothing in the calm phase but
# HAProxy's own stop after the last request; counts against awk.
test_description='lbt-timeline on the bundled incident, against its truth'
. "$LBT_TOP/tests/cli/lib.sh"

INC=${LBT_INCIDENT:-$DATA/incident}
for f in haproxy-httplog.log.zst haproxy-httplog-rfc3164.log.zst phases.tsv.zst truth.tsv.zst \
    haproxy-tarpit.cfg; do
	[ -f "$INC/$f" ] || missing "the incident capture's $f in $INC"
done
test_have gawk || missing gawk
zstd -dcq "$INC/haproxy-httplog.log.zst" > inc.log
zstd -dcq "$INC/phases.tsv.zst" > phases.tsv
zstd -dcq "$INC/truth.tsv.zst" > truth.tsv
CFG="--haproxy-cfg $INC/haproxy-tarpit.cfg --frontend fe_http"
lbt-timeline --tsv $CFG inc.log > ev.tsv 2> ev.err

# phase start or end in µs (phases.tsv: name start_us end_us)
phase() { awk -F "\t" -v p="$1" -v c="$2" '$1 == p { print $c }' phases.tsv; }
# the time_us of the events of kind $1 and subject $2 (TSV columns 3, 5, 2)
when() { awk -F "\t" -v k="$1" -v s="$2" '$3 == k && $5 == s { print $2 }' ev.tsv; }
# succeed when every number on stdin lies within [$1, $2]
within() { awk -v lo="$1" -v hi="$2" '{ n++ } $1 < lo || $1 > hi { bad++ }
	END { exit !(n > 0 && bad == 0) }'; }
# the httplog's lines as "epoch_us client path status": %tr to µs (gawk, TZ=UTC)
gawk 'BEGIN { split("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec", m, " ");
		for (i = 1; i <= 12; i++) mon[m[i]] = i }
	$2 ~ /^\[/ { split(substr($2, 2, 24), d, "[/:.]");
		c = $1; sub(/:[0-9]+$/, "", c); sub(/^::ffff:/, "", c);
		printf "%d %s %s %s\n", (mktime(d[3] " " mon[d[2]] " " d[1] " " d[4] " " d[5] " " \
		    d[6]) * 1000 + d[7]) * 1000, c, $(NF - 1), $6 }' inc.log > lines.txt

TS=$(phase tarpit 2) TE=$(phase tarpit 3) DS=$(phase deny 2) RS=$(phase reject 2)
CS=$(phase calm 2)
# the flooded key: the one most sent in the tarpit phase (truth)
KEY=$(awk -F "\t" '$7 == "tarpit" { n[$6]++ } END { for (k in n) print n[k], k }' truth.tsv |
	sort -rn | head -n 1 | cut -d " " -f 2)
# the offenders: sources that send in the tarpit phase and not in the
# baseline, IPv6 addresses as their /64 (truth)
awk -F "\t" 'NR > 1 { s = $2; if (s ~ /:/) { split(s, g, ":"); s = g[1] ":" g[2] ":" g[3] ":" \
	g[4] "::/64" } if ($7 == "baseline") base[s] = 1; if ($7 == "tarpit") tp[s] = 1 }
	END { for (s in tp) if (!(s in base)) print s }' truth.tsv | sort > offenders

expect_success 'the truth names one flooded key and two offenders' '
	test -n "$KEY" && test "$(wc -l < offenders)" -eq 2 && test ! -s ev.err
'

expect_success 'the key rises within 1 s of the tarpit phase start, again at deny (answered at once)' '
	when rise "$KEY" > rises &&
	test "$(wc -l < rises)" -le 2 &&
	head -n 1 rises | within $((TS - 1000000)) $((TS + 1000000)) &&
	sed 1d rises | { read -r t || exit 0; echo "$t" | within $((DS - 1000000)) $((DS + 1000000)); }
'

expect_success 'the new heavy sources are the offenders, from the tarpit phase start' '
	awk -F "\t" "\$3 == \"new_source\" { print \$5 }" ev.tsv | sort > got &&
	test_cmp offenders got &&
	while read -r s; do when new_source "$s"; done < offenders |
		within $((TS - 1000000)) $((TS + 1000000))
'

expect_success 'the tarpit gives way to deny within 1 s of the deny phase start' '
	when switch "tarpit->deny" | within $((DS - 1000000)) $((DS + 1000000)) &&
	test "$(awk -F "\t" "\$3 == \"switch\"" ev.tsv | wc -l)" -eq 1
'

expect_success 'the offenders stop at once under reject, and nothing logged says why' '
	while read -r s; do when vanish "$s"; done < offenders |
		within $((RS - 1000000)) $((RS + 1000000)) &&
	test "$(awk -F "\t" "\$3 == \"vanish\"" ev.tsv | wc -l)" -eq 2 &&
	awk -F "\t" "\$3 == \"vanish\" { print \$26 }" ev.tsv > why &&
	test "$(grep -c "nothing in the logs says why" why)" -eq 2 &&
	awk -F "\t" "\$7 == \"reject\" && \$8 == \"reset\"" truth.tsv | wc -l > resets &&
	test "$(cat resets)" -gt 1000 &&
	last=$(when vanish 203.0.113.7) &&
	test "$(awk -v t=$last "\$1 > t && \$2 == \"203.0.113.7\"" lines.txt | wc -l)" -eq 0
'

expect_success 'the frontend is at maxconn in the tarpit phase, the alert no later' '
	awk -F "\t" "\$3 == \"saturation\" && \$5 == \"fe_http\" { print \$2, \$8 }" ev.tsv > sat &&
	test "$(wc -l < sat)" -eq 1 &&
	cut -d " " -f 1 sat | within $((TS - 1000000)) $TE &&
	cut -d " " -f 2 sat | within $TS $((TE + 2000000)) &&
	when alert fe_http | within $((TS - 1000000)) "$(cut -d " " -f 1 sat)"
'

expect_success 'the incident ends in the reject phase; nothing in the calm phase but the stop' '
	when end all | within $RS $CS &&
	awk -F "\t" -v c=$CS "NR > 1 && \$2 >= c && \$3 != \"stop\"" ev.tsv > calm &&
	test ! -s calm &&
	awk -F "\t" "\$3 == \"stop\" { sub(/.*:/, \"\", \$24); print \$24 }" ev.tsv > stopline &&
	test "$(wc -l < stopline)" -eq 1 &&
	grep -n "^[0-9a-f:.]*:[0-9]* \[" inc.log | tail -n 1 | cut -d : -f 1 > lastreq &&
	test "$(cat stopline)" -gt "$(cat lastreq)"
'

expect_success 'the key rise counts the key lines of its episode (awk)' '
	awk -F "\t" -v k="$KEY" "\$3 == \"rise\" && \$5 == k { print \$2, \$8, \$15 }" ev.tsv > ep &&
	read -r s e n < ep &&
	awk -v s=$s -v e=$e -v k="/ping/$KEY" "\$1 >= s && \$1 < e && \$3 == k" lines.txt |
		wc -l | tr -d " " > expect &&
	echo "$n" > got && test_cmp expect got
'

expect_success '429s: their share of the episode as awk counts it' '
	awk -F "\t" "\$3 == \"errors\" && \$5 == \"429\" { print \$2, \$8, \$17 }" ev.tsv > ep &&
	read -r s e pct < ep && echo $s | within $((DS - 1000000)) $((DS + 1000000)) &&
	awk -v s=$s -v e=$e "\$1 >= s && \$1 < e { n++; if (\$4 == 429) k++ }
		END { printf \"%.2f\n\", 100 * k / n }" lines.txt > expect &&
	echo "$pct" > got && test_cmp expect got
'

# The offender floods its one URL before the tarpit answers it and goes on
# at the same cadence after: sent anyway, no re-send.  (This used to be a
# retry of lines - 1, "amplification x lines": the repeats of one URL that
# issue 18 found false.)
expect_success 'the offender flooding one URL re-sends nothing: no retry event' '
	awk "\$2 == \"203.0.113.7\"" lines.txt | wc -l | tr -d " " > n && test "$(cat n)" -gt 100 &&
	test -z "$(awk -F "\t" "\$3 == \"retry\" && \$5 == \"203.0.113.7\"" ev.tsv)"
'

expect_success 'the reloads between the phases, placed between their neighbours' '
	awk -F "\t" "\$3 == \"reload\" && \$21 == 1 { print \$2 }" ev.tsv > reloads &&
	test "$(wc -l < reloads)" -eq 2 &&
	head -n 1 reloads | within $((DS - 1000000)) $((DS + 1000000)) &&
	tail -n 1 reloads | within $((RS - 1000000)) $((RS + 1000000))
'

expect_success 'the Markdown report: the summary names the key and the end' '
	lbt-timeline --md $CFG inc.log | tr "\n" " " > md &&
	grep -q "Key $KEY went from" md && grep -q "Every series was back within its baseline" md &&
	grep -q "the tarpit gives way to deny" md
'

expect_success 'the index gives the same events' '
	lbt-index -d inc.db inc.log 2> /dev/null &&
	lbt-timeline --tsv $CFG --db inc.db | cut -f 1-23,25,26 > got &&
	cut -f 1-23,25,26 ev.tsv > expect && test_cmp expect got
'

expect_success 'the rfc3164 copy: the same story (HAProxy lines at their syslog seconds)' '
	zstd -dcq "$INC/haproxy-httplog-rfc3164.log.zst" > rfc.log &&
	lbt-timeline --tsv $CFG rfc.log | awk -F "\t" "\$3 !~ /^(reload|stop)\$/" |
		cut -f 1-5,7-21 > got &&
	awk -F "\t" "\$3 !~ /^(reload|stop)\$/" ev.tsv | cut -f 1-5,7-21 > expect &&
	test_cmp expect got
'

expect_success 'within the baseline, or the calm: no incident (the calm has the stop only)' '
	lbt-timeline --tsv $CFG --until 07:45:29 inc.log > base.tsv &&
	test "$(wc -l < base.tsv)" -eq 1 &&
	lbt-timeline --tsv $CFG --since 07:46:11 inc.log > calm.tsv &&
	awk -F "\t" "NR > 1 { print \$3 }" calm.tsv > got &&
	echo stop > expect && test_cmp expect got
'

test_done
