#!/bin/bash
# shapes.sh - real-server fixtures for the log shapes of "real deployments"
# (tests/data/real/README.md): NGINX 1.22 error-log lines of limit_req,
# limit_conn and upstream failures; NGINX access logs with an
# X-Forwarded-For list first, a $host (and $host:$server_port) prefix, the
# ingress-nginx upstreaminfo format, a typical escape=json format; HAProxy
# 2.6 httplog followed by %sslv %sslc %ID, a JSON log-format written by
# hand, and a raw log with a master-worker reload (and the master's
# stderr).
#
# usage: tests/lab/shapes.sh [DEST]        (default: tests/data/real)
#
# Root; everything runs in a network namespace of its own, documentation
# addresses only (192.0.2.1 HAProxy, 192.0.2.2 NGINX and two small Python
# upstreams, clients 203.0.113.7, 198.51.100.2, 2001:db8::7), about 80
# requests, some 20 s.  Lines are kept as the servers wrote them; the run's
# directory is replaced by /var/lib/lbtshapes.
set -eu
PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
export TZ=UTC
here=$(cd "$(dirname "$0")" && pwd)
dest=${1:-$here/../data/real}
dest=$(cd "$dest" && pwd)
[ "$(id -u)" = 0 ] || { echo "shapes.sh: must run as root (network namespace)" >&2; exit 1; }
for b in haproxy nginx curl openssl /usr/bin/python3; do
	command -v "$b" >/dev/null || { echo "shapes.sh: $b is missing (make deps)" >&2; exit 1; }
done
ns=lbtshapes$$
d=$(mktemp -d /tmp/lbtshapes.XXXXXX)
U=5bf66975-d4c7-4bf5-bcc8-b8d8a82ea278
PIDS=""
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null || true; done
	sleep 0.3
	ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
	ip netns del "$ns" 2>/dev/null || true
	rm -rf "$d"
}
trap cleanup EXIT INT TERM
nsx() { ip netns exec "$ns" "$@"; }
bg() {   # bg NAME CMD... - start CMD in the namespace, stdout/stderr to $d/NAME.*
	local name=$1
	shift
	ip netns exec "$ns" "$@" >"$d/$name.out" 2>"$d/$name.err" &   # exec: $! is CMD
	PIDS="$PIDS $!"
	echo $! >"$d/$name.bgpid"
}
# c SRC URL [curl args] - one request from SRC, output dropped.
c() {
	local src=$1 url=$2
	shift 2
	nsx curl -s -o /dev/null -m 4 --interface "$src" "$@" "$url" || true
}
# raw SRC PORT BYTES - send BYTES (printf format) to 192.0.2.2:PORT from SRC, read the answer.
raw() {
	nsx /usr/bin/python3 - "$1" "$2" "$3" <<'PY'
import socket, sys
s = socket.socket()
s.bind((sys.argv[1], 0))
s.settimeout(3)
s.connect(("192.0.2.2", int(sys.argv[2])))
s.sendall(sys.argv[3].encode().decode("unicode_escape").encode("latin-1"))
try:
    s.recv(4096)
except OSError:
    pass
s.close()
PY
}

ip netns add "$ns"
ip -n "$ns" link set lo up
for a in 192.0.2.1 192.0.2.2 203.0.113.7 198.51.100.2; do ip -n "$ns" addr add "$a/32" dev lo; done
for a in 2001:db8::2 2001:db8::7; do ip -n "$ns" addr add "$a/128" dev lo nodad; done

# Upstreams: 8097 answers after 1.5 s, 8098 never answers, 8099 and 8096 are closed.
cat >"$d/slow.py" <<'PY'
import socket, sys, threading, time
def serve(port, delay):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("192.0.2.2", port))
    s.listen(64)
    while True:
        c, _ = s.accept()
        def answer(c=c):
            try:
                c.recv(4096)
                if delay is None:
                    time.sleep(30)
                    return
                time.sleep(delay)
                c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: close\r\n\r\nOK\n")
            finally:
                c.close()
        threading.Thread(target=answer, daemon=True).start()
