#!/bin/sh
# lbt-timeline --html on the incident capture: the page is self-contained
# (no script, no external resource), holds every chart with labelled axes,
# its event times are the NDJSON's, rows and chart markers link both ways,
# it has a print style; and Debian's chromium, headless, renders it into a
# screenshot that is not blank (python3's zlib decodes the PNG: distinct
# colours and non-white pixels counted, no other package).
test_description='lbt-timeline HTML page, rendered by chromium'
. "$LBT_TOP/tests/cli/lib.sh"

INC=$DATA/incident
[ -f "$INC/haproxy-httplog-rfc3164.log.zst" ] || missing "the incident capture in $INC"
test_have chromium || missing chromium
test_have python3 || missing python3
zstd -dcq "$INC/haproxy-httplog-rfc3164.log.zst" > rfc.log
zstd -dcq "$INC/haproxy-httplog.log.zst" > raw.log
CFG="--haproxy-cfg $INC/haproxy-tarpit.cfg --frontend fe_http"

# The figure with id $1 of page $2, from its start to </figure>.
figure() { awk -v id="<figure id=\"$1\">" 'index($0, id) == 1 { on = 1 } on { print }
	on && /<\/figure>/ { exit }' "$2"; }

expect_success 'the page and the NDJSON from one run' '
	lbt-timeline --json --html page.html $CFG rfc.log > ev.json 2> err &&
	test ! -s err && test -s page.html && grep -q "^<!DOCTYPE html>" page.html &&
	tail -n 1 page.html | grep -Fx "</html>"
'

expect_success 'self-contained: no script, no external resource' '
	! grep -qi "<script" page.html && ! grep -qi "<link" page.html &&
	! grep -qi " src=" page.html && ! grep -qi "url(" page.html &&
	grep -o "https\{0,1\}://[^\"]*" page.html | sort -u > urls &&
	echo "http://www.w3.org/2000/svg" > expect && test_cmp expect urls
'

expect_success 'every chart is there, drawn, with both axes labelled' '
	for id in chart-keys chart-lbs chart-slots-0 chart-status chart-sources; do
		figure $id page.html > fig &&
		grep -q "<svg " fig || { echo "no svg in $id"; exit 1; }
		test "$(grep -c "class=\"axis-label\"" fig)" -eq 2 || { echo "axes of $id"; exit 1; }
		grep -q ">time (UTC)</text>" fig || { echo "time axis of $id"; exit 1; }
	done &&
	figure chart-slots-0 page.html | grep -q ">maxconn 20</text>" &&
	figure chart-keys page.html | grep -q "<title>f768064f-9585-47ad-a39e-ed24c2c063fe</title>"
'

expect_success 'the event times of the table are the NDJSON times, in order' '
	sed -n "s/^{\"time\":\"\([^\"]*\)\".*/\1/p" ev.json > expect &&
	test "$(wc -l < expect)" -gt 10 &&
	grep -o "<time datetime=\"[^\"]*\"" page.html | sed "s/.*=\"//; s/\"//" > got &&
	test_cmp expect got
'

expect_success 'each row links to its marker, and each marker back' '
	n=$(wc -l < ev.json) && i=0 &&
	while [ $i -lt $n ]; do
		grep -q "<tr id=\"ev-$i\"" page.html &&
		grep -q "<a href=\"#m-chart-keys-$i\">" page.html &&
		grep -q "<g id=\"m-chart-keys-$i\"><a href=\"#ev-$i\">" page.html &&
		grep -q "<g id=\"m-chart-status-$i\"><a href=\"#ev-$i\">" page.html ||
			{ echo "links of event $i"; exit 1; }
		i=$((i + 1))
	done
'

expect_success 'a print style' '
	grep -q "@media print{" page.html
'

expect_success 'without LB names the LB chart says so instead of plotting nothing' '
	lbt-timeline --html raw.html $CFG raw.log > /dev/null &&
	figure chart-lbs raw.html > fig && ! grep -q "<svg" fig &&
	grep -q "class=\"empty\">these logs name no load balancer<" fig
'

expect_success 'chromium renders it: a screenshot that is not blank' '
	prof=$(mktemp -d) &&
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic \
	    --no-first-run --disable-background-networking --disable-component-update \
	    --disable-sync --user-data-dir="$prof" --screenshot="$PWD/out.png" \
	    --window-size=1280,2000 "file://$PWD/page.html" > chromium.log 2>&1;
	rm -rf "$prof" && test -s out.png &&
	python3 - out.png > stats <<-\EOF &&
	import struct, sys, zlib
	d = open(sys.argv[1], "rb").read()
	assert d[:8] == b"\x89PNG\r\n\x1a\n"
	pos, idat, hdr = 8, b"", None
	while pos < len(d):
	    n, t = struct.unpack(">I4s", d[pos:pos + 8])
	    c = d[pos + 8:pos + 8 + n]
	    if t == b"IHDR": hdr = struct.unpack(">IIBB", c[:10])
	    if t == b"IDAT": idat += c
	    pos += 12 + n
	w, h, depth, ctype = hdr
	bpp = {2: 3, 6: 4}[ctype]
	raw, stride, prev, i = zlib.decompress(idat), w * bpp, bytearray(w * bpp), 0
	colours, ink = set(), 0
	for y in range(h):
	    f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
	    i += 1 + stride
	    for x in range(stride):
	        a = line[x - bpp] if x >= bpp else 0
	        b, c = prev[x], prev[x - bpp] if x >= bpp else 0
	        if f == 1: line[x] = (line[x] + a) & 255
	        elif f == 2: line[x] = (line[x] + b) & 255
	        elif f == 3: line[x] = (line[x] + ((a + b) >> 1)) & 255
	        elif f == 4:
	            p = a + b - c
	            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
	            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
	    for x in range(0, stride, bpp):
	        px = bytes(line[x:x + 3])
	        colours.add(px)
	        ink += px != b"\xff\xff\xff"
	    prev = line
	print(w, h, len(colours), ink * 1000 // (w * h))
	EOF
	read -r w h colours permille < stats &&
	test "$w" -eq 1280 && test "$h" -eq 2000 &&
	test "$colours" -ge 16 && test "$permille" -ge 30
'

test_done
