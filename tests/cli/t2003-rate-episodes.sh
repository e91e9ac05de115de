#!/bin/sh
# lbt-rate --episodes on logs made from the real incident capture
# (tests/data/incident) by rewriting its time stamps: expected values by
# awk on the logs written here.
#
# Two floods and a lull (synthetic from real lines): the capture's lines up
# to 07:45:51 (baseline, then the tarpit flood at 57/s as logged); a lull of
# 35 s made of the tarpit phase's lines replayed twice (+21 s, +42 s), every
# other line kept and one flood line in eight (7/s: above five times the
# baseline, under a quarter of either flood); the deny flood (200/s) and
# the calm after it, 35 s later.  The flooded key must have two rises,
# each at its own mean, and no episode for the lull.  (The jump search saw
# one jump from the first flood to the end of the second.)
#
# An LB leaving rotation: the RFC 3164 copy of the capture is lb1; lb2 is
# the same lines with the host lb2, up to 07:45:45 only.  --by lb: lb2 has
# a drop from the second after its last request, ongoing, to 0/s.
. "$(dirname "$0")/lib.sh"

inc=${LBT_INCIDENT:-$DATA/incident}
# Copy FILE of the capture here, decompressed.  @return 1 when absent.
get() {
	if [ -e "$inc/$1.zst" ]; then zstd -q -dc "$inc/$1.zst" > "$1"
	elif [ -e "$inc/$1" ]; then cp "$inc/$1" "$1"
	else return 1; fi
}
if ! get haproxy-httplog.log || ! get haproxy-httplog-rfc3164.log; then
	missing "the incident capture in $inc"
fi
flood=f768064f-9585-47ad-a39e-ed24c2c063fe

# The awk functions shared below: tod() reads the accept date of a line
# (the field "[30/Nov/2026:07:45:10.548]") as seconds of the day, stamp()
# writes a line with that date moved to second-of-day t.
cat > stamps.awk <<'EOF'
function datef(   i) { for (i = 1; i <= NF; i++) if ($i ~ /^\[[0-9][0-9]\/.*:[0-9.]*\]$/) return i; return 0 }
function tod(   f, t) { f = datef(); if (!f) return -1
	split(substr($f, 14, 12), t, ":"); return t[1] * 3600 + t[2] * 60 + t[3] }
function stamp(t,   f, h, m, s) { f = datef(); h = int(t / 3600); m = int(t % 3600 / 60); s = t - h * 3600 - m * 60
	$f = sprintf("%s%02d:%02d:%06.3f]", substr($f, 1, 13), h, m, s); print }
EOF

# 07:45:30 = 27930, 07:45:51 = 27951 (deny in force), 07:46:01 = 27961.
awk -v k=$flood -f stamps.awk -e '
	tod() < 0 { next }
	{ t = tod() }
	t < 27951 { stamp(t); if (t >= 27930) replay[++n] = $0 }
	t >= 27951 { stamp(t + 35) }
	END { for (r = 21; r <= 42; r += 21) for (i = 1; i <= n; i++) {
		$0 = replay[i]; t = tod() + r
		if (t < 27986 && (!index($0, k) || i % 8 == 0)) stamp(t) } }' \
	haproxy-httplog.log | sort -t "[" -k 2 > lull.log

# Requests of the flood key in lull.log in [$1, $2) (seconds of the day), a second.
rate_in() { awk -v k=$flood -v a="$1" -v b="$2" -f stamps.awk -e '
	index($0, k) { t = tod(); if (t >= a && t < b) n++ } END { printf "%.4f\n", n / (b - a) }' lull.log; }
sod() { echo $(( $(date -u -d "$1" +%s) % 86400 )); }
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; exit !(d <= t && -d <= t) }'; }
within() { awk -v a="$1" -v b="$2" -v f="$3" 'BEGIN { d = a - b; exit !(b > 0 && d <= f * b && -d <= f * b) }'; }

expect_success 'the lull log is what it says: 7/s of the key in the lull, above 5 x baseline' '
	l=$(rate_in 27951 27986) && b=$(rate_in 27910 27930) && echo "lull $l baseline $b" &&
	awk -v l="$l" -v b="$b" "BEGIN { exit !(l > 5 * b && l < 0.25 * 57) }"
'

expect_success 'two floods and a lull: two rises, each at its own mean (awk, 5 %)' '
	lbt-rate --episodes --top 1 --no-header lull.log > ep &&
	cat ep && test "$(wc -l < ep)" = 2 && test "$(cut -f 1 ep | sort -u)" = $flood &&
	test "$(cut -f 2 ep | sort -u)" = rise &&
	near "$(sod "$(sed -n 1p ep | cut -f 3)")" 27930 1 &&
	near "$(sod "$(sed -n 1p ep | cut -f 4)")" 27951 1 &&
	near "$(sod "$(sed -n 2p ep | cut -f 3)")" 27986 1 &&
	near "$(sod "$(sed -n 2p ep | cut -f 4)")" 27996 1 &&
	within "$(sed -n 1p ep | cut -f 7)" "$(rate_in 27930 27951)" 0.05 &&
	within "$(sed -n 2p ep | cut -f 7)" "$(rate_in 27986 27996)" 0.05
'

expect_success 'its row: two episodes, the first one in the columns' '
	lbt-rate --top 1 --no-header lull.log > row &&
	test "$(cut -f 10 row)" = 2 &&
	test "$(cut -f 6 row)" = "$(sed -n 1p ep | cut -f 3)" &&
	test "$(cut -f 8 row)" = "$(sed -n 1p ep | cut -f 7)"
'

# lb2: the lines of lb1 with the host lb2, up to 07:45:45 (27945).
awk -f stamps.awk -e 'tod() >= 0 && tod() < 27945 { sub(/ lb1 haproxy/, " lb2 haproxy"); print }' \
	haproxy-httplog-rfc3164.log > lb2.log
cp haproxy-httplog-rfc3164.log lb1.log

expect_success 'an LB that leaves rotation: a drop from the second after its last request' '
	last=$(awk -f stamps.awk -e "{ t = tod(); if (t > m) m = t } END { print int(m) }" lb2.log) &&
	lbt-rate --by lb --episodes --no-header lb1.log lb2.log > lbs &&
	cat lbs &&
	drop=$(awk -F"\t" "\$1 == \"lb2\" && \$2 == \"drop\"" lbs) && test -n "$drop" &&
	test "$(sod "$(echo "$drop" | cut -f 3)")" = $((last + 1)) &&
	test "$(echo "$drop" | cut -f 4)" = ongoing &&
	test "$(echo "$drop" | cut -f 7)" = 0.00 &&
	test "$(awk -F"\t" "\$1 == \"lb1\" && \$2 == \"drop\"" lbs)" = ""
'

expect_success 'lb2 keeps its baseline, lb1 and lb2 the same one (the same lines before)' '
	lbt-rate --by lb --no-header lb1.log lb2.log > rows &&
	test "$(awk -F"\t" "\$1 == \"lb1\"" rows | cut -f 5)" = "$(awk -F"\t" "\$1 == \"lb2\"" rows | cut -f 5)"
'
test_done
