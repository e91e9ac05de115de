#!/bin/sh
# A line's fields do not depend on the lines around it (issue 19, item 4):
# every line of every log fixture under tests/data, read alone by lbt-cat
# --json, gives the record it gives inside its file (or none in both).
# Each line goes into a file of its own with the fixture's mtime (the year
# of an RFC 3164 stamp comes from it), and one lbt-cat reads all those
# files: each is detected alone.  A fixture with a .template beside it is
# read with it as --log-format, in both runs.
. "$(dirname "$0")/lib.sh"

# The record of each line, keyed by its line number, provenance dropped.
by_line() {
	sed -n 's/^\(.*\),"file":"[^"]*","line":\([0-9]*\)}$/\2\t\1}/p' "$1" | sort -k1,1n
}

# check FIXTURE: 0 when every line alone reads as in the file.
check() {
	fx=$1 name=$(basename "$1") tpl=
	case $fx in
	*.zst) zstd -dcq "$fx" > whole ;;
	*) cat "$fx" > whole ;;
	esac
	touch -r "$fx" whole
	for t in "${fx%.log*}.template"; do [ -f "$t" ] && tpl=$t; done
	rm -rf alone && mkdir alone &&
	awk '{ f = sprintf("alone/%06d", NR); print > f; close(f) }' whole &&
	find alone -type f -exec touch -r "$fx" {} + || return 1
	if [ -n "$tpl" ]; then
		set -- --log-format "$(cat "$tpl")"
	else
		set --
	fi
	lbt-cat --json "$@" whole > w.json 2> /dev/null
	rc=$?
	[ "$rc" -le 3 ] || { echo "$name: lbt-cat exit $rc"; return 1; }
	ls alone | sed 's|^|alone/|' > list
	xargs lbt-cat --json "$@" < list > a.json 2> /dev/null
	rc=$?
	# xargs says 123 when an lbt-cat exited 1..125 (a line no format reads: 3)
	[ "$rc" -eq 0 ] || [ "$rc" -eq 123 ] || { echo "$name: lbt-cat alone exit $rc"; return 1; }
	by_line w.json > w.tsv
	sed -n 's|^\(.*\),"file":"alone/0*\([0-9]*\)","line":1}$|\2\t\1}|p' a.json |
	    sort -k1,1n > a.tsv
	if ! cmp -s w.tsv a.tsv; then
		echo "$name: lines read differently alone (< in the file, > alone):"
		diff w.tsv a.tsv | head -20
		return 1
	fi
	echo "$name: $(wc -l < w.tsv) records of $(wc -l < whole) lines"
}

find "$DATA" -type f \( -name '*.log' -o -name '*.log.zst' -o -name '*.stderr' \
    -o -name '*.txt' \) ! -name 'sources.txt' | sort > fixtures
test "$(wc -l < fixtures)" -ge 40 || missing "the log fixtures of tests/data"

while read -r fx; do
	expect_success "$(basename "$fx"): every line alone as in its file" "check '$fx'"
done < fixtures

test_done
