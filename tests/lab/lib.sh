# shellcheck shell=bash disable=SC2016,SC2086
# SC2016: the templates are literal; SC2086: port:format lists split on purpose.
# lib.sh - shared code of the lbtriage lab (sourced by lab.sh, incident.sh).
#
# The lab runs NGINX (application server) behind HAProxy inside a private
# network namespace, with documentation addresses only, and sends every log
# line to files under one output directory.  Nothing listens outside the
# namespace; everything started here is stopped by lab_cleanup (EXIT trap).
#
# Also runnable as a hook for the traffic client (inside the namespace):
#     bash lib.sh hook OUTDIR app-down|app-up|reload|phase tarpit|deny|reject
# The incident also runs a second HAProxy instance (lb2, lab_start_lb2);
# a reload then reloads both.

PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
LAB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
LAB_PY=/usr/bin/python3
export TZ=${LAB_TZ:-UTC}

# Syslog sink: UDP port on 127.0.0.1 inside the namespace -> file in OUT.
LAB_SINKS="
5140 haproxy-httplog.log
5141 haproxy-httplog-rfc3164.log
5142 haproxy-httplog-rfc5424.log
5143 haproxy-httplog-local.log
5144 haproxy-httplog-short.log
5145 haproxy-httplog-timed.log
5146 haproxy-httplog-iso.log
5147 haproxy-httplog-priority.log
5149 haproxy-mixed.log
5150 haproxy-tcplog.log
5151 haproxy-httpslog.log
5152 haproxy-clf.log
5153 haproxy-legacy.log
5154 haproxy-compact.log
5160 nginx-syslog.log
5161 nginx-error-syslog.log
"
# More sinks (port file lines) a script adds before lab_start_sink.
LAB_SINKS_EXTRA=""
# lb2, the second HAProxy instance of the incident: its own sink
LAB_LB2_PORT=5170
# shellcheck disable=SC2034 # used by incident.sh
LAB_LB2_LOG=haproxy-lb2.log

# Log targets of the httplog frontends (port:format).  5149 collects every
# proxy of the instance in one rfc3164 file, as /var/log/haproxy.log would.
LAB_HTTPLOG_TARGETS="5140:raw 5141:rfc3164 5142:rfc5424 5143:local 5144:short 5145:timed 5146:iso 5147:priority 5149:rfc3164"

# Custom HAProxy log-formats.
LAB_HAP_LEGACY='%ci:%cp [%t] %ft %b/%s %Tq/%Tw/%Tc/%Tr/%Tt %ST %B %CC %CS %tsc %ac/%fc/%bc/%sc/%rc %sq/%bq %hr %hs %{+Q}r'
LAB_HAP_COMPACT='%Ts%ms %ci %cp %ft %b %s %TR %Tw %Tc %Tr %Ta %Tt %ST %B %tsc %ac %fc %bc %sc %rc %sq %bq %HM %{+Q}HU %HV %{+Q}[capture.req.hdr(0)] %{+Q}[capture.req.hdr(1)]'
# lb2's custom format: no %ft (the frontend is known from haproxy.cfg only),
# the date first and without brackets, status before the timers.
LAB_HAP_EDGE='%tr %ci:%cp %b/%s %ST %B %TR/%Tw/%Tc/%Tr/%Ta %tsc %ac/%fc/%bc/%sc/%rc %sq/%bq %{+Q}r'

# NGINX log formats ('combined' is built in).
LAB_NGINX_MAIN='$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" "$http_x_forwarded_for"'
LAB_NGINX_JSON='{"time":"$time_iso8601","msec":"$msec","remote_addr":"$remote_addr","remote_port":"$remote_port","realip_remote_addr":"$realip_remote_addr","remote_user":"$remote_user","request":"$request","request_method":"$request_method","request_uri":"$request_uri","server_protocol":"$server_protocol","status":$status,"body_bytes_sent":$body_bytes_sent,"bytes_sent":$bytes_sent,"request_length":$request_length,"request_time":$request_time,"host":"$host","http_referer":"$http_referer","http_user_agent":"$http_user_agent","http_x_forwarded_for":"$http_x_forwarded_for","connection":"$connection","connection_requests":"$connection_requests"}'

