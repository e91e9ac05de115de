#!/bin/sh
# lbt dispatcher, --help, --version, usage errors, SYNOPSIS = usage().
test_description='lbt dispatcher and the shared command-line behaviour'
. "$LBT_TOP/tests/cli/lib.sh"

version=$(sed -n 's/^#define LBT_VERSION "\(.*\)"$/\1/p' "$TOP/include/lbt/version.h")

expect_success 'lbt --version prints the version of version.h' '
	echo "lbt (lbtriage) $version" >expect &&
	lbt --version >out && test_cmp expect out
'

expect_success 'lbt cat --version runs lbt-cat' '
	echo "lbt-cat (lbtriage) $version" >expect &&
	lbt cat --version >out && test_cmp expect out
'

expect_success 'lbt finds its programs next to itself, without PATH' '
	echo "lbt-formats (lbtriage) $version" >expect &&
	env PATH=/usr/bin:/bin "$LBT_BIN/lbt" formats --version >out && test_cmp expect out
'

expect_success 'lbt without arguments: usage on stderr, exit 1' '
	cat >expect <<-EOF &&
	usage: lbt program [argument ...]
	       lbt help [program]
	       lbt --version
	EOF
	test_expect_code 1 lbt >out 2>err &&
	test_cmp expect err && test ! -s out
'

expect_success 'lbt help lists every program, exit 0' '
	lbt help >out 2>err && test ! -s err &&
	for p in triage cat index rate offenders tarpit timeline deny audit formats; do
		grep -q "^  $p  *[^ ]" out || { echo "missing $p"; exit 1; }
	done &&
	head -n 1 out >first && echo "usage: lbt program [argument ...]" >expect &&
	test_cmp expect first
'

expect_success 'lbt help NAME runs man lbt-NAME' '
	mkdir fakebin && printf "#!/bin/sh\necho man \"\$@\"\n" >fakebin/man &&
	chmod +x fakebin/man &&
	PATH="$PWD/fakebin:$PATH" LBT_MANDIR="$PWD/nopages" lbt help cat >out &&
	echo "man lbt-cat" >expect && test_cmp expect out
'

expect_success 'lbt help NAME uninstalled: the page of the source tree, or LBT_MANDIR' '
	mkdir -p fakebin pages && printf "#!/bin/sh\necho man \"\$@\"\n" >fakebin/man &&
	chmod +x fakebin/man && : > pages/lbt-rate.1 &&
	PATH="$PWD/fakebin:$PATH" lbt help cat >out &&
	echo "man -l $TOP/man/lbt-cat.1" >expect && test_cmp expect out &&
	PATH="$PWD/fakebin:$PATH" LBT_MANDIR="$PWD/pages" lbt help rate >out &&
	echo "man -l $PWD/pages/lbt-rate.1" >expect && test_cmp expect out
'

expect_success 'lbt nosuch: not an lbt program, exit 1' '
	echo "lbt: '\''nosuch'\'' is not an lbt program; see '\''lbt help'\''" >expect &&
	test_expect_code 1 lbt nosuch >out 2>err && test_cmp expect err
'

expect_success 'lbt --nosuch: unknown option and usage, exit 1' '
	test_expect_code 1 lbt --nosuch 2>err &&
	head -n 2 err >got &&
	printf "%s\n" "lbt: unknown option '\''--nosuch'\''" "usage: lbt program [argument ...]" >expect &&
	test_cmp expect got
'

expect_success 'lbt-cat --help: usage first, every option group, on stdout, exit 0' '
	lbt-cat --help >out 2>err && test ! -s err &&
	head -n 1 out >first && echo "usage: lbt-cat [options] [file ...]" >expect &&
	test_cmp expect first &&
	for o in fields raw events format log-format escape haproxy-cfg frontend nginx-conf \
	    log-name captures key-regex log-tz lb-name db strict since until key src status \
	    term lb now tsv json table md no-header color help version; do
		grep -q -e "--$o\\b" out || { echo "missing --$o"; exit 1; }
	done &&
	grep -q "^  -f, --fields LIST" out && grep -q "^  -h, --help" out
'

expect_success 'unknown option: message and usage on stderr, exit 1' '
	printf "%s\n" "lbt-cat: unknown option '\''--nosuch'\''" \
	    "usage: lbt-cat [options] [file ...]" >expect &&
	test_expect_code 1 lbt-cat --nosuch 2>err >out &&
	test_cmp expect err && test ! -s out
'

expect_success 'unknown short option' '
	printf "%s\n" "lbt-cat: unknown option '\''-Z'\''" \
	    "usage: lbt-cat [options] [file ...]" >expect &&
	test_expect_code 1 lbt-cat -Z 2>err && test_cmp expect err
'

expect_success 'option without its argument' '
	printf "%s\n" "lbt-cat: option '\''--since'\'' needs an argument (TIME)" \
	    "usage: lbt-cat [options] [file ...]" >expect &&
	test_expect_code 1 lbt-cat --since 2>err && test_cmp expect err
'

expect_success 'flag given an argument' '
	printf "%s\n" "lbt-cat: option '\''--raw'\'' takes no argument" \
	    "usage: lbt-cat [options] [file ...]" >expect &&
	test_expect_code 1 lbt-cat --raw=yes 2>err && test_cmp expect err
'

expect_success 'two output formats are refused' '
	printf "%s\n" "lbt-cat: choose one of --tsv, --json, --table and --md" \
	    "usage: lbt-cat [options] [file ...]" >expect &&
	test_expect_code 1 lbt-cat --json --tsv 2>err && test_cmp expect err
'

expect_success 'bad --color value' '
	printf "%s\n" "lbt-cat: --color: '\''sometimes'\'' is not auto, always or never" \
	    "usage: lbt-cat [options] [file ...]" >expect &&
	test_expect_code 1 lbt-cat --color=sometimes 2>err && test_cmp expect err
'

expect_success 'bad --now value' '
	echo "lbt-cat: --now: '\''soon'\'' is not a time (2025-11-01T23:24:01[Z|+01:00], 2025-11-01, 23:24[:01], -15m, @1762035841)" >expect &&
	test_expect_code 1 lbt-cat --now soon 2>err && test_cmp expect err
'

expect_success 'lbt-formats takes no operand' '
	printf "%s\n" "lbt-formats: unexpected operand '\''x'\''" >expect &&
	test_expect_code 1 lbt-formats --list x 2>err && head -n 1 err >got &&
	test_cmp expect got
'

# The SYNOPSIS of a man page, one form per line, as usage() prints it
# (mandoc's overstrike bold and underline removed: "X\bX" and "_\bX").
bs=$(printf '\b')
synopsis() {
	mandoc -T ascii "$TOP/man/$1.1" | sed "s/.$bs//g" |
	    sed -n '/^SYNOPSIS/,/^DESCRIPTION/p' | sed -e '1d' -e '$d' -e '/^$/d' \
	    -e 's/^ *//'
}

test_have mandoc || missing mandoc
for p in lbt lbt-cat lbt-formats lbt-rate lbt-offenders lbt-tarpit lbt-index lbt-deny \
    lbt-timeline lbt-audit lbt-triage; do
	expect_success "$p: man SYNOPSIS is what usage() prints" '
		synopsis '"$p"' >expect &&
		test_expect_code 1 '"$p"' --nosuch-option 2>err &&
		grep -v "unknown option" err | sed -e "s/^usage: //" -e "s/^ *//" >got &&
		test_cmp expect got
	'
done
expect_success 'man pages are mandoc -T lint clean' '
	mandoc -T lint -W warning "$TOP"/man/*.1 "$TOP"/man/*.5
'

test_done
