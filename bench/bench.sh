#!/bin/bash
# make bench: every job of the speed table, each paired with its yardstick
# in the same run (halog, HAProxy's own analyser, for the analyses; wc -l
# and zstd -dc | wc -l for reading), repeated; prints a Markdown table of
# medians, ratios (the median of the paired runs' ratios: below 1, lbt is
# faster), peak RSS and instructions per line (callgrind on a sample).
#
#   bench/bench.sh [BINDIR]        (default build/bin)
#
# Environment (make bench passes them on):
#   BENCH_LINES      lines of the main file (default 5000000: 1.16 GB)
#   BENCH_BIG_LINES  lines of the file where every request has its own /64
#                    (default 10000000; 0 skips that row)
#   BENCH_REPEAT     paired runs per job (default 3)
#   BENCH_CG_LINES   lines of the callgrind sample (default 200000; 0 skips)
#   BENCH_DATA       where the generated logs are kept between runs
#                    (default build/bench; generating them is most of the
#                    first run)
#   BENCH_ONLY       a comma list of groups to run (default all): analyses
#                    (the halog rows and peak memory), reading (lbt-cat,
#                    .zst), index (lbt-index and the --db reads), distinct,
#                    nginx; only the files those need are generated
#
# Wall-clock ratios are only as good as the machine is quiet: the load
# average at the start and the end is printed with the table, and the
# instruction counts, which do not depend on the load, are the figures to
# decide on.  Nothing here is a test: no figure fails the run.
set -euo pipefail
export LC_ALL=C
bin=$(cd "${1:-build/bin}" && pwd)
top=$(cd "$(dirname "$0")/.." && pwd)
lines=${BENCH_LINES:-5000000}
big=${BENCH_BIG_LINES:-10000000}
repeat=${BENCH_REPEAT:-3}
cg_lines=${BENCH_CG_LINES:-200000}
data=${BENCH_DATA:-$top/build/bench}
only=,${BENCH_ONLY:-analyses,reading,index,distinct,nginx},
halog=${HALOG:-/usr/sbin/halog}
mkdir -p "$data"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
start_s=$(date +%s)
load_start=$(cut -d " " -f 1-3 /proc/loadavg)

for tool in "$halog" /usr/bin/time zstd valgrind; do
	command -v "$tool" > /dev/null || { echo "bench.sh: $tool is missing (sh mk/deps.sh)" >&2; exit 1; }
done

# want GROUP - whether BENCH_ONLY asks for the rows of GROUP.
want() { case $only in *",$1,"*) return 0 ;; esac; return 1; }

# gen FILE GENLOG-ARGS... - generate $data/FILE once (a marker says it is whole).
gen() {
	local f=$data/$1
	shift
	if [ ! -e "$f.done" ]; then
		echo "bench: generating $f ($*)" >&2
		sh "$top/bench/genlog.sh" "$@" > "$f.tmp" && mv "$f.tmp" "$f" && touch "$f.done"
	fi
}
gen "main-$lines.log" --syslog --mix bench "$lines" 1
if want nginx; then
	gen "combined-$lines.log" --mix bench --format nginx-combined "$lines" 1
	gen "json-$lines.log" --mix bench --format nginx-json "$lines" 1
fi
main=$data/main-$lines.log combined=$data/combined-$lines.log json=$data/json-$lines.log
if want reading && [ ! -e "$main.zst.done" ]; then
	zstd -q -f -3 -T0 "$main" -o "$main.zst" && touch "$main.zst.done"
fi
want distinct || big=0
if [ "$big" -gt 0 ]; then
	gen "distinct64-$big.log" --syslog --mix distinct64 "$big" 2
	distinct=$data/distinct64-$big.log
fi
bytes=$(stat -c %s "$main")
cat "$main" $(want reading && echo "$main.zst") > /dev/null   # the same page cache for everyone

# measure CMD... - run CMD (stdout and stderr dropped); prints "seconds
# maxrss_kib cpu_seconds" (user + system, every thread: what the load of
# other processes changes least).
measure() {
	/usr/bin/time -f "%e %M %U %S" -o "$work/t" "$@" > /dev/null 2> "$work/err" || {
		echo "bench: failed: $*" >&2; sed 5q "$work/err" >&2; return 1; }
	tail -n 1 "$work/t" | awk '{ print $1, $2, $3 + $4 }'
}

