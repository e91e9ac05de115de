#!/bin/sh
# lbt-audit on configurations alone (tests/data/audit/*.cfg), one per
# finding, each accepted by HAProxy 2.6 (haproxy -c, checked here first).
# Every expected number is worked out by hand in the configuration's
# header comment; line numbers come from grep -n on the same file.  Exit
# status: 2 with a finding at or above --fail-on, 0 without.
. "$(dirname "$0")/lib.sh"

PATH=/usr/sbin:$PATH
test_have haproxy || missing haproxy
cp "$DATA"/audit/*.cfg . || missing "tests/data/audit"

for f in *.cfg; do
	expect_success "haproxy -c accepts $f" 'haproxy -c -f '"$f"' > /dev/null 2>&1'
done
expect_success 'haproxy -c accepts inherit.cfg with LBT_TARPIT set' '
	LBT_TARPIT=1 haproxy -c -f inherit.cfg > /dev/null 2>&1
'

# line FILE PATTERN [N] - the number of the Nth line holding PATTERN, not
# counting comments ("^" anchors PATTERN after the indentation)
line() {
	awk -v p="$2" '/^#/ { next } { s = $0; sub(/^ */, "", s) }
	    (substr(p, 1, 1) == "^" ? index(s, substr(p, 2)) == 1 : index(s, p) > 0) { print NR }' "$1" |
	    sed -n "${3:-1}p"
}
# row SEV FILE PATTERN N PROXY CHECK - the first four columns expected
row() { printf '%s\t%s:%s\t%s\t%s\n' "$1" "$2" "$(line "$2" "$3" "$4")" "$5" "$6"; }
# col N FILE - column N of the TSV rows (no header)
col() { sed 1d "$2" | cut -f "$1"; }

expect_success 'tarpit.cfg: tarpit as the rate limit, 5 slots a client, 10 fill maxconn 50' '
	test_expect_code 4 lbt-audit tarpit.cfg > out.tsv &&
	row warn tarpit.cfg "http-request tarpit" 1 fe_api tarpit-rate-limit > expect &&
	col 1-4 out.tsv > got && test_cmp expect got &&
	col 5 out.tsv > what &&
	grep -F "(\`timeout tarpit\` 2s, line $(line tarpit.cfg "timeout tarpit 2s"))" what &&
	grep -F "client over the limit (21 requests in 10 s) is held 2 s: a client just over it holds 5 slots, 10 such clients fill maxconn 50" what &&
	echo "http-request deny deny_status 429 hdr Retry-After 10 if too_fast" > expect &&
	col 7 out.tsv > got && test_cmp expect got &&
	echo > expect && col 8 out.tsv > got && test_cmp expect got
'

expect_success 'tarpit-nohold.cfg: a frontend holds nothing, a listen falls back to timeout connect' '
	test_expect_code 4 lbt-audit tarpit-nohold.cfg > out.tsv &&
	{ row warn tarpit-nohold.cfg "http-request tarpit" 1 fe_nohold tarpit-no-hold &&
	  row warn tarpit-nohold.cfg "http-request tarpit" 2 li_hold tarpit-rate-limit; } > expect &&
	col 1-4 out.tsv > got && test_cmp expect got &&
	col 5 out.tsv | sed -n 2p > what &&
	grep -F "(\`timeout connect\` 1500ms, line $(line tarpit-nohold.cfg "timeout connect 1500ms"), used as no \`timeout tarpit\` is set)" what &&
	grep -F "(6 requests in 1 s) is held 1.5 s: a client just over it holds 9 slots, 4 such clients fill maxconn 30" what &&
	col 6 out.tsv | sed -n 1p | grep -F "a frontend has none: its tarpit holds nothing and answers 500 at once"
'

expect_success 'http-request-timeout.cfg: crit without timeout client, warn with it, sorted so' '
	test_expect_code 4 lbt-audit http-request-timeout.cfg > out.tsv &&
	{ row crit http-request-timeout.cfg "^frontend fe_none" 1 fe_none http-request-timeout &&
	  row warn http-request-timeout.cfg "^frontend fe_slow" 1 fe_slow http-request-timeout; } > expect &&
	col 1-4 out.tsv > got && test_cmp expect got &&
	printf "%s\n" "timeout http-request 5s; timeout client 30s" "timeout http-request 5s" > expect &&
	col 7 out.tsv > got && test_cmp expect got &&
	col 6 out.tsv | sed -n 2p | grep -F "\`timeout client\` alone (30 s, line $(line http-request-timeout.cfg "timeout client 30s"))"
'

