#!/bin/sh
# The output-safety rule (docs/output-safety.md) on a hostile log made
# here: every byte value 0x01-0xff but \n in Host, User-Agent, path (the
# key), frontend and server, the bidi and C1 controls, and one key flooded
# from one source that carries HTML (<img ... onerror=...>), ESC[2J ESC[3J
# (clear the screen and the scrollback), U+202E and Markdown syntax.  Every
# output of every program is checked with grep -P, iconv, python3's json
# and cmark (a CommonMark renderer), never with lbt: terminal and Markdown
# text has no control byte but \n, no DEL, no C1 or bidi control and is
# valid UTF-8; TSV has no control byte but \t and \n and reads back to the
# same bytes; NDJSON is JSON with the exact values; rendered Markdown has
# no element lbt does not write; HTML has no control and no '<' of the log.
test_description='hostile bytes never reach a person as they are'
. "$LBT_TOP/tests/cli/lib.sh"

test_have gawk || missing gawk
test_have python3 || missing python3
test_have cmark || missing cmark
test_have iconv || missing iconv

# The log.  A line a second from 192.0.2.10 (and every other second from
# 192.0.2.11) for ten minutes, one line for each byte b (second b - 1),
# the 14 controls from 23:05:00, then 60 s of 40 requests a second of the
# hostile key from 198.51.100.66.  Lines whose byte breaks the format (a
# space in the frontend, '"' in the path, '|' or '}' in the captures) are
# malformed: their excerpt on stderr is checked too.
cat > gen.awk <<'EOF'
function ts(s) { return sprintf("[01/Nov/2025:23:%02d:%02d.%03d]", int(s / 60), s % 60, ms++ % 1000) }
function line(s, ip, fe, srv, host, ua, path) {
	printf "%s:4%04d %s %s be_app/%s 0/0/1/12/13 200 135 - - ---- 12/8/3/2/0 0/0 {%s|%s} \"GET %s HTTP/1.1\"\n",
	    ip, s % 10000, ts(s), fe, srv, host, ua, path
}
BEGIN {
	n = split("e280aa e280ab e280ac e280ad e280ae e281a6 e281a7 e281a8 e281a9 e2808e e2808f d89c c285 c29b", hx, " ")
	for (i = 1; i <= n; i++) {
		u = ""
		for (j = 1; j < length(hx[i]); j += 2)
			u = u sprintf("%c", strtonum("0x" substr(hx[i], j, 2)))
		ctl[i] = u
	}
	e = sprintf("%c", 27)
	evil = "<img/src=x/onerror=alert(1)>" e "[2J" e "[3J" ctl[5] "|*_[x](y)#&amp;`"
	for (s = 0; s < 600; s++) {
		line(s, "192.0.2.10", "fe_http", "app1", "calm.example", "curl/8", "/k/k0000/x")
		if (s % 2 == 0)
			line(s, "192.0.2.11", "fe_http", "app2", "calm.example", "curl/8", "/k/k0001/x")
		b = s + 1
		if (b < 256 && b != 10) {
			c = sprintf("%c", b)
			line(s, "203.0.113." (b % 250 + 1), "fe_" c, "app" c, "h" c ".example", "ua" c, "/k/K" c "K/x")
		}
		if (s >= 300 && s < 300 + n) {
			c = ctl[s - 299]
			line(s, "203.0.113.7", "fe_" c, "app" c, "h" c ".example", "ua" c, "/k/B" c "B/x")
		}
	}
	for (s = 600; s < 660; s++)
		for (r = 0; r < 40; r++)
			line(s, "198.51.100.66", "fe_" evil, "app1", "h" evil, "ua" evil, "/k/" evil "/x")
	# a line malformed right where the controls are: its excerpt quotes them
	printf "203.0.113.9:1 [01/Nov/2025:23:10:59.999] fe_http be_app/app1 0/0/1/12/13 200 135 - - ---- 12/8/3/2/0 0/0 {h|u} \"GET /k/m/x HTTP/1.1\"%s[2J%s[3J%s<b>\n", e, e, ctl[5]
}
EOF
LC_ALL=C gawk -f gen.awk > hostile.log || missing "gawk's hostile log"
O="--captures host,ua --key-regex ^/k/(.*)/x"

# Every byte 0x01-0xff is in the log (a check of the generator).
expect_success 'the log holds every byte but NUL and its bidi controls' '
	python3 -c "import sys; d = open(sys.argv[1], \"rb\").read();
