#!/bin/sh
# Generate a synthetic HAProxy httplog (1.7+ `option httplog`) for benchmarks.
#   bench/genlog.sh LINES [SEED] > big.log
# 2000 ping UUIDs from 5000 IPv4 and 1000 IPv6 sources at a steady rate, and,
# in the second half, one UUID flooded from 203.0.113.7 and a rotating IPv6
# /64 with tarpitted (PT--) answers: the shape of the seed incident, at scale.
# Addresses come from the documentation ranges only.
set -eu
lines=${1:?usage: genlog.sh LINES [SEED]}
seed=${2:-1}
exec awk -v n="$lines" -v seed="$seed" '
function uuid(i) { return sprintf("%08x-%04x-4%03x-a%03x-%012x", i * 2654435761 % 4294967296, i % 65536, i % 4096, (i * 7) % 4096, i * 99991) }
function v4(i)   { return sprintf("%s.%d", (i % 3 == 0) ? "192.0.2" : ((i % 3 == 1) ? "198.51.100" : "203.0.113"), 1 + i % 250) }
function v6(i)   { return sprintf("2001:db8:%x:%x::%x", 1 + i % 200, i % 7, 1 + i) }
BEGIN {
	srand(seed)
	split("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec", mon, " ")
	t0 = 1762035841; flood = uuid(7)
	for (i = 0; i < 2000; i++) keys[i] = uuid(i)
	for (l = 0; l < n; l++) {
		t = t0 + int(l / 2000); ms = l % 1000
		if (l > n / 2 && rand() < 0.5) {
			k = flood; st = 500; tsc = "PT--"; srv = "fe_http/<NOSRV>"
			tw = 1000 + int(rand() * 3); timers = "-1/" tw "/-1/-1/" tw
			src = (rand() < 0.4) ? "203.0.113.7" : sprintf("2001:db8:bad:1::%x", int(rand() * 65536))
		} else {
			k = keys[int(rand() * 2000)]; st = (rand() < 0.97) ? 200 : 404; tsc = "----"
			srv = "be_app/app" (1 + l % 3); tr = int(rand() * 3); tc = int(rand() * 2)
			tr2 = int(rand() * 20); timers = tr "/0/" tc "/" tr2 "/" (tr + tc + tr2)
			src = (rand() < 0.8) ? v4(int(rand() * 5000)) : v6(int(rand() * 1000))
		}
		port = 1024 + int(rand() * 60000)
		path = (rand() < 0.5) ? ("/ping/" k) : ("/" k)
		# the date is derived arithmetically: 2025-11-01 plus whole days
		d = int((t - 1761955200) / 86400); s = (t - 1761955200) % 86400
		printf "%s:%d [%02d/Nov/2025:%02d:%02d:%02d.%03d] fe_http %s %s %d %d - - %s %d/%d/%d/%d/%d 0/0 {hc-ping.com|curl/8.5.0} \"GET %s HTTP/1.1\"\n", \
			src, port, 1 + d, int(s / 3600), int(s % 3600 / 60), s % 60, ms, srv, timers, st, (st == 200 ? 135 : 0), \
			tsc, 20, 18, 3, 1, 0, path
	}
}'
