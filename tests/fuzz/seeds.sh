#!/bin/sh
# seeds.sh TARGET DIR BINDIR - write the seed inputs of fuzz target TARGET
# into DIR (emptied first), all from the fixtures in tests/data.  BINDIR
# holds a built lbt-cat (the lbt-tsv seeds are its output on real logs).
# Each target's input layout is described at the top of its fuzz_*.c.
set -eu
t=$1 out=$2
bin=$(cd "$3" && pwd)
top=$(cd "$(dirname "$0")/../.." && pwd)
D=$top/tests/data
rm -rf "$out"
mkdir -p "$out"

# seed NAME HEADER-OCTAL FILE - HEADER (printf octal escapes) then FILE
seed() {
	{ printf "$2"; cat "$3"; } >"$out/$1"
}

case $t in
line)
	# one line of every real log
	for f in "$D"/real/*.log; do
		split -l 1 -a 4 "$f" "$out/$(basename "$f" .log)-"
	done ;;
source)
	# fuzz_source.c: byte 0 picks the layout, bytes 1-4 the damage offset
	# (here 4096), byte 5 the xor mask
	tmp=$(mktemp -d)
	for f in "$D"/real/haproxy-httplog.log "$D"/real/nginx-json.log \
	    "$D"/real/haproxy-mixed.log "$D"/cli/bad.log; do
		b=$(basename "$f" .log)
		seed "$b.plain" '\000\000\020\000\000\001' "$f"
		seed "$b.zst" '\001\000\020\000\000\001' "$f"
		seed "$b.gz" '\002\000\020\000\000\001' "$f"
		seed "$b.zst-cut" '\005\000\020\000\000\001' "$f"
		seed "$b.gz-cut" '\006\000\020\000\000\001' "$f"
		seed "$b.zst3-flip" '\051\000\020\000\000\100' "$f"
		seed "$b.gz4-flip-cut" '\076\000\020\000\000\001' "$f"
		# files made by the zstd and gzip programs (checksums, names)
		zstd -q -c "$f" >"$tmp/$b.zst" && seed "$b.zstd-cli" '\000\000\000\000\000\000' "$tmp/$b.zst"
		gzip -c "$f" >"$tmp/$b.gz" && seed "$b.gzip-cli" '\000\000\000\000\000\000' "$tmp/$b.gz"
	done
	# CRLF line ends (a log copied through Windows), plain and zstd
	sed 's/$/\r/' "$D/real/haproxy-httplog.log" >"$tmp/crlf.log"
	seed crlf.plain '\000\000\000\000\000\000' "$tmp/crlf.log"
	seed crlf.zst-cut '\005\000\020\000\000\001' "$tmp/crlf.log"
	# the real incident capture, compressed by the lab
	for f in "$D"/incident/*.zst; do
		seed "incident-$(basename "$f")" '\000\000\000\000\000\000' "$f"
	done
	rm -rf "$tmp" ;;
tsv)
	# lbt-cat's TSV of real logs: every field, a few, events too, two
	# headers (files concatenated)
	for f in "$D"/real/*.log "$D"/cli/httplog.log "$D"/cli/bad.log; do
		b=$(basename "$(dirname "$f")")-$(basename "$f" .log)
		(cd "$(dirname "$f")" && "$bin/lbt-cat" --tsv "$(basename "$f")") 2>/dev/null |
		    head -n 20 >"$out/$b-all.tsv"
		(cd "$(dirname "$f")" && "$bin/lbt-cat" --tsv --events \
		    -f time,client,path,status,msg,file,line "$(basename "$f")") 2>/dev/null |
		    head -n 20 >"$out/$b-some.tsv"
	done
	cat "$out/real-haproxy-httplog-all.tsv" "$out/real-nginx-json-some.tsv" >"$out/two-headers.tsv"
	# the cases of the format's own tests, raw lines only
	grep -v -e '^#' -e '^!' -e '^SKIP$' -e '=' "$D/formats/lbt-tsv.cases" >"$out/cases.tsv" ;;
hacfg)
	for f in "$D"/real/haproxy.cfg "$D"/tarpit/*.cfg "$D"/incident/*.cfg \
	    "$D"/formats/cfg/*.cfg; do
		cp "$f" "$out/$(echo "$f" | tr / _)"
	done ;;
ngxconf)
	# fuzz_ngxconf.c: nginx.conf, then "%%" and the file conf.d/*.conf finds
	cp "$D/real/nginx.conf" "$out/real.conf"
	cp "$D/formats/cfg/nginx-noaccess.conf" "$out/noaccess.conf"
	{ cat "$D/formats/cfg/nginx.conf"; printf '\n%%%%\n'; cat "$D/formats/cfg/conf.d/formats.conf"; } \
	    >"$out/include.conf" ;;
*)
	echo "seeds.sh: no seeds for fuzz target '$t'" >&2
	exit 1 ;;
esac
