#!/bin/bash
# Throughput of the lbt programs against `wc -l` on the same file, same run.
#   bench/run.sh [LINES] [BINDIR]      (defaults: 2000000, build/bin)
#   THREADS="1 2" bench/run.sh ...     the --threads values to run (default 1 2)
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
# halog (Debian's haproxy package), single-threaded: the yardsticks of issue 13
if command -v halog > /dev/null; then
	for h in "-u" "-ic" "-tcn PT -ic"; do
		row "halog $h (< file)" "$(best sh -c "halog $h < '$log'")"
	done
fi
# THREADS="1 2" (default): each analysis on one thread, then on two (--threads)
for t in ${THREADS:-1 2}; do
	for cmd in "lbt-cat --format haproxy-httplog --fields time,client,status" \
	           "lbt-cat --fields time,client,status" \
	           "lbt-rate --tsv" "lbt-offenders --tsv" "lbt-tarpit --tsv" "lbt-timeline --tsv" \
	           "lbt-triage"; do
		prog=${cmd%% *}
		[ -x "$bin/$prog" ] || { echo "$prog: not built, skipped"; continue; }
		row "$cmd -j$t" "$(best "$bin"/$cmd --threads "$t" "$log")"
	done
	[ -x "$bin/lbt-cat" ] && row "lbt-cat (same file, .zst) -j$t" \
		"$(best "$bin/lbt-cat" --threads "$t" --fields time,client,status "$log.zst")"
	[ -x "$bin/lbt-rate" ] && row "lbt-rate (same file, .zst) -j$t" \
		"$(best "$bin/lbt-rate" --threads "$t" --tsv "$log.zst")"
done
row "zstd -dc | wc -l" "$(best sh -c "zstd -qdc '$log.zst' | wc -l")"
exit 0
