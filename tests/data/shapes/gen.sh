#!/bin/sh
# Make the fixtures of tests/data/shapes for real (README.md says what each
# is): NGINX 1.22 in front of a FastCGI responder on a unix socket that
# writes a multi-line stderr message (fcgi_stderr.py), with an access log
# in the ingress-nginx format (its $upstream_addr is the socket) and a
# CONNECT request; HAProxy 2.6 logging in RFC 5424 to rsyslog 8.2302,
# which writes RSYSLOG_FileFormat.  Everything runs in network and UTS
# namespaces of its own (root), on documentation addresses only, the
# host name "lb2"; paths of the run become /run/app.
#
#   sh tests/data/shapes/gen.sh [OUTDIR]    (default: this directory)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here}
if [ "${LBT_SHAPES_NS:-}" != 1 ]; then
	[ "$(id -u)" = 0 ] || { echo "gen.sh: needs root (namespaces)" >&2; exit 1; }
	for p in nginx haproxy rsyslogd curl python3 ip unshare; do
		command -v "$p" >/dev/null || PATH=/usr/sbin:/sbin:$PATH
		command -v "$p" >/dev/null || { echo "gen.sh: $p missing" >&2; exit 1; }
	done
	LBT_SHAPES_NS=1 exec unshare -nu sh "$0" "$out"
fi

hostname lb2
ip link set lo up
ip addr add 192.0.2.80/32 dev lo
ip addr add 203.0.113.7/32 dev lo
ip addr add 2001:db8::7/128 dev lo nodad
mkdir -p "$out"
run=$(mktemp -d /tmp/lbt-shapes.XXXXXX)
trap 'kill $(cat "$run"/*.pid 2>/dev/null) 2>/dev/null; rm -rf "$run"' EXIT
chmod 755 "$run"     # the NGINX workers (nobody) reach the socket

# --- NGINX and the FastCGI responder ---------------------------------------
cat > "$run/nginx.conf" <<EOF
pid $run/nginx.pid;
error_log $run/error.log notice;
events { worker_connections 64; }
http {
	access_log off;
	log_format upstreaminfo '\$remote_addr - \$remote_user [\$time_local] "\$request" '
	    '\$status \$body_bytes_sent "\$http_referer" "\$http_user_agent" '
	    '\$request_length \$request_time [\$proxy_upstream_name] '
	    '[\$proxy_alternative_upstream_name] \$upstream_addr '
	    '\$upstream_response_length \$upstream_response_time \$upstream_status \$request_id';
	map \$host \$proxy_upstream_name { default app-php; }
	map \$host \$proxy_alternative_upstream_name { default ""; }
	client_body_temp_path $run/body;
	fastcgi_temp_path $run/fastcgi;
	proxy_temp_path $run/proxy;
	uwsgi_temp_path $run/uwsgi;
	scgi_temp_path $run/scgi;
	server {
		listen 192.0.2.80:80;
		listen [2001:db8::7]:80;
		server_name www.example.net;
		access_log $run/access.log upstreaminfo;
		location / {
			fastcgi_param SCRIPT_FILENAME /var/www/app/index.php;
			fastcgi_param REQUEST_METHOD \$request_method;
			fastcgi_param QUERY_STRING \$query_string;
			fastcgi_pass unix:$run/php-fpm.sock;
		}
		location /static/ { return 200 "ok\n"; }
	}
}
EOF
python3 "$here/fcgi_stderr.py" "$run/php-fpm.sock" 3 &
echo $! > "$run/fcgi.pid"
i=0; while [ ! -S "$run/php-fpm.sock" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
nginx -c "$run/nginx.conf" -p "$run"
c="curl -s -o /dev/null --max-time 5"
$c --interface 203.0.113.7 http://192.0.2.80/static/a
$c --interface 203.0.113.7 -A "Mozilla/5.0" "http://192.0.2.80/index.php?id=7"
$c --interface 2001:db8::7 -H "Host: www.example.net" "http://[2001:db8::7]/cart"
$c --interface 203.0.113.7 -p -x http://192.0.2.80:80 https://www.example.net/ || true
$c --interface 203.0.113.7 "http://192.0.2.80/login"
$c --interface 203.0.113.7 http://192.0.2.80/static/b
sleep 0.5
nginx -c "$run/nginx.conf" -p "$run" -s stop
sleep 0.5

# --- HAProxy in RFC 5424, rsyslog's file format ----------------------------
cat > "$run/rsyslog.conf" <<EOF
global(workDirectory="$run")
module(load="imudp")
input(type="imudp" address="127.0.0.1" port="5514")
*.* action(type="omfile" file="$run/haproxy.log" template="RSYSLOG_FileFormat")
EOF
rsyslogd -n -f "$run/rsyslog.conf" -i "$run/rsyslog.pid" &
sleep 1
cat > "$run/haproxy.cfg" <<EOF
global
	log 127.0.0.1:5514 len 4096 format rfc5424 local0
	log-send-hostname lb2
	pidfile $run/haproxy.pid
defaults
	log global
	mode http
	option httplog
	timeout connect 1s
	timeout client 5s
	timeout server 5s
frontend fe_http
	bind 192.0.2.80:8081
	http-request capture req.hdr(host) len 40
	default_backend be_app
backend be_app
	option httpchk GET /static/x
	default-server inter 200ms fall 1 rise 1
	server app1 192.0.2.80:8082
	server app2 192.0.2.80:8083 check
EOF
cat > "$run/up.conf" <<EOF
pid $run/up.pid;
error_log $run/up-error.log;
events { worker_connections 64; }
http { access_log off; client_body_temp_path $run/body2; proxy_temp_path $run/proxy2;
	fastcgi_temp_path $run/fastcgi2; uwsgi_temp_path $run/uwsgi2; scgi_temp_path $run/scgi2;
	server { listen 192.0.2.80:8082; listen 192.0.2.80:8083; return 200 "up\n"; } }
EOF
nginx -c "$run/up.conf" -p "$run"
haproxy -D -f "$run/haproxy.cfg"
sleep 1
for p in /ping/a /ping/b /ping/c /ping/d; do
	$c --interface 203.0.113.7 -H "Host: www.example.net" "http://192.0.2.80:8081$p"
done
nginx -c "$run/up.conf" -p "$run" -s stop       # app2's check fails: DOWN
sleep 1
$c --interface 203.0.113.7 -H "Host: www.example.net" "http://192.0.2.80:8081/ping/e"
sleep 0.5
kill "$(cat "$run/haproxy.pid")"
sleep 0.5
kill "$(cat "$run/rsyslog.pid")"
sleep 0.5

sed "s|$run|/run/app|g" "$run/error.log" | grep -v '^[^ ]* [^ ]* \[notice\]' \
    > "$out/nginx-fastcgi-error.log"
sed "s|$run|/run/app|g" "$run/access.log" > "$out/nginx-ingress-unix.log"
cp "$run/haproxy.log" "$out/haproxy-rsyslog-rfc5424.log"
sed "s|$run|/run/app|g" "$run/haproxy.cfg" > "$out/haproxy-rsyslog.cfg"
wc -l "$out/nginx-fastcgi-error.log" "$out/nginx-ingress-unix.log" \
    "$out/haproxy-rsyslog-rfc5424.log"