expect_success 'log-format.cfg: what each format lacks, captures only an info' '
	test_expect_code 4 lbt-audit log-format.cfg > out.tsv &&
	{ row warn log-format.cfg "log-format \"" 1 fe_short log-format &&
	  row info log-format.cfg "option httplog" 1 fe_plain log-format; } > expect &&
	col 1-4 out.tsv > got && test_cmp expect got &&
	printf "%s\n" "fe_short logs with a custom log-format, which lacks: the accept date with milliseconds, Tw, Tt or Ta, termination state, fc, ac, Host capture, User-Agent capture" \
	    "fe_plain logs with haproxy-httplog, which lacks: Host capture, User-Agent capture" > expect &&
	col 5 out.tsv > got && test_cmp expect got &&
	col 7 out.tsv | sed -n 2p > got &&
	echo "capture request header Host len 64; capture request header User-Agent len 128" > expect &&
	test_cmp expect got &&
	col 7 out.tsv | sed -n 1p | grep -F "log-format \"%Ts.%ms %ci:%cp %ft %b/%s %Th/%Ti/%TR/%Tw/%Tc/%Tr/%Ta/%Tt"
'

expect_success '--fail-on: crit leaves log-format.cfg at 0, info keeps 2' '
	test_expect_code 0 lbt-audit --fail-on crit log-format.cfg > out.tsv &&
	test $(sed 1d out.tsv | wc -l) -eq 2 &&
	test_expect_code 4 lbt-audit --fail-on info log-format.cfg > /dev/null
'

expect_success 'inherit.cfg: named defaults with from, the implicit last one, .if blocks' '
	test_expect_code 4 lbt-audit inherit.cfg > out.tsv &&
	row warn inherit.cfg "^frontend fe_b" 1 fe_b http-request-timeout > expect &&
	col 1-4 out.tsv > got && test_cmp expect got &&
	LBT_TARPIT=1 lbt-audit inherit.cfg > out2.tsv;
	{ row warn inherit.cfg "http-request tarpit" 1 fe_a tarpit-rate-limit &&
	  row warn inherit.cfg "^frontend fe_b" 1 fe_b http-request-timeout; } > expect &&
	col 1-4 out2.tsv > got && test_cmp expect got &&
	col 5 out2.tsv | sed -n 1p > what &&
	grep -F "(\`timeout tarpit\` 3s, line $(line inherit.cfg "timeout tarpit 3s"))" what &&
	grep -F "(5 requests in 1 s) is held 3 s: a client just over it holds 15 slots, 3 such clients fill maxconn 40" what
'

expect_success 'clean.cfg: no finding, exit 0, a header alone, "no finding" on a terminal' '
	test_expect_code 0 lbt-audit clean.cfg > out.tsv &&
	printf "severity\twhere\tproxy\tcheck\twhat\twhy\tchange\tevidence\n" > expect &&
	test_cmp expect out.tsv &&
	test_expect_code 0 lbt-audit --table clean.cfg > out.txt &&
	echo "no finding" > expect && test_cmp expect out.txt &&
	test_expect_code 0 lbt-audit rate-limit-host.cfg > out.tsv && test $(wc -l < out.tsv) -eq 1
'

expect_success '--json: one object a finding, the same values' '
	test_expect_code 4 lbt-audit --json tarpit.cfg > out.json &&
	test $(wc -l < out.json) -eq 1 &&
	grep -F "{\"severity\":\"warn\",\"where\":\"tarpit.cfg:$(line tarpit.cfg "http-request tarpit")\",\"proxy\":\"fe_api\",\"check\":\"tarpit-rate-limit\"," out.json &&
	grep -F "\"change\":\"http-request deny deny_status 429 hdr Retry-After 10 if too_fast\",\"evidence\":null}" out.json
'

expect_success '--md: a Markdown table' '
	test_expect_code 4 lbt-audit --md tarpit.cfg > out.md &&
	head -n 1 out.md > got &&
	echo "| severity | where | proxy | check | what | why | change | evidence |" > expect &&
	test_cmp expect got && test $(wc -l < out.md) -eq 3
'

expect_success '--table: the summary row, then what, why and change' '
	test_expect_code 4 lbt-audit --table tarpit.cfg > out.txt &&
	n=$(line tarpit.cfg "http-request tarpit") &&
	grep -E "^1 +warn +tarpit.cfg:$n +fe_api +tarpit-rate-limit +-$" out.txt &&
	grep -Fx "1. warn tarpit.cfg:$n fe_api tarpit-rate-limit" out.txt &&
	grep -Fx "   change  http-request deny deny_status 429 hdr Retry-After 10 if too_fast" out.txt &&
	grep -E "^   what    \`http-request tarpit\` is the rate-limit action" out.txt &&
	grep -E "^   why     a tarpitted request keeps its connection" out.txt
'

test_done
