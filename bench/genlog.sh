#!/bin/sh
# Generate a synthetic access log for benchmarks and tests, deterministic
# for a seed (awk's srand).
#   bench/genlog.sh [--syslog] [--mix tests|bench|distinct64]
#                   [--format haproxy|nginx-combined|nginx-json] LINES [SEED] > big.log
#
# --mix tests (the default; tests rely on it, byte for byte): HAProxy
#   httplog (1.7+ `option httplog`), 2000 ping UUIDs from 5000 IPv4 and 1000
#   IPv6 sources at a steady rate, and, in the second half, one UUID flooded
#   from 203.0.113.7 and a rotating IPv6 /64 with tarpitted (PT--) answers:
#   the shape of the seed incident, at scale.
# --mix bench: the benchmark's traffic (`make bench`): 22 % of requests
#   from IPv6, each from a new address inside one of 4000 /64s (clients
#   rotating their interface identifiers), the others from LINES/50 IPv4
#   addresses (at most 131072, in 198.18.0.0/15, the benchmarking range of
#   RFC 2544): 1.2 M distinct addresses in 5 M lines; 20000 keys; in the
#   second half a fifth of the requests flood one key, tarpitted (PT--, held
#   1 s, so logged 1 s after they were accepted), from 203.0.113.7 or from
#   2001:db8:bad:1::/64.
# --mix distinct64: the bench traffic, every request from a /64 of its own.
# --syslog: a syslog header on each line (what halog expects).
# --format: the same requests as NGINX writes them (combined, or the JSON
#   of formats/nginx-json.fmt); the random draws do not depend on the
#   format, so one seed gives the same traffic in every format.
# Addresses come from the documentation ranges (and, for --mix bench and
# distinct64, 198.18.0.0/15) only.
set -eu
mix=tests format=haproxy syslog=0
while [ $# -gt 0 ]; do
	case $1 in
	--syslog) syslog=1; shift ;;
	--mix) mix=${2:?--mix needs a value}; shift 2 ;;
	--format) format=${2:?--format needs a value}; shift 2 ;;
	--) shift; break ;;
	-*) echo "genlog.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