threading.Thread(target=serve, args=(8097, 1.5), daemon=True).start()
serve(8098, None)
PY
bg slow /usr/bin/python3 "$d/slow.py"

mkdir -p "$d/html" "$d/tmp"
echo OK >"$d/html/ok"
chmod 755 "$d" "$d/html"          # the NGINX worker (nobody) reads html/
cat >"$d/nginx.conf" <<EOF
worker_processes 1;
pid $d/nginx.pid;
error_log $d/nginx-error.log info;
daemon off;
events { worker_connections 256; }
http {
    client_body_temp_path $d/tmp/body;
    proxy_temp_path $d/tmp/proxy;
    fastcgi_temp_path $d/tmp/fastcgi;
    uwsgi_temp_path $d/tmp/uwsgi;
    scgi_temp_path $d/tmp/scgi;
    log_format xff '\$proxy_add_x_forwarded_for - \$remote_user [\$time_local] "\$request" \$status \$body_bytes_sent "\$http_referer" "\$http_user_agent"';
    log_format vhost '\$host \$remote_addr - \$remote_user [\$time_local] "\$request" \$status \$body_bytes_sent "\$http_referer" "\$http_user_agent"';
    log_format vhostport '\$host:\$server_port \$remote_addr - \$remote_user [\$time_local] "\$request" \$status \$body_bytes_sent "\$http_referer" "\$http_user_agent"';
    log_format upstreaminfo '\$remote_addr - \$remote_user [\$time_local] "\$request" '
        '\$status \$body_bytes_sent "\$http_referer" "\$http_user_agent" '
        '\$request_length \$request_time [\$proxy_upstream_name] [\$proxy_alternative_upstream_name] \$upstream_addr '
        '\$upstream_response_length \$upstream_response_time \$upstream_status \$req_id';
    log_format jsonlog escape=json '{"time_local":"\$time_local","remote_addr":"\$remote_addr",'
        '"remote_user":"\$remote_user","request":"\$request","status":"\$status",'
        '"body_bytes_sent":"\$body_bytes_sent","request_time":"\$request_time",'
        '"http_referrer":"\$http_referer","http_user_agent":"\$http_user_agent",'
        '"http_x_forwarded_for":"\$http_x_forwarded_for","upstream_addr":"\$upstream_addr",'
        '"upstream_response_time":"\$upstream_response_time","upstream_status":"\$upstream_status",'
        '"host":"\$host"}';
    access_log $d/nginx-xff.log xff;
    access_log $d/nginx-vhost.log vhost;
    access_log $d/nginx-vhost-port.log vhostport;
    access_log $d/nginx-ingress.log upstreaminfo;
    access_log $d/json-nginx.log jsonlog;
    limit_req_zone \$binary_remote_addr zone=perip:1m rate=1r/s;
    limit_conn_zone \$binary_remote_addr zone=perconn:1m;
    proxy_connect_timeout 1s;
    proxy_read_timeout 1s;
    upstream retry { server 192.0.2.2:8099 max_fails=1 fail_timeout=30s; server 192.0.2.2:8080; }
    upstream dead { server 192.0.2.2:8099 max_fails=1 fail_timeout=30s; server 192.0.2.2:8096 max_fails=1 fail_timeout=30s; }
    server {
        listen 192.0.2.2:8080;
        listen [2001:db8::2]:8080;
        server_name hc-ping.com;
        root $d/html;
        set \$proxy_upstream_name "default-hc-ping-80";
        set \$proxy_alternative_upstream_name "";
        set \$req_id \$request_id;
        location /ping/ { limit_req zone=perip burst=2 nodelay; limit_req_status 429; try_files /ok =404; }
        location /conn/ { limit_conn perconn 1; proxy_pass http://192.0.2.2:8097; }
        location /slow/ { proxy_pass http://192.0.2.2:8098; }
        location /closed/ { proxy_pass http://192.0.2.2:8099; }
        location /retry/ { proxy_pass http://retry/ok; }
        location /dead/ { proxy_pass http://dead; }
        location = /ok { }
    }
}
EOF
bg nginx nginx -c "$d/nginx.conf" -p "$d"
sleep 1

# HAProxy 2.6 master-worker: httplog + TLS extras, a hand-made JSON
# format, and a raw httplog on stdout with a server that goes DOWN.
openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=hc-ping.com -days 2 \
	-keyout "$d/k.pem" -out "$d/c.pem" 2>/dev/null
cat "$d/c.pem" "$d/k.pem" >"$d/hc.pem"
cat >"$d/haproxy.cfg" <<EOF
global
    log stdout format raw local0
defaults
    mode http
    log global
    timeout connect 1s
    timeout client 3s
    timeout server 3s
frontend fe_extra
    bind 192.0.2.1:80
    bind 192.0.2.1:443 ssl crt $d/hc.pem
    no log
    log 127.0.0.1:5190 format raw local0
    unique-id-format %{+X}o\\ %ci:%cp_%fi:%fp_%Ts_%rt:%pid
    log-format "%ci:%cp [%tr] %ft %b/%s %TR/%Tw/%Tc/%Tr/%Ta %ST %B %CC %CS %tsc %ac/%fc/%bc/%sc/%rc %sq/%bq %hr %hs %{+Q}r %sslv %sslc %ID"
    capture request header Host len 40
    default_backend be_app
frontend fe_json
    bind 192.0.2.1:81
    no log
    log 127.0.0.1:5191 format raw local0
    log-format '{"timestamp":%Ts,"client_ip":"%ci","client_port":%cp,"frontend_name":"%f","backend_name":"%b","server_name":"%s","Tw":%Tw,"Tc":%Tc,"Tt":%Tt,"status_code":%ST,"bytes_read":%B,"termination_state":"%tsc","http_request":"%r"}'
    default_backend be_app
frontend fe_raw
    bind 192.0.2.1:82
    option httplog
    default_backend be_app
backend be_app
    option httpchk GET /ok
    server app1 192.0.2.2:8080
    server app2 192.0.2.2:8099 check inter 1s fall 1
EOF
cat >"$d/sink.py" <<'PY'
import select, socket, sys
s = {}
for port, name in ((5190, "haproxy-httplog-extra.log"), (5191, "json-haproxy.log")):
    k = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    k.bind(("127.0.0.1", port))
    s[k] = open(sys.argv[1] + "/" + name, "wb", buffering=0)
while True:
    r, _, _ = select.select(list(s), [], [])
    for k in r:
        data = k.recv(65536)
        s[k].write(data.rstrip(b"\n") + b"\n")
PY
bg sink /usr/bin/python3 "$d/sink.py" "$d"
bg haproxy haproxy -W -db -f "$d/haproxy.cfg"
sleep 2

# NGINX: limit_req (a burst of 6 from one client), limit_conn (3 at once).
for i in 1 2 3 4 5 6; do c 203.0.113.7 "http://192.0.2.2:8080/ping/$U" -H 'Host: hc-ping.com'; done
cp=""
for i in 1 2 3; do
	c 198.51.100.2 "http://192.0.2.2:8080/conn/$U" -H 'Host: hc-ping.com' &
	cp="$cp $!"
done
for p in $cp; do wait "$p"; done     # not a bare wait: the servers are children too
# upstreams: timed out, refused, a retry list, no live upstreams
c 203.0.113.7 "http://192.0.2.2:8080/slow/$U" -H 'Host: hc-ping.com'
c 203.0.113.7 "http://192.0.2.2:8080/closed/$U" -H 'Host: hc-ping.com'
c 203.0.113.7 "http://192.0.2.2:8080/retry/$U" -H 'Host: hc-ping.com'
c 203.0.113.7 "http://192.0.2.2:8080/dead/$U" -H 'Host: hc-ping.com'
c 203.0.113.7 "http://192.0.2.2:8080/dead/$U" -H 'Host: hc-ping.com'
# X-Forwarded-For: none, one, two; IPv6; a port in the Host header
sleep 1.2
c 203.0.113.7 "http://192.0.2.2:8080/ok" -H 'Host: hc-ping.com'
c 198.51.100.2 "http://192.0.2.2:8080/ok" -H 'Host: hc-ping.com' -H 'X-Forwarded-For: 203.0.113.7'
c 198.51.100.2 "http://192.0.2.2:8080/ok?x=1" -H 'Host: hc-ping.com' -H 'X-Forwarded-For: 2001:db8::7, 203.0.113.7'
c 198.51.100.2 "http://192.0.2.2:8080/ok" -H 'Host: hc-ping.com' -H 'X-Forwarded-For: unknown'
c 2001:db8::7 "http://[2001:db8::2]:8080/ok" -g
c 2001:db8::7 "http://[2001:db8::2]:8080/ok" -g -H 'Host: hc-ping.com:8080' -A 'curl/8 "q" café'
# junk request lines
raw 203.0.113.7 8080 'HELP\r\n\r\n'
raw 203.0.113.7 8080 'HELLO WORLD\r\n\r\n'
raw 203.0.113.7 8080 'GET /a b c\r\n\r\n'
raw 203.0.113.7 8080 '\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03\r\n\r\n'

# HAProxy: extras over TLS and plain, JSON, a junk line; the raw log.
c 203.0.113.7 "https://192.0.2.1/ok" -k -H 'Host: hc-ping.com'
c 203.0.113.7 "https://192.0.2.1/ping/$U?x=1" -k -H 'Host: hc-ping.com' --http1.1
c 198.51.100.2 "http://192.0.2.1/ok" -H 'Host: hc-ping.com'
c 203.0.113.7 "http://192.0.2.1:81/ok" -H 'Host: hc-ping.com'
c 203.0.113.7 "http://192.0.2.1:81/ping/$U?a=%22b" -H 'Host: hc-ping.com'
for i in 1 2 3 4 5 6 7 8; do
	c 203.0.113.7 "http://192.0.2.1:80/ok?n=$i" -H 'Host: hc-ping.com'
	c 198.51.100.2 "http://192.0.2.1:81/ok?n=$i" -H 'Host: hc-ping.com'
	c 203.0.113.7 "http://192.0.2.1:82/ok?n=$i" -H 'Host: hc-ping.com'
done
nsx /usr/bin/python3 -c '
import socket
for port in (80, 81):
    s = socket.create_connection(("192.0.2.1", port), 3, ("203.0.113.7", 0))
    s.sendall(b"HELP\r\n\r\n")
    try:
        s.recv(4096)
    except OSError:
        pass
    s.close()' || true
sleep 1
kill -USR2 "$(cat "$d/haproxy.bgpid")"    # master-worker reload
sleep 2
for i in 1 2 3; do c 203.0.113.7 "http://192.0.2.1:82/ok?after=$i" -H 'Host: hc-ping.com'; done
c 203.0.113.7 "http://192.0.2.1:80/ok" -H 'Host: hc-ping.com'
c 203.0.113.7 "http://192.0.2.1:81/ok" -H 'Host: hc-ping.com'
kill -HUP "$(cat "$d/nginx.bgpid")"       # NGINX reload: notices in error.log
sleep 1.5
kill -USR1 "$(cat "$d/haproxy.bgpid")"    # soft stop
kill -QUIT "$(cat "$d/nginx.bgpid")"
sleep 1.5

keep() {   # keep SRC NAME - copy with the run's directory replaced
	sed "s|$d|/var/lib/lbtshapes|g" "$1" >"$dest/$2"
	echo "$(wc -l <"$dest/$2") lines in $dest/$2"
}
keep "$d/nginx-error.log" nginx-limits-error.log
for f in nginx-xff nginx-vhost nginx-vhost-port nginx-ingress json-nginx; do keep "$d/$f.log" "$f.log"; done
keep "$d/haproxy-httplog-extra.log" haproxy-httplog-extra.log
keep "$d/json-haproxy.log" json-haproxy.log
keep "$d/haproxy.out" haproxy-httplog-events.log
keep "$d/haproxy.err" haproxy-master.stderr
