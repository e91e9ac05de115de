#!/bin/sh
# The texts that cannot drift: every example of README.md and of the man
# pages' EXAMPLES is run on the bundled data, in the directory its marker
# names (tests/cli/docs-examples.awk), and the lines the text shows must
# come out, in order (stderr after stdout; whitespace runs count as one space; a shown line
# ending in "..." is a prefix; a "..." line stands for lines left out).
# An example that needs a live system says so in its marker (skip), and
# an example without a marker fails: a new one cannot be left unchecked.
# Each command must exit 0, 4 or 5 (an answer; docs/exit-status.md).
. "$LBT_TOP/tests/cli/lib.sh"

test_have timeout || missing timeout
unset COLUMNS
cp -R "$DATA" "$tmp/data" || missing "a copy of tests/data"
mkdir ex
awk -v out=ex -f "$TOP/tests/cli/docs-examples.awk" "$TOP/README.md" "$TOP"/man/*.[15] ||
	missing "the examples of README.md and man/"

# Squeeze whitespace runs to one space and drop the ends of each line.
squeeze() { sed 's/[[:space:]][[:space:]]*/ /g; s/^ //; s/ $//' "$@"; }

# shown_in EXP OUT: every line of EXP (but "..." lines) is a line of OUT,
# in order; a line ending in "..." is the start of one.
shown_in() {
	squeeze "$1" > exp.sq; squeeze "$2" > out.sq
	awk 'FILENAME == "exp.sq" { if ($0 != "..." && $0 != "") want[++n] = $0; next }
	function ok(w, l) {
		if (w ~ /\.\.\.$/) return index(l, substr(w, 1, length(w) - 3)) == 1
		return w == l
	}
	k < n && ok(want[k + 1], $0) { k++ }
	END { if (k < n) { print "not shown: " want[k + 1]; exit 1 } }' exp.sq out.sq
}

# run_example N DIR: its commands in a copy of DIR (of tests/data), output
# and status checked.
run_example() {
	_dir=$tmp/data/${2#tests/data}
	[ -d "$_dir" ] || { echo "no directory $2"; return 1; }
	: > out.$1
	for _c in ex/$1.cmd.*; do
		[ -e "$_c" ] || continue
		(cd "$_dir" && timeout 60 sh "$tmp/$_c" < /dev/null) >> out.$1 2> err.$1
		_rc=$?
		cat err.$1 >> out.$1      # notes after the output, as a reader sees them
		case $_rc in 0 | 4 | 5) ;;
		*) echo "exit $_rc: $(cat "$_c")"; cat out.$1; return 1 ;;
		esac
	done
	shown_in ex/$1.exp out.$1 || { echo "--- output:"; cat out.$1; return 1; }
}

expect_success 'examples were found in README.md and the man pages' '
	[ "$(ls ex/*.where | wc -l)" -ge 40 ]
'

for w in ex/*.where; do
	i=$(basename "$w" .where)
	set -- $(cat "$w")
	where=${1#"$TOP"/}; kind=$2; arg=${3-}
	case $kind in
	run) expect_success "$where: $(head -c 60 ex/$i.cmd.1)" "run_example $i $arg" ;;
	skip) skip "$*" "$where" ;;
	*) expect_success "$where: the example has a marker (lbt-example: run/skip)" false ;;
	esac
done

# mk/demo.sh reads lbt-triage's status by docs/exit-status.md: 5 (ongoing)
# is a finding like 4, not a failure of the demo.
expect_success 'make demo takes exit 5 (an anomaly going on) as a finding' '
	mkdir fake && for p in lbt-rate lbt-offenders lbt-tarpit; do
		ln -s "$LBT_BIN/$p" fake/$p || return 1; done &&
	printf "#!/bin/sh\necho triaged\nexit 5\n" > fake/lbt-triage && chmod +x fake/lbt-triage &&
	(cd "$TOP" && sh mk/demo.sh "$tmp/fake") > demo.out 2>&1 &&
	grep -q "exit status 5: an anomaly, still going on" demo.out
'
expect_success 'make demo names exit 4 an anomaly over by now' '
	mkdir fake4 && for p in lbt-rate lbt-offenders lbt-tarpit; do
		ln -s "$LBT_BIN/$p" fake4/$p || return 1; done &&
	printf "#!/bin/sh\nexit 4\n" > fake4/lbt-triage && chmod +x fake4/lbt-triage &&
	(cd "$TOP" && sh mk/demo.sh "$tmp/fake4") > demo4.out 2>&1 &&
	grep -q "exit status 4: an anomaly, over by now" demo4.out
'
expect_failure 1 'make demo fails on lbt-triage exit 3 (an input not read)' '
	mkdir fake3 && printf "#!/bin/sh\nexit 3\n" > fake3/lbt-triage &&
	chmod +x fake3/lbt-triage && (cd "$TOP" && sh mk/demo.sh "$tmp/fake3")
'

# lbt help NAME from the build tree: the page next to the sources, found
# from the binary's directory (not installed, not in MANPATH).
expect_success 'lbt help rate works uninstalled' '
	test_have man || { echo "man is missing"; return 1; }
	MANPATH=/nonexistent MANPAGER=cat lbt help rate > help.out 2>&1 &&
	grep -q "request rates per key" help.out
'
test_done