# Addresses (all documentation ranges).
LAB_LB4=192.0.2.1
LAB_LB6=2001:db8::1
LAB_LB2_4=192.0.2.3 # lb2 (second HAProxy instance, incident)
LAB_LB2_6=2001:db8::3
LAB_LB2_MAXCONN=30
LAB_APP4=192.0.2.2
LAB_APP6=2001:db8::2
# Sources the incident blocks at the TCP level in its last phase.
LAB_OFFENDERS="203.0.113.7 2001:db8:bad:1::/64"

LAB_NS=""
LAB_OUT=""
LAB_CONF=""
LAB_RUN=""

lab_msg() { printf '%s %s: %s\n' "$(date +%H:%M:%S)" "${LAB_PROG:-lab}" "$*" >&2; }
lab_die() { lab_msg "error: $*"; exit 1; }

# lab_require [extra-binary:package ...] - install what is missing.
# shellcheck disable=SC2120
lab_require() {
	[ "$(id -u)" = 0 ] || lab_die "must run as root (network namespaces)"
	local pkgs="" spec bin pkg
	for spec in haproxy:haproxy nginx:nginx openssl:openssl ip:iproute2 \
		unshare:util-linux /usr/bin/python3:python3 "$@"; do
		bin=${spec%%:*}
		pkg=${spec#*:}
		if [ "${bin#/}" != "$bin" ]; then
			[ -x "$bin" ] && continue
		else
			command -v "$bin" >/dev/null 2>&1 && continue
		fi
		pkgs="$pkgs $pkg"
	done
	[ -z "$pkgs" ] && return 0
	lab_msg "installing:$pkgs"
	local made_policy=0
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		# keep the packaged services from starting in the host namespace
		printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
		chmod 755 /usr/sbin/policy-rc.d
		made_policy=1
	fi
	apt-get update
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get install -y $pkgs || {
		[ $made_policy = 1 ] && rm -f /usr/sbin/policy-rc.d
		lab_die "apt-get install failed"
	}
	[ $made_policy = 1 ] && rm -f /usr/sbin/policy-rc.d
	return 0
}

lab_versions() {
	haproxy -v 2>/dev/null | head -1
	nginx -v 2>&1 | head -1
}

# lab_init OUTDIR - directories, namespace and addresses.
lab_init() {
	LAB_OUT=$1
	mkdir -p "$LAB_OUT"
	LAB_OUT=$(cd "$LAB_OUT" && pwd)
	LAB_CONF=$LAB_OUT/conf
	LAB_RUN=$LAB_OUT/run
	rm -rf "$LAB_CONF" "$LAB_RUN"
	rm -f "$LAB_OUT"/haproxy-*.log "$LAB_OUT"/nginx-*.log "$LAB_OUT"/truth.tsv \
		"$LAB_OUT"/phases.tsv "$LAB_OUT"/*.stderr "$LAB_OUT"/*.stdout \
		"$LAB_OUT"/events.tsv "$LAB_OUT"/rates.tsv "$LAB_OUT"/expected-*.tsv \
		"$LAB_OUT"/lbs.tsv "$LAB_OUT"/sources*.txt
	mkdir -p "$LAB_CONF" "$LAB_RUN" "$LAB_RUN/nginx-tmp"
	LAB_NS=lbtlab-$$
	echo "$LAB_NS" >"$LAB_RUN/ns"
	ip netns add "$LAB_NS"
	ip -n "$LAB_NS" link set lo up
	local a
	# one ip process for all the addresses (-batch): 70 of them
	for a in $("$LAB_PY" "$LAB_DIR/client.py" addrs); do
		case $a in
		*:*) echo "addr add $a/128 dev lo nodad" ;;
		*) echo "addr add $a/32 dev lo" ;;
		esac
	done | ip -n "$LAB_NS" -batch - || lab_die "could not assign the lab's addresses"
}

lab_nsexec() { ip netns exec "$LAB_NS" "$@"; }

# lab_bg NAME STDOUT STDERR CMD... - start CMD in the namespace, remember its
# pid (RUN/NAME.pid) and its name (RUN/started, for lab_teardown).
lab_bg() {
	local name=$1 out=$2 err=$3
	shift 3
	ip netns exec "$LAB_NS" "$@" >"$out" 2>"$err" &
	echo $! >"$LAB_RUN/$name.pid"
	echo "$name" >>"$LAB_RUN/started"
}

lab_pid() { cat "$LAB_RUN/$1.pid" 2>/dev/null || true; }

# lab_stop NAME [SIGNAL...] - signal a process started by lab_bg with each
# SIGNAL in turn (default TERM), waiting up to 5 s after each, then KILL.
lab_stop() {
	local name=$1 pid sig
	shift
	pid=$(lab_pid "$name")
	[ -n "$pid" ] || return 0
	[ $# -gt 0 ] || set -- TERM
	for sig in "$@" KILL; do
		kill -0 "$pid" 2>/dev/null || break
		[ "$sig" = KILL ] && lab_msg "$name ($pid) did not stop, killing"
		kill -"$sig" "$pid" 2>/dev/null || true
		for _ in $(seq 1 50); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
	done
	wait "$pid" 2>/dev/null || true
	rm -f "$LAB_RUN/$name.pid"
}

# _lab_signal_all PREFIX SIGNAL - signal every process lab_bg started whose
# name starts with PREFIX (lab_stop then waits for each)
_lab_signal_all() {
	local name pid
	# shellcheck disable=SC2013 # one name a line, no spaces
	for name in $(sort -u "$LAB_RUN/started" 2>/dev/null | grep "^$1"); do
		pid=$(lab_pid "$name")
		[ -z "$pid" ] || kill -"$2" "$pid" 2>/dev/null || true
	done
}

# lab_teardown - stop everything lab_bg started (also by a hook: the names
# are in RUN/started), delete the namespace.
lab_teardown() {
	local p name
	if [ -n "$LAB_RUN" ] && [ -d "$LAB_RUN" ]; then
		lab_stop client TERM
		# USR1: HAProxy's soft stop, in-flight requests are logged; every
		# instance is told at once, then waited for (in this shell, not a
		# pipeline: lab_stop reaps its children)
		_lab_signal_all haproxy USR1
		while read -r name; do
			lab_stop "$name" USR1 TERM
		done < <(sort -u "$LAB_RUN/started" 2>/dev/null | grep '^haproxy')
		_lab_signal_all nginx QUIT
		while read -r name; do
			lab_stop "$name" QUIT TERM
		done < <(sort -u "$LAB_RUN/started" 2>/dev/null | grep '^nginx')
		sleep 0.3
		lab_stop sink TERM
	fi
	if [ -n "$LAB_NS" ] && ip netns list | grep -qw "$LAB_NS"; then
		for p in $(ip netns pids "$LAB_NS" 2>/dev/null); do
			lab_msg "killing leftover pid $p in $LAB_NS"
			kill -KILL "$p" 2>/dev/null
		done
		sleep 0.1
		ip netns del "$LAB_NS"
	fi
	LAB_NS=""
}

lab_cleanup() {
	local rc=$?
	set +e
	trap - EXIT INT TERM
	[ $rc = 0 ] || lab_msg "exit status $rc, cleaning up"
	lab_teardown
	exit $rc
}

lab_traps() {
	trap lab_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
}

# ---------------------------------------------------------------------------
# Configuration

lab_cert() {
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
		-keyout "$LAB_CONF/lb.key" -out "$LAB_CONF/lb.crt" -days 7 \
		-subj /CN=hc-ping.com -addext subjectAltName=DNS:hc-ping.com \
		>/dev/null 2>&1 || lab_die "openssl failed"
	cat "$LAB_CONF/lb.crt" "$LAB_CONF/lb.key" >"$LAB_CONF/lb.pem"
}

_hap_binds() { # port [extra bind options]
	local p=$1
	shift
	echo "    bind $LAB_LB4:$p $*"
	echo "    bind [$LAB_LB6]:$p v6only $*"
	echo "    bind :::$p v4v6 $*"
}

_hap_logs() { # port:format ... ; LAB_LOGLEN_<port> may set a len
	local t port fmt len
	for t in "$@"; do
		port=${t%%:*}
		fmt=${t#*:}
		eval "len=\${LAB_LOGLEN_$port:-}"
		echo "    log 127.0.0.1:$port ${len:+len $len }format $fmt local0"
	done
}

_hap_rules() { # mode
	if [ "$1" = reject ]; then
		echo "    tcp-request connection reject if { src -f $LAB_CONF/offenders.lst }"
	fi
	echo "    http-request track-sc0 src table st_src"
	echo "    http-request deny deny_status 429 if { path_beg /denied }"
	if [ "$1" = tarpit ]; then
		echo "    http-request tarpit if { sc_http_req_rate(0) gt 10 }"
	else
		echo "    http-request deny deny_status 429 if { sc_http_req_rate(0) gt 10 }"
	fi
}

# lab_haproxy_cfg MODE GEN - print haproxy.cfg.  MODE: tarpit, deny, reject.
# LAB_SD=1 adds log-format-sd (the compact template) to fe_http;
# LAB_DEAD=1 adds a server on a closed port (DOWN at start).
lab_haproxy_cfg() {
	local mode=$1 gen=$2
	cat <<EOF
# generated by tests/lab/lib.sh: mode=$mode generation=$gen
global
$([ "${LAB_GLOBAL_LOG:-0}" = 1 ] && echo "    log 127.0.0.1:5149 format rfc3164 local0")
    log-send-hostname lb1
    nbthread 2
    maxconn 2000
    hard-stop-after 15s
    stats socket $LAB_RUN/haproxy.sock mode 600 level admin expose-fd listeners

defaults
    mode http
    option dontlognull
    timeout connect 1s
    timeout client 10s
    timeout server 10s
    timeout http-request 2s
    timeout http-keep-alive 2s
    timeout queue 2s
    timeout tarpit 1s

frontend fe_monitor
    bind 127.0.0.1:8999
    http-request return status 200 content-type text/plain string "ready $mode $gen"

backend st_src
    stick-table type ipv6 size 100k expire 30s store http_req_rate(1s),conn_cur

# main frontend: httplog with header captures, small maxconn, rate limit
frontend fe_http
$(_hap_binds 80)
    maxconn 20
    option httplog
    capture request header Host len 64
    capture request header User-Agent len 128
EOF
	if [ "${LAB_SD:-0}" = 1 ]; then
		echo "    log-format-sd \"$LAB_HAP_COMPACT\""
	fi
	# the rfc5424 target carries the structured data too: give it room
	if [ "${LAB_SD:-0}" = 1 ]; then
		LAB_LOGLEN_5142=4096 _hap_logs $LAB_HTTPLOG_TARGETS
	else
		_hap_logs $LAB_HTTPLOG_TARGETS
	fi
	_hap_rules "$mode"
	cat <<EOF
    default_backend be_app

# httplog without captures, accepts invalid bytes, logs empty connections
frontend fe_nocap
$(_hap_binds 81)
    option httplog
    no option dontlognull
    option accept-invalid-http-request
$(_hap_logs $LAB_HTTPLOG_TARGETS)
$(_hap_rules "$mode")
    default_backend be_app

frontend fe_tcp
    mode tcp
$(_hap_binds 82)
    option tcplog
$(_hap_logs 5150:raw 5149:rfc3164)
    default_backend be_tcp

frontend fe_https
$(_hap_binds 443 ssl crt "$LAB_CONF/lb.pem" alpn h2,http/1.1)
    option httpslog
    capture request header Host len 64
$(_hap_logs 5151:raw 5149:rfc3164)
$(_hap_rules "$mode")
    default_backend be_app

frontend fe_clf
$(_hap_binds 83)
    option httplog clf
    capture request header Host len 64
    capture request header User-Agent len 128
$(_hap_logs 5152:raw 5149:rfc3164)
$(_hap_rules "$mode")
    default_backend be_app

frontend fe_legacy
$(_hap_binds 84)
    log-format "$LAB_HAP_LEGACY"
    capture request header Host len 64
    capture request header User-Agent len 128
$(_hap_logs 5153:raw 5149:rfc3164)
$(_hap_rules "$mode")
    default_backend be_app

frontend fe_compact
$(_hap_binds 85)
    log-format "$LAB_HAP_COMPACT"
    capture request header Host len 64
    capture request header User-Agent len 128
$(_hap_logs 5154:raw 5149:rfc3164)
$(_hap_rules "$mode")
    default_backend be_app

backend be_app
    balance roundrobin
    option forwardfor
    option redispatch
    retries 2
    option httpchk GET /health
    default-server inter 1s fall 2 rise 2
    server app1 $LAB_APP4:8080 check source $LAB_LB4
    server app2 [$LAB_APP6]:8080 check source [$LAB_LB6]
EOF
	if [ "${LAB_DEAD:-0}" = 1 ]; then
		echo "    server app3 $LAB_APP4:8099 check source $LAB_LB4"
	fi
	_hap_logs $LAB_HTTPLOG_TARGETS
	cat <<EOF

backend be_tcp
    mode tcp
    server app1 $LAB_APP4:8080 source $LAB_LB4
$(_hap_logs 5150:raw 5149:rfc3164)
EOF
}

# lab_haproxy_lb2_cfg MODE GEN - print the configuration of lb2, the second
# HAProxy instance of the incident: one frontend fe_edge on its own
# addresses with its own maxconn, the custom LAB_HAP_EDGE format through
# rfc5424 (host lb2), the rules of MODE, the same NGINX servers.
lab_haproxy_lb2_cfg() {
	local mode=$1 gen=$2
	cat <<EOF
# generated by tests/lab/lib.sh: lb2 mode=$mode generation=$gen
global
    log-send-hostname lb2
    nbthread 2
    maxconn 2000
    hard-stop-after 15s
    stats socket $LAB_RUN/haproxy-lb2.sock mode 600 level admin expose-fd listeners

defaults
    mode http
    option dontlognull
    timeout connect 1s
    timeout client 10s
    timeout server 10s
    timeout http-request 2s
    timeout http-keep-alive 2s
    timeout queue 2s
    timeout tarpit 1s

frontend fe_monitor
    bind 127.0.0.1:8998
    http-request return status 200 content-type text/plain string "ready lb2 $mode $gen"

backend st_src
    stick-table type ipv6 size 100k expire 30s store http_req_rate(1s),conn_cur

frontend fe_edge
    bind $LAB_LB2_4:80
    bind [$LAB_LB2_6]:80
    maxconn $LAB_LB2_MAXCONN
    log-format "$LAB_HAP_EDGE"
    log 127.0.0.1:$LAB_LB2_PORT format rfc5424 local0
$(_hap_rules "$mode")
    default_backend be_app

backend be_app
    balance roundrobin
    option forwardfor
    option redispatch
    retries 2
    option httpchk GET /health
    default-server inter 1s fall 2 rise 2
    server app1 $LAB_APP4:8080 check source $LAB_LB2_4
    server app2 [$LAB_APP6]:8080 check source [$LAB_LB2_6]
    log 127.0.0.1:$LAB_LB2_PORT format rfc5424 local0
EOF
}

# lab_nginx_conf - print nginx.conf; LAB_APP_DOWN=1 makes /health answer 503
# (the hook switches it with a reload, so health checks fail for real).
lab_nginx_conf() {
	local health='200 "OK\n"'
	[ "${LAB_APP_DOWN:-0}" = 1 ] && health='503 "down\n"'
	cat <<EOF
# generated by tests/lab/lib.sh
worker_processes 2;
pid $LAB_RUN/nginx.master.pid;
error_log $LAB_OUT/nginx-error.log info;
error_log syslog:server=127.0.0.1:5161 info;
events { worker_connections 1024; }
http {
    client_body_temp_path $LAB_RUN/nginx-tmp/body;
    proxy_temp_path $LAB_RUN/nginx-tmp/proxy;
    fastcgi_temp_path $LAB_RUN/nginx-tmp/fastcgi;
    uwsgi_temp_path $LAB_RUN/nginx-tmp/uwsgi;
    scgi_temp_path $LAB_RUN/nginx-tmp/scgi;
    default_type text/plain;
    keepalive_timeout 5s;
    client_header_timeout 2s;
    client_body_timeout 2s;

    log_format main '$LAB_NGINX_MAIN';
    log_format json escape=json '$LAB_NGINX_JSON';

    # HAProxy adds X-Forwarded-For; trust it from the load balancer only
    set_real_ip_from $LAB_LB4;
    set_real_ip_from $LAB_LB6;
    set_real_ip_from $LAB_LB2_4;
    set_real_ip_from $LAB_LB2_6;
    real_ip_header X-Forwarded-For;

    limit_req_zone \$binary_remote_addr zone=lim:1m rate=2r/s;
    limit_req_status 429;

    server {
        listen $LAB_APP4:8080;
        listen [$LAB_APP6]:8080;
        listen [::]:8081 ipv6only=off;
        server_name hc-ping.com;

        access_log $LAB_OUT/nginx-combined.log combined;
        access_log $LAB_OUT/nginx-main.log main;
        access_log $LAB_OUT/nginx-json.log json;
        access_log syslog:server=127.0.0.1:5160 combined;

        location = /health {
            access_log off;
            return $health;
        }
        location ~ "^/(ping/)?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(/(start|fail|log|[0-9]+))?/?$" {
            return 200 "OK\n";
        }
        location ~ "^/[A-Za-z0-9_-]{22}/[a-z0-9_-]+(/(start|fail|log|[0-9]+))?/?$" {
            return 200 "OK\n";
        }
        location /limited/ {
            # 'return' would answer before limit_req runs; try_files comes after
            limit_req zone=lim burst=3 nodelay;
            try_files /.none @ok;
        }
        location @ok {
            return 200 "OK\n";
        }
        location / {
            return 404;
        }
    }
}
EOF
}

# lab_write_env MODE - settings the hook needs later.
lab_write_env() {
	cat >"$LAB_RUN/env" <<EOF
LAB_NS=$LAB_NS
LAB_OUT=$LAB_OUT
LAB_CONF=$LAB_CONF
LAB_RUN=$LAB_RUN
LAB_SD=${LAB_SD:-0}
LAB_DEAD=${LAB_DEAD:-0}
LAB_GLOBAL_LOG=${LAB_GLOBAL_LOG:-0}
EOF
	echo "$1" >"$LAB_RUN/mode"
	echo 0 >"$LAB_RUN/gen"
	cat >"$LAB_RUN/hook" <<EOF
#!/bin/sh
exec /bin/bash "$LAB_DIR/lib.sh" hook "$LAB_OUT" "\$@"
EOF
	chmod 755 "$LAB_RUN/hook"
}

# ---------------------------------------------------------------------------
# Processes

lab_start_sink() {
	local args="" port file
	while read -r port file; do
		[ -n "$port" ] || continue
		args="$args $port=$LAB_OUT/$file"
	done <<EOF
$LAB_SINKS
$LAB_SINKS_EXTRA
EOF
	# shellcheck disable=SC2086
	lab_bg sink /dev/null "$LAB_OUT/sink.stderr" "$LAB_PY" "$LAB_DIR/syslog_sink.py" \
		--ready "$LAB_RUN/sink.ready" $args
	for _ in $(seq 1 50); do
		[ -s "$LAB_RUN/sink.ready" ] && return 0
		sleep 0.1
	done
	lab_die "syslog sink did not start (see $LAB_OUT/sink.stderr)"
}

lab_start_nginx() {
	lab_nginx_conf >"$LAB_CONF/nginx.conf"
	ip netns exec "$LAB_NS" nginx -t -q -c "$LAB_CONF/nginx.conf" -p "$LAB_RUN/" \
		|| lab_die "nginx -t failed"
	lab_bg nginx "$LAB_OUT/nginx.stdout" "$LAB_OUT/nginx.stderr" \
		unshare --uts sh -c 'hostname web1 && exec "$@"' sh \
		nginx -c "$LAB_CONF/nginx.conf" -p "$LAB_RUN/" -g "daemon off;"
	lab_nsexec "$LAB_PY" "$LAB_DIR/client.py" wait "$LAB_APP4" 8080 /health --timeout 15 \
		|| lab_die "nginx did not come up (see $LAB_OUT/nginx.stderr)"
}

# lab_start_haproxy MODE
lab_start_haproxy() {
	printf '%s\n' $LAB_OFFENDERS >"$LAB_CONF/offenders.lst"
	lab_haproxy_cfg "$1" 0 >"$LAB_CONF/haproxy.cfg"
	ip netns exec "$LAB_NS" haproxy -c -q -f "$LAB_CONF/haproxy.cfg" \
		|| lab_die "haproxy -c failed"
	lab_bg haproxy "$LAB_OUT/haproxy.stdout" "$LAB_OUT/haproxy.stderr" \
		unshare --uts sh -c 'hostname lb1 && exec "$@"' sh \
		haproxy -W -db -f "$LAB_CONF/haproxy.cfg"
	lab_nsexec "$LAB_PY" "$LAB_DIR/client.py" wait 127.0.0.1 8999 /ready \
		--expect "ready $1 0" --timeout 15 \
		|| lab_die "haproxy did not come up (see $LAB_OUT/haproxy.stderr)"
}

# lab_start_lb2 MODE - the second HAProxy instance (host name lb2):
# configuration conf/haproxy-lb2.cfg (and haproxy-lb2-MODE.cfg), log
# LAB_LB2_LOG through its own sink port (add it to LAB_SINKS_EXTRA).
lab_start_lb2() {
	lab_haproxy_lb2_cfg "$1" 0 >"$LAB_CONF/haproxy-lb2.cfg"
	ip netns exec "$LAB_NS" haproxy -c -q -f "$LAB_CONF/haproxy-lb2.cfg" \
		|| lab_die "haproxy -c failed (lb2)"
	cp "$LAB_CONF/haproxy-lb2.cfg" "$LAB_CONF/haproxy-lb2-$1.cfg"
	lab_bg haproxy-lb2 "$LAB_OUT/haproxy-lb2.stdout" "$LAB_OUT/haproxy-lb2.stderr" \
		unshare --uts sh -c 'hostname lb2 && exec "$@"' sh \
		haproxy -W -db -f "$LAB_CONF/haproxy-lb2.cfg"
	lab_nsexec "$LAB_PY" "$LAB_DIR/client.py" wait 127.0.0.1 8998 /ready \
		--expect "ready lb2 $1 0" --timeout 15 \
		|| lab_die "lb2 did not come up (see $LAB_OUT/haproxy-lb2.stderr)"
}

# lab_run_client SUBCOMMAND [args] - foreground, but killable by the trap.
lab_run_client() {
	lab_bg client "$LAB_OUT/client.stdout" "$LAB_OUT/client.stderr" \
		"$LAB_PY" "$LAB_DIR/client.py" "$@"
	local pid rc=0
	pid=$(lab_pid client)
	wait "$pid" || rc=$?
	rm -f "$LAB_RUN/client.pid"
	return $rc
}

# ---------------------------------------------------------------------------
# Hook (run by client.py inside the namespace)

# Reload lb1 (and lb2 when it runs) into MODE: both configurations are
# written and checked first, then both masters get SIGUSR2 at once.
# events.tsv: time_us reload mode generation lb, lb1's line first (the
# completed reload of lb1 is what the single-LB checks read).
_lab_hook_reload() { # mode
	local mode=$1 gen lb2=""
	gen=$(($(cat "$LAB_RUN/gen") + 1))
	[ -n "$(lab_pid haproxy-lb2)" ] && lb2=1
	lab_haproxy_cfg "$mode" "$gen" >"$LAB_CONF/haproxy.cfg.new"
	haproxy -c -q -f "$LAB_CONF/haproxy.cfg.new" || lab_die "haproxy -c failed (gen $gen)"
	if [ -n "$lb2" ]; then
		lab_haproxy_lb2_cfg "$mode" "$gen" >"$LAB_CONF/haproxy-lb2.cfg.new"
		haproxy -c -q -f "$LAB_CONF/haproxy-lb2.cfg.new" || lab_die "haproxy -c failed (lb2 gen $gen)"
		cp "$LAB_CONF/haproxy-lb2.cfg.new" "$LAB_CONF/haproxy-lb2-$mode.cfg"
		mv "$LAB_CONF/haproxy-lb2.cfg.new" "$LAB_CONF/haproxy-lb2.cfg"
	fi
	cp "$LAB_CONF/haproxy.cfg.new" "$LAB_CONF/haproxy-$mode.cfg"
	mv "$LAB_CONF/haproxy.cfg.new" "$LAB_CONF/haproxy.cfg"
	echo "$gen" >"$LAB_RUN/gen"
	echo "$mode" >"$LAB_RUN/mode"
	kill -USR2 "$(lab_pid haproxy)"
	[ -z "$lb2" ] || kill -USR2 "$(lab_pid haproxy-lb2)"
	"$LAB_PY" "$LAB_DIR/client.py" wait 127.0.0.1 8999 /ready \
		--expect "ready $mode $gen" --timeout 15 || lab_die "reload $mode $gen failed"
	printf '%s\treload\t%s\t%s\tlb1\n' "$(date +%s%6N)" "$mode" "$gen" >>"$LAB_RUN/events.tsv"
	[ -n "$lb2" ] || return 0
	"$LAB_PY" "$LAB_DIR/client.py" wait 127.0.0.1 8998 /ready \
		--expect "ready lb2 $mode $gen" --timeout 15 || lab_die "reload of lb2 $mode $gen failed"
	printf '%s\treload\t%s\t%s\tlb2\n' "$(date +%s%6N)" "$mode" "$gen" >>"$LAB_RUN/events.tsv"
}

lab_hook() {
	LAB_PROG=hook
	local out=$1
	shift
	# shellcheck disable=SC1091
	. "$out/run/env"
	case $1 in
	app-down)
		LAB_APP_DOWN=1 lab_nginx_conf >"$LAB_CONF/nginx.conf"
		kill -HUP "$(lab_pid nginx)"
		"$LAB_PY" "$LAB_DIR/client.py" srvwait "$LAB_RUN/haproxy.sock" be_app DOWN app1 app2 >/dev/null \
			|| lab_die "servers did not go DOWN"
		;;
	app-up)
		LAB_APP_DOWN=0 lab_nginx_conf >"$LAB_CONF/nginx.conf"
		kill -HUP "$(lab_pid nginx)"
		"$LAB_PY" "$LAB_DIR/client.py" srvwait "$LAB_RUN/haproxy.sock" be_app UP app1 app2 >/dev/null \
			|| lab_die "servers did not come UP"
		;;
	reload) _lab_hook_reload "$(cat "$LAB_RUN/mode")" ;;
	phase) _lab_hook_reload "$2" ;;
	*) lab_die "unknown hook '$1'" ;;
	esac
	printf '%s\t%s\n' "$(date +%s%6N)" "$*" >>"$LAB_RUN/hook.log"
}

if [ "${BASH_SOURCE[0]}" = "$0" ] && [ "${1:-}" = hook ]; then
	set -eu
	shift
	lab_hook "$@"
fi
