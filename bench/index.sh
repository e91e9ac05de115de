#!/bin/bash
# Indexing speed and index size: lbt-index against `wc -l` on the same file,
# in the same run, and the size of the index against the raw log.
#   bench/index.sh [LINES|FILE] [BINDIR]     (defaults: 2000000, build/bin)
# A number generates that many lines with bench/genlog.sh (HAProxy httplog);
# a file is used as it is.  Each timing is the best of 3 runs, each into a
# fresh index (index creation at the end included).  The machine has 2
# cores and lbt-index uses both (parsing and SQLite): other load skews the
# wall time, so the CPU time (user + system) of the best run is shown too.
# Target (issue 4): >= 1.5 M lines/s, index <= 30 % of the raw size without
# --keep-raw; docs/index-design.md says where the per-row layout stands.
set -euo pipefail
arg=${1:-2000000}
bin=${2:-build/bin}
top=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
if [ -f "$arg" ]; then
	log=$arg
else
	log=$work/bench.log
	"$top/bench/genlog.sh" "$arg" > "$log"
fi
lines=$(wc -l < "$log")
bytes=$(stat -c %s "$log")
cat "$log" > /dev/null                     # same page cache for everyone

best() {        # best wall time in seconds of 3 runs of "$@" ($fresh: db removed before each);
	local b=999999 t c TIMEFORMAT='%R %U %S'     # its CPU seconds go to $work/cpu
	for _ in 1 2 3; do
		[ -n "$fresh" ] && rm -f "$work/b.db" "$work/b.db-wal" "$work/b.db-shm"
		read -r t u s < <({ time "$@" > /dev/null 2>&1; } 2>&1)
		c=$(echo "$u + $s" | bc -l)
		if [ "$(echo "$t < $b" | bc -l)" = 1 ]; then b=$t; echo "$c" > "$work/cpu"; fi
	done
	echo "$b"
}
row() {         # label seconds
	printf '%-36s %8.3f s %12.0f lines/s %7.2f x wc -l\n' "$1" "$2" \
		"$(echo "$lines / $2" | bc -l)" "$(echo "$2 / $wc" | bc -l)"
}
size() {        # bytes of an index with its WAL
	local n=0 f
	for f in "$1" "$1-wal"; do [ -e "$f" ] && n=$((n + $(stat -c %s "$f"))); done
	echo "$n"
}

fresh=1
wc=$(best wc -l "$log")
echo "file: $lines lines, $((bytes / 1048576)) MiB ($log)"
row "wc -l" "$wc"
t=$(best "$bin/lbt-index" -q -d "$work/b.db" "$log")
row "lbt-index" "$t"
printf '%-36s %8.3f s of CPU (user + system) in that run\n' "" "$(cat "$work/cpu")"
db=$(size "$work/b.db")
printf '%-36s %8.1f MiB %11.1f %% of the raw log\n' "index size" \
	"$(echo "$db / 1048576" | bc -l)" "$(echo "100 * $db / $bytes" | bc -l)"
fresh=
t=$(best "$bin/lbt-index" -q -d "$work/b.db" "$log")
row "lbt-index again (nothing new)" "$t"
rm -f "$work/b.db"*
s=$(date +%s.%N); "$bin/lbt-index" -q --keep-raw -d "$work/b.db" "$log" 2> /dev/null; e=$(date +%s.%N)
row "lbt-index --keep-raw (1 run)" "$(echo "$e - $s" | bc -l)"
db=$(size "$work/b.db")
printf '%-36s %8.1f MiB %11.1f %% of the raw log\n' "index size with --keep-raw" \
	"$(echo "$db / 1048576" | bc -l)" "$(echo "100 * $db / $bytes" | bc -l)"