lines=${1:?usage: genlog.sh [--syslog] [--mix tests|bench|distinct64] [--format haproxy|nginx-combined|nginx-json] LINES [SEED]}
seed=${2:-1}
case $mix in tests|bench|distinct64) ;; *) echo "genlog.sh: --mix tests, bench or distinct64" >&2; exit 2 ;; esac
case $format in haproxy|nginx-combined|nginx-json) ;; *) echo "genlog.sh: --format haproxy, nginx-combined or nginx-json" >&2; exit 2 ;; esac
if [ "$mix" = tests ] && [ "$format" = haproxy ] && [ "$syslog" = 0 ]; then
	# The original generator, unchanged: tests compare against its output.
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
fi
exec awk -v n="$lines" -v seed="$seed" -v mix="$mix" -v fmt="$format" -v syslog="$syslog" '
function uuid(i) { return sprintf("%08x-%04x-4%03x-a%03x-%012x", i * 2654435761 % 4294967296, i % 65536, i % 4096, (i * 7) % 4096, i * 99991) }
# IPv4 source i of the bench: 198.18.0.0/15, the range set aside for
# benchmarks (RFC 2544), the documentation ranges being 762 addresses only
function v4(i)   { return sprintf("198.%d.%d.%d", 18 + int(i / 65536) % 2, int(i / 256) % 256, i % 256) }
function iid()   { return sprintf("%x:%x:%x:%x", 1 + int(rand() * 65535), int(rand() * 65536), int(rand() * 65536), 1 + int(rand() * 65535)) }
# the /64 number j (0 .. 3999, or any for distinct64) as its first 4 groups
function net64(j) { return sprintf("2001:db8:%x:%x", 256 + int(j / 65536), j % 65536) }
# "HH:MM:SS" and the day of 2025-11 of epoch second t (t after 2025-11-01)
function hms(t,   s) { s = (t - 1761955200) % 86400; return sprintf("%02d:%02d:%02d", int(s / 3600), int(s % 3600 / 60), s % 60) }
function day(t)  { return 1 + int((t - 1761955200) / 86400) }
BEGIN {
	srand(seed)
	t0 = 1762035841; flood = uuid(7); nkeys = 20000
	nv4 = int(n / 50); if (nv4 < 100) nv4 = 100; if (nv4 > 131072) nv4 = 131072
	for (i = 0; i < nkeys; i++) keys[i] = uuid(i)
	for (l = 0; l < n; l++) {
		# 2000 requests a second, in order; a tarpitted one accepted 1 s earlier
		t = t0 + int(l / 2000); ms = int((l % 2000) / 2)
		six = mix == "distinct64" || rand() < 0.22
		if (l > n / 2 && rand() < 0.2) {
			k = flood; st = 500; tsc = "PT--"; srv = "fe_http/<NOSRV>"; t = t - 1
			tw = 1000 + int(rand() * 3); tr = -1; tc = -1; tr2 = -1; ta = tw; timers = "-1/" tw "/-1/-1/" tw
			src = six ? "2001:db8:bad:1:" iid() : "203.0.113.7"
			if (mix == "distinct64") src = net64(l) ":" iid()
			fc = 300 + int(rand() * 200)
		} else {
			k = keys[int(rand() * nkeys)]; st = (rand() < 0.97) ? 200 : 404; tsc = "----"
			srv = "be_app/app" (1 + l % 3); tr = int(rand() * 3); tc = int(rand() * 2)
			tr2 = int(rand() * 20); tw = 0; ta = tr + tc + tr2; timers = tr "/0/" tc "/" tr2 "/" ta
			src = mix == "distinct64" ? net64(l) ":" iid() : six ? net64(int(rand() * 4000)) ":" iid() : v4(int(rand() * nv4))
			fc = 10 + int(rand() * 40)
		}
		port = 1024 + int(rand() * 60000)
		path = (rand() < 0.5) ? ("/ping/" k) : ("/" k)
		bytes = st == 200 ? 135 : 0
		head = syslog ? sprintf("Nov %2d %s lb1 %s[1234]: ", day(t), hms(t), fmt == "haproxy" ? "haproxy" : "nginx") : ""
		if (fmt == "haproxy")
			printf "%s%s:%d [%02d/Nov/2025:%s.%03d] fe_http %s %s %d %d - - %s %d/%d/%d/%d/%d 0/0 {hc-ping.com|curl/8.5.0} \"GET %s HTTP/1.1\"\n", \
				head, src, port, day(t), hms(t), ms, srv, timers, st, bytes, tsc, fc + 2, fc, int(fc / 6), int(fc / 18), 0, path
		else if (fmt == "nginx-combined")
			printf "%s%s - - [%02d/Nov/2025:%s +0000] \"GET %s HTTP/1.1\" %d %d \"-\" \"curl/8.5.0\"\n", \
				head, src, day(t), hms(t), path, st, bytes
		else
			printf "%s{\"time\":\"2025-11-%02dT%s+00:00\",\"msec\":\"%d.%03d\",\"remote_addr\":\"%s\",\"remote_port\":\"%d\",\"realip_remote_addr\":\"%s\",\"remote_user\":\"\",\"request\":\"GET %s HTTP/1.1\",\"request_method\":\"GET\",\"request_uri\":\"%s\",\"server_protocol\":\"HTTP/1.1\",\"status\":%d,\"body_bytes_sent\":%d,\"bytes_sent\":%d,\"request_length\":92,\"request_time\":%.3f,\"host\":\"hc-ping.com\",\"http_referer\":\"\",\"http_user_agent\":\"curl/8.5.0\",\"http_x_forwarded_for\":\"\",\"connection\":\"%d\",\"connection_requests\":\"1\"}\n", \
				head, day(t), hms(t), t, ms, src, port, src, path, path, st, bytes, bytes + 160, ta / 1000, l + 1
	}
}'