missing = [b for b in range(1, 256) if bytes([b]) not in d]
sys.exit(1 if missing or \"\u202e\".encode() not in d else 0)" hostile.log
'

# Succeed when file $1 holds no control byte but \n (and \t when $2 is
# "tab"), no DEL, no C1 (U+0080-U+009F) and no bidi control; show the
# first offending lines otherwise.
clean() {
	if [ "${2:-}" = tab ]; then c='[\x00-\x08\x0b-\x1f\x7f]'; else c='[\x00-\x09\x0b-\x1f\x7f]'; fi
	if LC_ALL=C grep -naP "$c|\xc2[\x80-\x9f]|\xe2\x80[\x8e\x8f\xaa-\xae]|\xe2\x81[\xa6-\xa9]|\xd8\x9c" \
	    "$1" > bad.txt; then
		head -n 3 bad.txt | od -c | head -n 20
		return 1
	fi
}

# Succeed when $1 is valid UTF-8.
utf8() { iconv -f UTF-8 -t UTF-8 "$1" > /dev/null; }

# Run program $1 with the log's options and the rest of the arguments,
# stdout to $1.$N.out, stderr to $1.$N.err (N counts the runs).  Exit
# statuses: 0, and lbt-triage's 5 (an anomaly that lasts to the end).
runs=0
run() {
	runs=$((runs + 1)); p=$1; shift
	out=$p.$runs.out err=$p.$runs.err
	"$p" $O "$@" hostile.log > "$out" 2> "$err"
	rc=$?
	[ "$rc" -eq 0 ] || { [ "$p" = lbt-triage ] && [ "$rc" -eq 5 ]; } ||
		{ echo "$p $*: exit $rc"; cat "$err"; return 1; }
	test -s "$out" && grep -q "malformed lines of" "$err"
}

# Text for a person: stdout and stderr clean and valid UTF-8.
for cmd in "lbt-cat -f host,ua,path,frontend,server,key --table" \
    "lbt-cat -f host,ua,path,frontend,server,key --md" \
    "lbt-rate --table --top 400" "lbt-rate --md --top 400" \
    "lbt-offenders --table" "lbt-offenders --md" "lbt-tarpit --table" "lbt-tarpit --md" \
    "lbt-timeline --table" "lbt-timeline --md" "lbt-triage"; do
	expect_success "$cmd: no control, bidi or bad byte on stdout or stderr" "
		run $cmd && clean \$out && utf8 \$out && clean \$err && utf8 \$err
	"
done

expect_success 'the key is shown escaped, not reversed, in the table' '
	lbt-rate $O --table --top 400 hostile.log > rate.txt 2> /dev/null &&
	grep -F "<img/src=x/onerror=alert(1)>\\x1b[2J\\x1b[3J\\u202e|*_[x](y)#&amp;\`" rate.txt &&
	grep -F "B\\u202eB" rate.txt && grep -F "K\\x1bK" rate.txt && grep -F "K\\xffK" rate.txt
'

expect_success 'lbt-triage shows the hot key escaped, cut to its column' '
	test_expect_code 5 lbt-triage $O hostile.log > screen.txt 2> /dev/null &&
	grep -F "<img/src=x/onerror=alert(1)>\\x1b[2J\\..." screen.txt
'

expect_success 'the malformed line quotes its bytes escaped on stderr' '
	lbt-cat $O hostile.log > /dev/null 2> cat.err &&
	grep -F "\\x1b[2J\\x1b[3J\\u202e<b>" cat.err
'

# Markdown: rendered by cmark (raw HTML let through with --unsafe, as a
# permissive renderer would), no element but the ones lbt writes: the
# timeline's heading and paragraphs (cmark renders a table as a paragraph).
for cmd in "lbt-cat -f host,ua,path,frontend,server,key --md" "lbt-rate --md --top 400" \
    "lbt-offenders --md" "lbt-tarpit --md" "lbt-timeline --md"; do
	expect_success "$cmd: cmark renders no element of the log" "
		run $cmd && cmark --unsafe \$out > md.html &&
		grep -o '<[a-zA-Z/!][a-zA-Z0-9]*' md.html | sort -u > tags &&
		grep -vxE '</?(p|h2)' tags > extra; test ! -s extra || { cat extra; exit 1; }
	"
done

expect_success 'the timeline summary keeps the key as text in Markdown' '
	lbt-timeline $O --md hostile.log > tl.md 2> /dev/null && cmark tl.md > tl.html &&
	grep -F "&lt;img/src=x/onerror=alert(1)&gt;\\x1b[2J\\x1b[3J\\u202e|*_[x](y)#&amp;amp;\`" tl.html
'

# Programs read TSV and NDJSON: clean of controls, and exact.
expect_success 'lbt-cat --tsv: no control byte but tab and newline' '
	run lbt-cat -f host,ua,path,frontend,server,key --tsv && clean $out tab
'

expect_success 'lbt-cat --tsv reads back to the same bytes' '
	lbt-cat $O -f client,host,ua,path,frontend,server,key --tsv hostile.log > a.tsv 2> /dev/null &&
	lbt-cat -f client,host,ua,path,frontend,server,key --tsv a.tsv > b.tsv 2> b.err &&
	test_cmp a.tsv b.tsv && test ! -s b.err
'

for cmd in "lbt-cat -f host,ua,path,frontend,server,key --json" "lbt-rate --json --top 400" \
    "lbt-offenders --json" "lbt-tarpit --json" "lbt-timeline --json"; do
	expect_success "$cmd: JSON, no control, bidi or bad byte" "
		run $cmd && clean \$out && utf8 \$out &&
		python3 -c 'import json, sys; [json.loads(l) for l in open(sys.argv[1], encoding=\"utf-8\")]' \$out
	"
done

expect_success 'lbt-triage --json: one JSON document, no control, bidi or bad byte, the key exact' '
	run lbt-triage --json && clean $out && utf8 $out &&
	python3 -c "import json, sys
d = json.load(open(sys.argv[1], encoding=\"utf-8\"))
keys = {k[\"key\"] for k in d[\"hot_keys\"]}
sys.exit(0 if \"<img/src=x/onerror=alert(1)>\x1b[2J\x1b[3J\u202e|*_[x](y)#&amp;\`\" in keys else 1)" $out
'

expect_success 'lbt-cat --json keeps the exact values' '
	lbt-cat $O -f host,key --json hostile.log > v.json 2> /dev/null &&
	python3 -c "import json, sys
rows = [json.loads(l) for l in open(sys.argv[1], encoding=\"utf-8\")]
hosts = {r[\"host\"] for r in rows}
keys = {r[\"key\"] for r in rows}
want = {\"h\x1b.example\", \"h\x7f.example\", \"h\u202e.example\", \"h\x85.example\", \"h\xff.example\"}
evil = \"<img/src=x/onerror=alert(1)>\x1b[2J\x1b[3J\u202e|*_[x](y)#&amp;\`\"
sys.exit(0 if want <= hosts and evil in keys and \"K\u009bK\" in keys else 1)" v.json
'

# NGINX writes any byte of a request as \xHH, which lbt decodes: there
# every byte reaches a field, space, '"' and \n included.
gawk 'BEGIN { for (b = 1; b < 256; b++)
	printf "203.0.113.%d - - [01/Nov/2025:23:%02d:%02d +0000] \"GET /k/N\\x%02XN/x HTTP/1.1\" 200 2 \"-\" \"ua\\x%02X\"\n", \
	    b % 250 + 1, int(b / 60), b % 60, b, b }' > nginx.log
expect_success 'NGINX: every byte decoded into path and User-Agent, none reaches a table' '
	lbt-cat --key-regex "^/k/(.*)/x" -f path,ua,key --table nginx.log > n.txt 2> n.err &&
	test ! -s n.err && test "$(wc -l < n.txt)" -eq 256 && clean n.txt && utf8 n.txt &&
	grep -F "/k/N\\nN/x" n.txt
'

expect_success 'NGINX: Markdown renders no element of the log' '
	lbt-rate --key-regex "^/k/(.*)/x" --md --top 400 nginx.log > n.md 2> n.err &&
	test ! -s n.err && clean n.md && utf8 n.md && cmark --unsafe n.md > n.html &&
	grep -o "<[a-zA-Z/!][a-zA-Z0-9]*" n.html | sort -u > tags &&
	grep -vxE "</?p" tags > extra; test ! -s extra || { cat extra; exit 1; }
'

expect_success 'NGINX: TSV reads back to the same bytes, NDJSON holds them all' '
	lbt-cat -f client,path,ua --tsv nginx.log > a.tsv 2> /dev/null && clean a.tsv tab &&
	lbt-cat -f client,path,ua --tsv a.tsv > b.tsv 2> b.err && test_cmp a.tsv b.tsv &&
	test ! -s b.err && lbt-cat -f ua --json nginx.log > n.json 2> /dev/null &&
	clean n.json && utf8 n.json &&
	python3 -c "import json, sys
uas = {json.loads(l)[\"ua\"] for l in open(sys.argv[1], encoding=\"utf-8\")}
sys.exit(0 if uas == {\"ua\" + chr(b) for b in range(1, 256)} else 1)" n.json
'

# HTML: no control byte (markup's \n aside), no element of the log.
expect_success 'lbt-timeline --html: no control, bidi or bad byte, no element of the log' '
	lbt-timeline $O --html page.html hostile.log > /dev/null 2> /dev/null &&
	clean page.html && utf8 page.html &&
	! grep -q "<img" page.html && ! grep -q "<b>" page.html &&
	grep -F "&lt;img/src=x/onerror=alert(1)&gt;\\x1b[2J\\x1b[3J\\u202e" page.html
'

test_done
