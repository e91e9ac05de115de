#!/bin/sh
# eval.sh - make eval and make eval-quick (docs/eval.md).
#
#   eval.sh quick BINDIR
#       lbt on the committed quick corpus (tests/data/corpus/*/), scored
#       and printed; exits 0 whatever the scores (non-zero only when a
#       case cannot be run or scored).
#   eval.sh full BINDIR "SEEDS" [CLASSES]
#       every class (or those named) played in the lab on each seed
#       (tests/lab/corpus.sh: root, network namespaces), lbt run on each,
#       scored against the goals; the table in bench/results/eval-DATE.md;
#       exits 1 when a goal is missed.  The cases stay in
#       EVAL_DIR (default build/eval); EVAL_REUSE=1 scores those already
#       there without the lab.  A case the lab fails is played once more.
#   eval.sh save CASE DEST
#       a case made by corpus.sh, compressed into DEST for the quick corpus
#       (logs, truth.tsv and events.tsv with zstd -19, configurations with
#       the run's paths replaced by /var/lib/lbtlab).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
CLASSES="flood-tarpit retry-storm surge distributed slow-headers dns-crashloop midnight-shapes calm"

usage() {
	awk 'NR > 2 && /^#/ { sub(/^# ?/, ""); print; next } NR > 2 { exit }' "$0" >&2
	exit 1
}

case ${1:-} in
quick)
	[ $# -eq 2 ] || usage
	bin=$(cd "$2" && pwd)
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
	pairs=""
	for case in "$top"/tests/data/corpus/*/; do
		case=${case%/}
		[ -f "$case/truth.json" ] && [ -f "$case/sources.txt" ] || continue
		name=$(basename "$case")
		sh "$top/tests/eval/run-lbt.sh" "$bin" "$case" "$work/$name" ||
			{ echo "eval: lbt failed on $name:" >&2; cat "$work/$name/errors.txt" >&2; exit 1; }
		pairs="$pairs $case=$work/$name"
	done
	[ -n "$pairs" ] || { echo "eval: no case in tests/data/corpus" >&2; exit 1; }
	# shellcheck disable=SC2086 # one word a pair
	/usr/bin/python3 "$top/tests/eval/score.py" --title "lbt on the quick corpus (tests/data/corpus)" $pairs
	;;
full)
	[ $# -ge 3 ] || usage
	bin=$(cd "$2" && pwd)
	seeds=$3
	classes=${4:-$CLASSES}
	dir=${EVAL_DIR:-$top/build/eval}
	mkdir -p "$dir" "$top/bench/results"
	pairs="" failed=""
	for cls in $classes; do
		for seed in $seeds; do
			case=$dir/$cls-$seed
			echo "eval: $cls seed $seed" >&2
			# EVAL_REUSE=1: score the cases already played (a changed
			# judgment, the same incidents)
			if [ "${EVAL_REUSE:-0}" = 1 ] && [ -f "$case/truth.json" ]; then
				:
			elif ! bash "$top/tests/lab/corpus.sh" --class "$cls" --seed "$seed" --out "$case" \
				>"$dir/$cls-$seed.log" 2>&1 &&
				! { echo "eval: $cls seed $seed again" >&2 &&
					bash "$top/tests/lab/corpus.sh" --class "$cls" --seed "$seed" --out "$case" \
						>"$dir/$cls-$seed.log" 2>&1; }; then
				echo "eval: the lab failed on $cls seed $seed (see $dir/$cls-$seed.log)" >&2
				failed="$failed $cls-$seed"
				continue
			fi
			sh "$top/tests/eval/run-lbt.sh" "$bin" "$case" "$case/answers" ||
				echo "eval: $(cat "$case/answers/errors.txt")" >&2
			pairs="$pairs $case=$case/answers"
		done
	done
	[ -n "$pairs" ] || { echo "eval: no case could be played" >&2; exit 1; }
	md=$top/bench/results/eval-$(date -u +%Y-%m-%d).md
	rc=0
	{
		echo "# make eval, $(date -u '+%Y-%m-%d %H:%M UTC')"
		echo
		echo "Seeds: $seeds. $(haproxy -v 2>/dev/null | head -1 | cut -d' ' -f1-3),"
		echo "$(nginx -v 2>&1 | head -1 | sed 's/^nginx version: //'), lbt $(git -C "$top" describe --always --dirty 2>/dev/null || echo '?')."
		echo "Goals and metrics: docs/eval.md."
		echo
		# shellcheck disable=SC2086
		/usr/bin/python3 "$top/tests/eval/score.py" --goals --json "$dir/scores.json" $pairs || rc=$?
		[ -z "$failed" ] || printf '\nCases the lab could not play (not scored):%s\n' "$failed"
	} >"$md.tmp"
	[ -z "$failed" ] || rc=1
	mv "$md.tmp" "$md"
	cat "$md"
	echo "eval: table in $md" >&2
	exit $rc
	;;
save)
	[ $# -eq 3 ] || usage
	src=$(cd "$2" && pwd)
	dest=$3
	rm -rf "$dest"
	mkdir -p "$dest/conf"
	for f in "$src"/haproxy-lb*.log "$src/truth.tsv" "$src/events.tsv"; do
		zstd -q -19 -f "$f" -o "$dest/$(basename "$f").zst"
	done
	for f in "$src"/conf/haproxy-lb*-*.cfg; do
		sed "s|$src|/var/lib/lbtlab|g" "$f" >"$dest/conf/$(basename "$f")"
	done
	sed 's/^\(haproxy-lb[0-9]*\.log\) /\1.zst /' "$src/sources.txt" >"$dest/sources.txt"
	cp "$src/truth.json" "$src/plan.json" "$dest/"
	;;
*) usage ;;
esac
