#!/bin/sh
# HAProxy's minimal format (a frontend with `log` but no log option, see
# docs/formats.md, "Built-in formats") from the real server: writes
# tests/data/real/haproxy-minimal.log (or the file given).  Root; runs in a
# network namespace of its own with documentation addresses; 10 s at most.
set -eu
out=${1:-$(dirname "$0")/../data/real/haproxy-minimal.log}
ns=lbtmin$$
d=$(mktemp -d)
cleanup() {
	ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null || true
	ip netns del "$ns" 2>/dev/null || true
	rm -rf "$d"
}
trap cleanup EXIT INT TERM
ip netns add "$ns"
ip -n "$ns" link set lo up
for a in 192.0.2.1/32 203.0.113.5/32; do ip -n "$ns" addr add "$a" dev lo; done
for a in 2001:db8::1/128 2001:db8:5::7/128; do ip -n "$ns" addr add "$a" dev lo nodad; done
cat > "$d/h.cfg" <<'CFG'
global
    log stdout format raw local0
defaults
    mode http
    log global
    timeout connect 1s
    timeout client 2s
    timeout server 2s
frontend fe_min
    bind 192.0.2.1:80
    bind [2001:db8::1]:80
    http-request return status 200 content-type text/plain string OK
frontend fe_tcpmin
    mode tcp
    bind 192.0.2.1:81
    default_backend be_tcp
backend be_tcp
    mode tcp
    server s1 192.0.2.1:80
CFG
ip netns exec "$ns" timeout 10 haproxy -f "$d/h.cfg" -db > "$d/out.log" 2>&1 &
sleep 1
U=5bf66975-d4c7-4bf5-bcc8-b8d8a82ea278
for i in 1 2 3 4; do
	ip netns exec "$ns" curl -s -o /dev/null -m 2 --interface 203.0.113.5 "http://192.0.2.1/ping/$U"
	ip netns exec "$ns" curl -s -o /dev/null -m 2 --interface 2001:db8:5::7 "http://[2001:db8::1]/ping/$U"
	ip netns exec "$ns" curl -s -o /dev/null -m 2 --interface 203.0.113.5 "http://192.0.2.1:81/"
done
sleep 1
grep '^Connect from ' "$d/out.log" > "$out"
echo "$(wc -l < "$out") lines in $out"
