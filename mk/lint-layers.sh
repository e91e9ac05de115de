#!/bin/sh
# make lint: every #include of lib/, cmd/ and tests/unit/ respects the layers
# of lib/README.md.  A public header include/lbt/NAME.h belongs to the layer
# whose folder holds lib/LAYER/NAME.c (or NAME_*.c); the few headers without
# a .c of that name are listed in HEADER_ONLY.  An internal header
# (lib/LAYER/*_int.h) may be included only from its own folder.
# Prints one line per violation, "file:line: LAYER may not include NAME.h
# (LAYER2)", and exits 1 when there is any.
set -eu
cd "$(dirname "$0")/.."

# Which layers each layer may use (besides itself), lowest first.
allowed() {
	case $1 in
	base) echo "" ;;
	config) echo "base" ;;
	read) echo "base config" ;;
	db) echo "base config read" ;;
	analysis) echo "base" ;;
	out) echo "base" ;;
	report) echo "base analysis out audit rule judge" ;;
	run) echo "base config read db analysis" ;;
	audit) echo "base config read analysis run" ;;
	rule) echo "base" ;;
	judge) echo "base config read db analysis run audit rule" ;;
	cli) echo "base config read db analysis out report run audit rule judge" ;;
	cmd) echo "base config read db analysis out report run audit rule judge cli" ;;
	*) echo "?" ;;
	esac
}
HEADER_ONLY="str:base version:base format_builtin:read"

layer_of_header() {
	stem=$1
	for spec in $HEADER_ONLY; do
		[ "${spec%%:*}" = "$stem" ] && { echo "${spec#*:}"; return; }
	done
	for f in lib/*/"$stem".c lib/*/"$stem"_*.c; do
		[ -e "$f" ] || continue
		f=${f#lib/}
		echo "${f%%/*}"
		return
	done
	echo "?"
}

bad=0
for f in lib/*/*.c lib/*/*.h include/lbt/*.h cmd/*.c; do
	case $f in
	lib/*) layer=${f#lib/}; layer=${layer%%/*} ;;
	include/*) layer=$(layer_of_header "$(basename "$f" .h)") ;;
	cmd/*) layer=cmd ;;
	esac
	ok=$(allowed "$layer")
	if [ "$ok" = "?" ]; then
		echo "$f: layer '$layer' is not in lib/README.md"; bad=1; continue
	fi
	grep -n '^#include "' "$f" | while IFS= read -r hit; do
		line=${hit%%:*}
		inc=${hit#*\"}; inc=${inc%%\"*}
		case $inc in
		lbt/*)
			stem=$(basename "$inc" .h)
			to=$(layer_of_header "$stem")
			[ "$to" = "$layer" ] && continue
			case " $ok " in *" $to "*) continue ;; esac
			echo "$f:$line: $layer may not include $inc ($to)" ;;
		*/*) echo "$f:$line: $inc reaches into another folder" ;;
		*_int.h)
			case $f in
			lib/"$layer"/*) [ -e "lib/$layer/$inc" ] && continue ;;
			esac
			echo "$f:$line: $inc is internal to its folder" ;;
		esac
	done
done > "${TMPDIR:-/tmp}/lbt-lint.$$"
if [ -s "${TMPDIR:-/tmp}/lbt-lint.$$" ]; then
	cat "${TMPDIR:-/tmp}/lbt-lint.$$"
	bad=1
fi
rm -f "${TMPDIR:-/tmp}/lbt-lint.$$"
[ "$bad" -eq 0 ] && echo "layers: every include goes down or sideways as lib/README.md allows"
exit "$bad"
