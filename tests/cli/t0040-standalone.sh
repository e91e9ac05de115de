#!/bin/sh
# The repository stands alone: no file it tracks points at documents that
# are not in it (the notes that once lived beside the project, outside the
# tree, by their three names or by their folder).  What lbt relies on about
# the logs is written in docs/formats.md; the design in docs/.  Also, every
# CLI script has a number of its own.  The tree is what git tracks, or
# every file under the top when this is not a git checkout (a tarball).
. "$(dirname "$0")/lib.sh"

# The names, spelt so that this script does not name them itself.
OUTSIDE='[.][.]/shared|log-formats[.]md|DESIGN[.]md|STYLE[.]md'

# files - the tracked files, relative to the top, one a line
files() {
	if git -C "$TOP" rev-parse --is-inside-work-tree > /dev/null 2>&1; then
		git -C "$TOP" ls-files
	else
		(cd "$TOP" && find . -path ./build -prune -o -type f -print | sed "s|^\./||")
	fi
}

expect_success 'the tree lists its files (git ls-files or find)' '
	files > list &&
	grep -qx "docs/formats.md" list && grep -qx "README.md" list
'

expect_success 'no tracked file names a document outside the repository' '
	files > list &&
	(cd "$TOP" && while IFS= read -r f; do
		[ -f "$f" ] && grep -I -n -E "$OUTSIDE" "$f" /dev/null
	done) < list > hits ;
	test ! -s hits || { cat hits; false; }
'

expect_success 'the check finds a mention when there is one' '
	printf "see %s\n" "log-formats" > probe && sed -i "s/\$/.md/" probe &&
	grep -q -E "$OUTSIDE" probe
'

expect_success 'every tests/cli script has a number of its own' '
	files | sed -n "s|^tests/cli/\(t[0-9]*\)-.*\.sh$|\1|p" | sort | uniq -d > dup &&
	test ! -s dup || { cat dup; false; }
'

expect_success 'docs/formats.md has the sections the code cites' '
	for s in "Built-in formats" "HAProxy lines" "Log-format items" "Connection errors" \
	    "Lines without a stream" "HAProxy 1.5 and 1.6" "Dates and the clock of a record" \
	    "Timers" "Termination states" "Counters and queues" "Escaping" "JSON and CBOR" \
	    "NGINX" "NGINX error log" "Syslog wrappers" "Years and zones" "Addresses" \
	    "The key"; do
		grep -qx "## $s" "$TOP/docs/formats.md" || { echo "no section: $s"; exit 1; }
	done
'

test_done