# median - the median of the numbers on stdin.
median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# pair NAME PREP -- A... -- B... - run A then B, $repeat times (PREP, a
# shell command, before each A); sets a_s b_s ratio a_cpu b_cpu (medians)
# a_kb b_kb (largest peak RSS).
pair() {
	local name=$1 prep=$2 a=() b=() in=a
	shift 2
	[ "$1" = -- ] && shift
	while [ $# -gt 0 ]; do
		if [ "$1" = -- ]; then in=b; shift; continue; fi
		if [ $in = a ]; then a+=("$1"); else b+=("$1"); fi
		shift
	done
	: > "$work/$name.pairs"
	for _ in $(seq "$repeat"); do
		eval "$prep"
		ma=$(measure "${a[@]}") || exit 1
		mb=$(measure "${b[@]}") || exit 1
		echo "$ma $mb" >> "$work/$name.pairs"
	done
	a_s=$(awk '{ print $1 }' "$work/$name.pairs" | median)
	b_s=$(awk '{ print $4 }' "$work/$name.pairs" | median)
	ratio=$(awk '{ print ($4 > 0 ? $1 / $4 : "nan") }' "$work/$name.pairs" | median)
	a_cpu=$(awk '{ print $3 }' "$work/$name.pairs" | median)
	b_cpu=$(awk '{ print $6 }' "$work/$name.pairs" | median)
	a_kb=$(awk 'm < $2 { m = $2 } END { print m }' "$work/$name.pairs")
	b_kb=$(awk 'm < $5 { m = $5 } END { print m }' "$work/$name.pairs")
	echo "bench: $name: $a_s s / $b_s s = $ratio (CPU $a_cpu s / $b_cpu s)" >&2
}

# instr FILE CMD... - instructions per line of CMD on the first $cg_lines
# lines of FILE (callgrind, every thread and child process), "" when
# skipped.  @@ in CMD stands for the sample file.
instr() {
	local f=$1 n refs
	shift
	[ "$cg_lines" -gt 0 ] || { echo ""; return; }
	if [ ! -e "$work/$(basename "$f").cg" ]; then
		head -n "$cg_lines" "$f" > "$work/$(basename "$f").cg"
	fi
	n=$(wc -l < "$work/$(basename "$f").cg")
	local cmd=() x
	for x in "$@"; do cmd+=("${x//@@/$work/$(basename "$f").cg}"); done
	# every process (sh -c pipelines), their counts summed
	refs=$(valgrind --tool=callgrind --trace-children=yes --callgrind-out-file=/dev/null \
		"${cmd[@]}" 2>&1 > /dev/null | sed -n 's/.*refs: *//p' | tr -d , |
		awk '{ s += $1 } END { print s + 0 }')
	awk -v r="$refs" -v n="$n" 'BEGIN { printf "%.0f", r / n }'
}

fmt_s() { awk -v s="$1" -v n="$2" 'BEGIN { printf "%.2f s, %.2f M lines/s", s, (s > 0 ? n / s / 1e6 : 0) }'; }
# fmt_sc SECONDS CPU_SECONDS LINES - fmt_s and the CPU time.
fmt_sc() { printf '%s (CPU %s s)' "$(fmt_s "$1" "$3")" "$2"; }
fmt_mib() { awk -v k="$1" 'BEGIN { printf "%.0f MiB", k / 1024 }'; }
ratio2() { awk -v r="$1" 'BEGIN { printf "%.2f", r }'; }

rows=$work/rows
: > "$rows"
# row JOB LBT YARD RATIO GOAL INSTR_LBT INSTR_YARD RSS
row() { printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$@" >> "$rows"; }

tsv=(--tsv)
# -- the analyses against halog
if want analyses; then
pair rate : -- "$bin/lbt-rate" "${tsv[@]}" "$main" -- sh -c "$halog -u < '$main'"
row "per key: lbt-rate vs \`halog -u\`" "$(fmt_s "$a_s" "$lines")" "$(fmt_s "$b_s" "$lines")" \
	"$(ratio2 "$ratio")" "<= 0.33" "$(instr "$main" "$bin/lbt-rate" --tsv @@)" \
	"$(instr "$main" sh -c "$halog -u < @@")" "$(fmt_mib "$a_kb") / $(fmt_mib "$b_kb")"
rate_s=$a_s rate_kb=$a_kb halog_u_kb=$b_kb
pair offenders : -- "$bin/lbt-offenders" "${tsv[@]}" "$main" -- sh -c "$halog -ic < '$main'"
row "per source, /32 + /64: lbt-offenders vs \`halog -ic\`" "$(fmt_s "$a_s" "$lines")" \
	"$(fmt_s "$b_s" "$lines")" "$(ratio2 "$ratio")" "<= 0.17" \
	"$(instr "$main" "$bin/lbt-offenders" --tsv @@)" "$(instr "$main" sh -c "$halog -ic < @@")" \
	"$(fmt_mib "$a_kb") / $(fmt_mib "$b_kb")"
off_s=$a_s off_kb=$a_kb halog_ic_kb=$b_kb
pair tarpit : -- "$bin/lbt-tarpit" "${tsv[@]}" "$main" -- sh -c "$halog -tcn PT -ic < '$main'"
row "tarpit + occupancy: lbt-tarpit vs \`halog -tcn PT -ic\`" "$(fmt_s "$a_s" "$lines")" \
	"$(fmt_s "$b_s" "$lines")" "$(ratio2 "$ratio")" "<= 1.0" \
	"$(instr "$main" "$bin/lbt-tarpit" --tsv @@)" "$(instr "$main" sh -c "$halog -tcn PT -ic < @@")" \
	"$(fmt_mib "$a_kb") / $(fmt_mib "$b_kb")"
fi

# -- reading against wc -l
if want reading; then
pair cat : -- "$bin/lbt-cat" --fields time,client,status "$main" -- wc -l "$main"
row "\`lbt-cat --fields time,client,status\` vs \`wc -l\`" "$(fmt_s "$a_s" "$lines")" \
	"$(fmt_s "$b_s" "$lines")" "$(ratio2 "$ratio")" ">= 5 M lines/s" \
	"$(instr "$main" "$bin/lbt-cat" --fields time,client,status @@)" "$(instr "$main" wc -l @@)" \
	"$(fmt_mib "$a_kb") / $(fmt_mib "$b_kb")"
pair json : -- "$bin/lbt-cat" --json "$main" -- wc -l "$main"
row "\`lbt-cat --json\` (every field) vs \`wc -l\`" "$(fmt_s "$a_s" "$lines")" \
	"$(fmt_s "$b_s" "$lines")" "$(ratio2 "$ratio")" ">= 2.5 M lines/s" \
	"$(instr "$main" "$bin/lbt-cat" --json @@)" "$(instr "$main" wc -l @@)" \
	"$(fmt_mib "$a_kb") / $(fmt_mib "$b_kb")"
pair zst : -- "$bin/lbt-cat" --fields time,client,status "$main.zst" -- sh -c "zstd -dc '$main.zst' | wc -l"
row ".zst: \`lbt-cat --fields\` vs \`zstd -dc \\| wc -l\`" "$(fmt_s "$a_s" "$lines")" \
	"$(fmt_s "$b_s" "$lines")" "$(ratio2 "$ratio")" "<= 1.1" "" "" \
	"$(fmt_mib "$a_kb") / $(fmt_mib "$b_kb")"
fi

# -- the index: load (into a fresh file each time), size, reads
if want index; then
db=$data/bench.db
pair index "rm -f '$db' '$db-wal' '$db-shm'" -- "$bin/lbt-index" -q -d "$db" "$main" -- wc -l "$main"
dbbytes=$(stat -c %s "$db")
rm -f "$work/s.db"*
row "lbt-index vs \`wc -l\`" "$(fmt_sc "$a_s" "$a_cpu" "$lines"), DB $(awk -v d="$dbbytes" -v r="$bytes" \
	'BEGIN { printf "%.1f %% of the raw log", 100 * d / r }')" "$(fmt_s "$b_s" "$lines")" \
	"$(ratio2 "$ratio")" ">= 1 M lines/s, DB <= 40 %" \
	"$(instr "$main" sh -c "rm -f $work/s.db*; $bin/lbt-index -q -d $work/s.db @@")" \
	"$(instr "$main" wc -l @@)" "$(fmt_mib "$a_kb") / $(fmt_mib "$b_kb")"
# the sample's index for the instruction counts of --db reads
if [ "$cg_lines" -gt 0 ]; then
	rm -f "$work/s.db"*
	"$bin/lbt-index" -q -d "$work/s.db" "$work/$(basename "$main").cg"
fi
for prog in lbt-offenders lbt-rate; do
	pair "$prog-db" : -- "$bin/$prog" --tsv --db "$db" -- "$bin/$prog" --tsv "$main"
	row "$prog --db (whole range) vs the raw log" "$(fmt_sc "$a_s" "$a_cpu" "$lines")" \
		"$(fmt_sc "$b_s" "$b_cpu" "$lines")" "$(ratio2 "$ratio")" "<= 0.33" \
		"$(instr "$main" "$bin/$prog" --tsv --db "$work/s.db")" \
		"$(instr "$main" "$bin/$prog" --tsv @@)" "$(fmt_mib "$a_kb") / $(fmt_mib "$b_kb")"
done
fi

# -- peak memory of the first two rows
want analyses && row "peak memory, lbt-rate / lbt-offenders vs halog -u / -ic" \
	"$(fmt_mib "$rate_kb") / $(fmt_mib "$off_kb")" \
	"$(fmt_mib "$halog_u_kb") / $(fmt_mib "$halog_ic_kb")" \
	"$(awk -v a="$rate_kb" -v b="$halog_u_kb" -v c="$off_kb" -v d="$halog_ic_kb" \
	'BEGIN { printf "%.2f / %.2f", a / b, c / d }')" "<= 64 MiB each" "" "" ""

# -- every request from its own /64
if [ "$big" -gt 0 ]; then
	pair distinct : -- "$bin/lbt-offenders" --tsv "$distinct" -- sh -c "$halog -ic < '$distinct'"
	row "lbt-offenders on $big distinct IPv6 /64s vs \`halog -ic\`" "$(fmt_s "$a_s" "$big")" \
		"$(fmt_s "$b_s" "$big")" "$(ratio2 "$ratio")" "<= 1 GiB, exact top N, <= 0.5x halog's time" \
		"" "" "$(fmt_mib "$a_kb") / $(fmt_mib "$b_kb")"
fi

# -- NGINX: lbt-rate on the same traffic, against lbt-rate on HAProxy's
want nginx || combined= json=
for f in ${combined:+combined} ${json:+json}; do
	file=$data/$f-$lines.log
	pair "nginx-$f" : -- "$bin/lbt-rate" --tsv "$file" -- "$bin/lbt-rate" --tsv "$main"
	row "NGINX $f, lbt-rate vs lbt-rate on the HAProxy log" "$(fmt_s "$a_s" "$lines")" \
		"$(fmt_s "$b_s" "$lines")" "$(ratio2 "$ratio")" "<= 1.5" \
		"$(instr "$file" "$bin/lbt-rate" --tsv @@)" "$(instr "$main" "$bin/lbt-rate" --tsv @@)" \
		"$(fmt_mib "$a_kb") / $(fmt_mib "$b_kb")"
done

load_end=$(cut -d " " -f 1-3 /proc/loadavg)
elapsed=$(( $(date +%s) - start_s ))
{
	echo "Measured $(date -u +%Y-%m-%d) on $(nproc) cores, load average $load_start at the start and $load_end at the end."
	echo "CPU: user + system seconds of every thread (lbt-index runs two), medians."
	echo "$lines HAProxy httplog lines with a syslog header ($(awk -v b="$bytes" 'BEGIN { printf "%.2f GB", b / 1e9 }'), bench/genlog.sh --mix bench); medians of $repeat paired runs (ratio: lbt's time over the yardstick's, below 1 lbt is faster); instructions per line by callgrind on the first $cg_lines lines (lbt-index: both threads); $elapsed s in all."
	echo
	echo "| job | lbt | yardstick | ratio | goal | lbt instr/line | yardstick instr/line | peak RSS lbt / yardstick |"
	echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
	cat "$rows"
} | tee "$data/bench.md"
