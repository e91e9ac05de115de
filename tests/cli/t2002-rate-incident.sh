#!/bin/sh
# lbt-rate on the real-server incident capture (tests/data/incident, made by
# tests/lab/incident.sh): the flooded UUID comes first and its jump starts
# within 2 s of the start of the flood (phases.tsv, phase "tarpit").  The
# flooded UUID is found independently in truth.tsv: the one 203.0.113.7
# sent most.  Then its change points against the truth: its baseline is
# its requests before the flood over their seconds (awk on the log); it
# has two episodes, the tarpit flood and the deny flood (tarpit held every
# slot, so HAProxy logged 57/s; deny answers at once: 200/s), each starting
# within 1 s of its phase and with a mean within 5 % of awk's over the
# phase; the /64 and 203.0.113.7, absent before, are new from the flood
# start; 429 and PR-- (deny) are new from the deny phase.  A missing
# capture is a failure.
. "$(dirname "$0")/lib.sh"

inc=${LBT_INCIDENT:-$DATA/incident}
# Copy FILE of the capture here, decompressed.  @return 1 when absent.
get() {
	if [ -e "$inc/$1.zst" ]; then zstd -q -dc "$inc/$1.zst" > "$1"
	elif [ -e "$inc/$1" ]; then cp "$inc/$1" "$1"
	else return 1; fi
}
if ! get haproxy-httplog.log || ! get phases.tsv || ! get truth.tsv; then
	missing "the incident capture in $inc"
fi

flood=$(awk -F'\t' '$2 == "203.0.113.7" { n[$6]++ } END { for (k in n) if (n[k] > m) { m = n[k]; u = k } print u }' truth.tsv)
start=$(awk -F'\t' '$1 == "tarpit" { printf "%d\n", $2 / 1000000 }' phases.tsv)
# Phase start and end as seconds of the day with their decimals (the log
# is one day, UTC).
phase() { awk -F'\t' -v p="$1" -v c="$2" '$1 == p { printf "%.6f\n", ($c % 86400000000) / 1e6 }' phases.tsv; }
t_start=$(phase tarpit 2) d_start=$(phase deny 2) r_start=$(phase reject 2)

# Requests of the log matching pattern $1 (a fixed string) in [$2, $3)
# (seconds of the day), a second: "rate count".  The time of a request
# line is its second field, [30/Nov/2026:07:45:10.548].
rate_in() {
	awk -v k="$1" -v a="$2" -v b="$3" '$2 ~ /^\[/ && index($0, k) {
		split(substr($2, 14, 12), t, ":"); s = t[1] * 3600 + t[2] * 60 + t[3]
		if (s >= a && s < b) n++ } END { printf "%.4f %d\n", n / (b - a), n }' haproxy-httplog.log
}
# ISO 8601 time (whole seconds) to seconds of the day.
sod() { echo $(( $(date -u -d "$1" +%s) % 86400 )); }
# Succeed when |$1 - $2| <= $3 (decimals).
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; exit !(d <= t && -d <= t) }'; }
# Succeed when $1 is within $3 (a fraction) of $2.
within() { awk -v a="$1" -v b="$2" -v f="$3" 'BEGIN { d = a - b; exit !(b > 0 && d <= f * b && -d <= f * b) }'; }

expect_success 'the flooded UUID is named first' '
	test -n "$flood" &&
	lbt-rate --no-header haproxy-httplog.log > out &&
	test "$(head -n 1 out | cut -f 1)" = "$flood"
'

expect_success 'its jump starts within 2 s of the flood' '
	j=$(head -n 1 out | cut -f 6) && test -n "$j" &&
	d=$(( $(date -u -d "$j" +%s) - start )) &&
	test "$d" -ge -2 && test "$d" -le 2
'

expect_success 'its total equals the lines with it in the log (awk)' '
	n=$(awk -v u="$flood" "\$2 ~ /^\\[/ && index(\$0, u)" haproxy-httplog.log | wc -l) &&
	test "$(head -n 1 out | cut -f 2)" = "$n"
'

# The input's first second is that of the first request line; the flood's
# first is the tarpit phase's.  (The median of its whole counts a second,
# what the jump search took, is 1.)
expect_success 'its baseline: its requests before the flood over their seconds (awk)' '
	first=$(awk "\$2 ~ /^\\[/ { split(substr(\$2, 14, 8), t, \":\"); print t[1] * 3600 + t[2] * 60 + t[3]; exit }" haproxy-httplog.log) &&
	fs=${t_start%.*} &&
	want=$(rate_in "$flood" "$first" "$fs" | awk -v a="$first" -v b="$fs" "{ printf \"%.2f\", \$2 / (b - a) }") &&
	test "$(head -n 1 out | cut -f 5)" = "$want" && test "$want" != 0.00
