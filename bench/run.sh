#!/bin/bash
# Throughput of the lbt programs against `wc -l` on the same file, same run.
#   bench/run.sh [LINES] [BINDIR]      (defaults: 2000000, build/bin)
# Machines are noisy: compare the ratios, not absolute times between runs.
# Each command runs 3 times; the best time is kept.
set -euo pipefail
lines=${1:-2000000}
bin=${2:-build/bin}
top=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
log=$work/bench.log
"$top/bench/genlog.sh" "$lines" > "$log"
zstd -q -3 "$log" -o "$log.zst"
bytes=$(stat -c %s "$log")

best() {        # best wall time in seconds of 3 runs of "$@"
	local b=999999 t s e
	for _ in 1 2 3; do
		s=$(date +%s.%N); "$@" > /dev/null 2>&1; e=$(date +%s.%N)
		t=$(echo "$e - $s" | bc -l); b=$(echo "if ($t < $b) $t else $b" | bc -l)
	done
	echo "$b"
}
row() {         # label seconds
	printf '%-34s %8.3f s %12.0f lines/s %7.2f x wc -l\n' "$1" "$2" \
		"$(echo "$lines / $2" | bc -l)" "$(echo "$2 / $wc" | bc -l)"
}
wc=$(best wc -l "$log")
echo "file: $lines lines, $((bytes / 1048576)) MiB (haproxy-httplog, bench/genlog.sh)"
row "wc -l" "$wc"
for cmd in "lbt-cat --format haproxy-httplog --fields time,client,status" \
           "lbt-cat --fields time,client,status" \
           "lbt-rate --tsv" "lbt-offenders --tsv" "lbt-tarpit --tsv" "lbt-timeline --tsv" "lbt-triage"; do
	prog=${cmd%% *}
	[ -x "$bin/$prog" ] || { echo "$prog: not built, skipped"; continue; }
	row "$cmd" "$(best "$bin"/$cmd "$log")"
done
[ -x "$bin/lbt-cat" ] && row "lbt-cat (same file, .zst)" \
	"$(best "$bin/lbt-cat" --fields time,client,status "$log.zst")"
exit 0
