#!/bin/sh
# lbt-deny's output as the real servers read it: HAProxy 2.6 (`haproxy -c
# -dW`, warnings are errors) on every HAProxy form, NGINX 1.22 (`nginx -t`
# in a minimal nginx.conf of a temporary prefix) and nftables (`nft -c -f`).
# Each form also gets a broken twin that the same check must refuse, so a
# check that passes proves the server read the rule.
. "$(dirname "$0")/lib.sh"

SOURCE_DATE_EPOCH=1764979200; export SOURCE_DATE_EPOCH
INC="$DATA/incident/haproxy-httplog.log.zst"
PATH=/usr/sbin:/sbin:$PATH
test_have haproxy || missing haproxy
test_have nginx || missing nginx
test_have nft || missing "nft (nftables)"

cat > pre.cfg <<'EOF'
global
    maxconn 100
defaults
    mode http
    timeout connect 1s
    timeout client 2s
    timeout server 2s
backend be_ok
    http-request return status 200 content-type text/plain string ok
frontend fe_http
    bind 127.0.0.1:18080
    bind [::1]:18080
    maxconn 20
    default_backend be_ok
EOF

# hap OUT - haproxy -c -dW on pre.cfg + OUT (OUT ends the frontend section)
hap() { cat pre.cfg "$1" > full.cfg && haproxy -c -dW -f full.cfg; }

lbt-offenders --no-geoip --top 0 "$INC" > off.tsv
printf '%s\n' 203.0.113.0/25 203.0.113.128/25 198.51.100.7 2001:db8:bad:1::/64 \
    2001:db8:bad:2::/64 2001:db8:bad:3::/64 192.0.2.1 192.0.2.3 192.0.2.5 192.0.2.7 > many.lst

expect_success 'haproxy -c: the incident rule, inline' '
	lbt-deny -i off.tsv --min-share 10 > out && hap out
'

expect_success 'haproxy -c: ACL file and its line; a trailing comment in the file is refused' '
	lbt-deny -i many.lst -o acl.lst > out && hap out &&
	grep -q "src -f $PWD/acl.lst" full.cfg &&
	cp acl.lst acl.good && sed -i "s|^198.51.100.7$|198.51.100.7 # no|" acl.lst &&
	! hap out > log 2>&1 && grep -q "is not a valid IPv4 or IPv6 address" log && cp acl.good acl.lst
'

expect_success 'haproxy -c: reject, silent-drop, deny with --host' '
	lbt-deny -a reject -i many.lst -o r.lst > out && hap out &&
	lbt-deny -a silent-drop --host hc-ping.com 203.0.113.7 > out && hap out &&
	lbt-deny --host hc-ping.com --host www.hc-ping.com -i many.lst -o h.lst > out && hap out
'

expect_success 'haproxy -c: rate-limit, with an ACL file and inline, IPv4 only' '
	lbt-deny --rate-limit 100/10s -i many.lst -o rl.lst > out && hap out &&
	grep -q "^backend lbt_deny_rl" full.cfg &&
	lbt-deny --rate-limit 5/s --host hc-ping.com 203.0.113.7 2001:db8:bad:1::/64 > out && hap out &&
	lbt-deny --rate-limit 60/1m 203.0.113.0/24 > out && hap out &&
	grep -q "stick-table type ip size" out
'

expect_success 'haproxy -c: tarpit' '
	lbt-deny -a tarpit --i-know-tarpit-holds-slots --tarpit-timeout 5s --maxconn 20 \
	    -i off.tsv --min-share 10 > out 2> /dev/null && hap out
'

expect_success 'haproxy -c refuses a broken rule (the check can fail)' '
	lbt-deny 203.0.113.7 | sed "s/{ src /{ srcx /" > bad && ! hap bad > log 2>&1
'

# ngx OUT - nginx -t on OUT's parts: the http block part, and the server
# or location part placed in a location that proxies (not `return`).
ngx() {
	awk -v h=http.part -v l=loc.part '
		/^# in the http block:/ { f = h; next }
		/^# in the (server|http, server)/ { f = l; next }
		f != "" { print > f }' "$1" &&
	touch http.part loc.part &&
	mkdir -p ngx && cat > ngx/nginx.conf <<-EOF &&
	worker_processes 1;
	pid $PWD/ngx/nginx.pid;
	events { worker_connections 16; }
	http {
	    client_body_temp_path $PWD/ngx/body;
	    proxy_temp_path $PWD/ngx/proxy;
	    fastcgi_temp_path $PWD/ngx/fastcgi;
	    uwsgi_temp_path $PWD/ngx/uwsgi;
	    scgi_temp_path $PWD/ngx/scgi;
	    include $PWD/http.part;
	    server {
	        listen 127.0.0.1:18081;
	        location / {
	            include $PWD/loc.part;
	            proxy_pass http://127.0.0.1:18082;
	        }
	    }
	}
	EOF
	nginx -t -q -e stderr -c "$PWD/ngx/nginx.conf" -p "$PWD/ngx/"
	rc=$?; rm -f http.part loc.part; return $rc
}

expect_success 'nginx -t: deny lines, inline and in an included file' '
	lbt-deny --nginx -i off.tsv --min-share 10 > out && ngx out &&
	grep -q "^deny 2001:db8:bad:1::/64;$" out &&
	lbt-deny --nginx -i many.lst -o ngx.inc > out && ngx out && grep -q "^include $PWD/ngx.inc;$" out
'

expect_success 'nginx -t: rate-limit (geo map, zone, limit_req), inline and included' '
	lbt-deny --nginx --rate-limit 10/s -i off.tsv --min-share 10 > out && ngx out &&
	grep -q "^limit_req_zone \$lbt_deny_key zone=lbt_deny:1m rate=10r/s;$" out &&
	lbt-deny --nginx --rate-limit 6/1m -i many.lst -o geo.inc > out && ngx out &&
	grep -q "rate=6r/m;" out && grep -q "^limit_req zone=lbt_deny burst=5 nodelay;$" out
'

expect_success 'nginx -t refuses a broken rule (the check can fail)' '
	lbt-deny --nginx 203.0.113.7 | sed "s/^deny 203.0.113.7;/deny 203.0.113.7/" > bad && ! ngx bad
'

expect_success 'nft -c: deny, reject and silent-drop; an IPv4-only rule' '
	lbt-deny --nftables -i off.tsv --min-share 10 > out.nft && nft -c -f out.nft &&
	lbt-deny --nftables -a silent-drop -i many.lst -o sd.nft > out && test ! -s out &&
	nft -c -f sd.nft && ! grep -q reject sd.nft &&
	lbt-deny --nftables -a reject 203.0.113.7 > v4.nft && nft -c -f v4.nft &&
	grep -q "^		ip saddr @deny4 meta l4proto tcp reject with tcp reset$" v4.nft
'

expect_success 'nft -c refuses a broken set (the check can fail)' '
	sed "s|^			203.0.113.7,|			203.0.113.7/33,|" v4.nft > bad.nft &&
	! cmp -s v4.nft bad.nft && ! nft -c -f bad.nft 2> /dev/null
'
test_done