'

expect_success 'two episodes: the tarpit flood and the deny flood, each with its own mean' '
	lbt-rate --episodes --top 1 --no-header haproxy-httplog.log > ep &&
	test "$(wc -l < ep)" = 2 && test "$(cut -f 2 ep | sort -u)" = rise &&
	s1=$(sed -n 1p ep | cut -f 3) m1=$(sed -n 1p ep | cut -f 7) &&
	s2=$(sed -n 2p ep | cut -f 3) m2=$(sed -n 2p ep | cut -f 7) &&
	near "$(sod "$s1")" "$t_start" 1 && near "$(sod "$s2")" "$d_start" 1 &&
	set -- $(rate_in "$flood" "$t_start" "$d_start") && echo "tarpit: $m1 vs awk $1" &&
	within "$m1" "$1" 0.05 &&
	set -- $(rate_in "$flood" "$d_start" "$r_start") && echo "deny: $m2 vs awk $1" &&
	within "$m2" "$1" 0.05 &&
	test "$(head -n 1 out | cut -f 10)" = 2
'

# --by net: key, baseline_rps, first_seen.  Then each offender's episodes
# against awk's rate over the phases.
expect_success 'the /64 and 203.0.113.7: new, first seen at the flood start (phases.tsv)' '
	lbt-rate --by net --no-header haproxy-httplog.log > net &&
	for s in 2001:db8:bad:1::/64 203.0.113.7; do
		row=$(awk -F"\t" -v s="$s" "\$1 == s" net) && test -n "$row" &&
		test "$(echo "$row" | cut -f 5)" = new &&
		near "$(sod "$(echo "$row" | cut -f 9)")" "$t_start" 1 || exit 1
	done
'
expect_success 'their episodes start at the phases, their means within 5 % of awk' '
	lbt-rate --by net --episodes --top 2 --no-header haproxy-httplog.log > nep &&
	test "$(wc -l < nep)" = 4 &&
	for s in 2001:db8:bad:1::/64 203.0.113.7; do
		k=${s%/64}; k=${k%::}; k=$k: &&
		awk -F"\t" -v s="$s" "\$1 == s" nep > one &&
		set -- $(rate_in "$k" "$t_start" "$d_start") $(rate_in "$k" "$d_start" "$r_start") &&
		echo "$s: $(cut -f 3,7 one | tr "\n" " ") awk $1 $3" &&
		near "$(sod "$(sed -n 1p one | cut -f 3)")" "$t_start" 1 &&
		near "$(sod "$(sed -n 2p one | cut -f 3)")" "$d_start" 1 &&
		within "$(sed -n 1p one | cut -f 7)" "$1" 0.05 &&
		within "$(sed -n 2p one | cut -f 7)" "$3" 0.05 || exit 1
	done
'

# No 429 and no PR-- before the deny phase: the jump search gave them the
# median of their flood seconds for a baseline.
expect_success '429 and PR--: new, first seen at the deny phase' '
	r=$(lbt-rate --by status --no-header haproxy-httplog.log | awk -F"\t" "\$1 == 429") &&
	t=$(lbt-rate --by term --no-header haproxy-httplog.log | awk -F"\t" "\$1 == \"PR--\"") &&
	test "$(echo "$r" | cut -f 5)" = new && test "$(echo "$t" | cut -f 5)" = new &&
	near "$(sod "$(echo "$r" | cut -f 9)")" "$d_start" 1 &&
	near "$(sod "$(echo "$t" | cut -f 9)")" "$d_start" 1
'

# The 200s rose to 4.7 times their rate in the tarpit phase, under the
# factor of 5: no episode, and a baseline that is their rate before it,
# not the mean with the flood in it.
expect_success 'status 200: its baseline is its rate before the flood (awk)' '
	first=$(awk "\$2 ~ /^\\[/ { split(substr(\$2, 14, 8), t, \":\"); print t[1] * 3600 + t[2] * 60 + t[3]; exit }" haproxy-httplog.log) &&
	fs=${t_start%.*} &&
	want=$(awk -v a="$first" -v b="$fs" "\$2 ~ /^\\[/ && \$6 == 200 {
		split(substr(\$2, 14, 8), t, \":\"); s = t[1] * 3600 + t[2] * 60 + t[3]
		if (s < b) n++ } END { printf \"%.2f\", n / (b - a) }" haproxy-httplog.log) &&
	test "$(lbt-rate --by status --no-header haproxy-httplog.log | awk -F"\t" "\$1 == 200" | cut -f 5)" = "$want"
'
test_done
