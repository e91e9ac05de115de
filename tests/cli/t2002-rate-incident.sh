#!/bin/sh
# lbt-rate on the real-server incident capture (tests/data/incident, made by
# tests/lab/incident.sh): the flooded UUID comes first and its jump starts
# within 2 s of the start of the flood (phases.tsv, phase "tarpit").  The
# flooded UUID is found independently in truth.tsv: the one 203.0.113.7
# sent most.  A missing capture is a failure.
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
test_done
