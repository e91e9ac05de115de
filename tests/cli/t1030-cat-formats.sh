#!/bin/sh
# lbt-cat format choice: detection notes, --log-format dialects,
# --haproxy-cfg and --nginx-conf.
test_description='lbt-cat format choice'
. "$LBT_TOP/tests/cli/lib.sh"

cp "$DATA/cli/httplog.log" "$DATA/cli/nginx.log" "$DATA/cli/bad.log" .

# haproxy-legacy reads the same lines; its lower priority ranks it second
# on purpose (lbt-formats(5)), which is not a tie to report.
expect_success 'detection: httplog over legacy by priority, silently' '
	lbt-cat -f line httplog.log >out 2>err && test ! -s err &&
	printf "line\n1\n2\n3\n4\n" >expect && test_cmp expect out
'

expect_success 'detection: a poor match is reported' '
	test_expect_code 3 lbt-cat -f line,time bad.log >out 2>err &&
	head -n 1 err >got &&
	echo "lbt-cat: bad.log: format detected as haproxy-httplog, but only 3 of 10 sample lines match, use --format to choose" >expect &&
	test_cmp expect got
'

expect_success 'detection: a clear match says nothing' '
	lbt-cat -f line nginx.log >out 2>err && test ! -s err
'

expect_success 'detection is per file, also on stdin' '
	lbt-cat -f file,line,status <nginx.log >out 2>err && test ! -s err &&
	printf "file\tline\tstatus\n(stdin)\t1\t200\n(stdin)\t2\t429\n" >expect &&
	test_cmp expect out
'

expect_success 'HAProxy event lines do not spoil detection' '
	{
		echo "Proxy fe_http started." &&
		echo "Server be_app/app1 is UP, reason: Layer4 check passed, check duration: 0ms. 1 active and 0 backup servers online. 0 sessions requeued, 0 total in queue." &&
		cat nginx.log
	} >ev.log &&
	lbt-cat -f line,status ev.log >out 2>err && test ! -s err &&
	printf "line\tstatus\n3\t200\n4\t429\n" >expect && test_cmp expect out
'

expect_success '--log-format with $variables is NGINX' '
	lbt-cat --log-format "\$remote_addr - \$remote_user [\$time_local] \"\$request\" \$status \$body_bytes_sent \"\$http_referer\" \"\$http_user_agent\"" \
	    -f line,client,status,ua nginx.log >out 2>err && test ! -s err &&
	printf "line\tclient\tstatus\tua\n1\t203.0.113.7\t200\tcurl/8.5.0\n2\t2001:db8::7\t429\tWget/1.21\n" >expect &&
	test_cmp expect out
'

expect_success '--log-format with %-items is HAProxy; %% is a literal percent' '
	printf "100%% 203.0.113.7:51234 200\n" >pct.log &&
	lbt-cat --log-format "100%% %ci:%cp %ST" -f client,port,status pct.log >out 2>err &&
	test ! -s err &&
	printf "client\tport\tstatus\n203.0.113.7\t51234\t200\n" >expect && test_cmp expect out
'

expect_success 'a "$" that starts no variable does not make a template NGINX' '
	echo "cost=\$5 203.0.113.7:51234 200" >dollar.log &&
	lbt-cat --log-format "cost=\$5 %ci:%cp %ST" -f client,status dollar.log >out 2>err &&
	test ! -s err &&
	printf "client\tstatus\n203.0.113.7\t200\n" >expect && test_cmp expect out
'

expect_success '--haproxy-cfg: the format of the proxy that logs, with its captures' '
	cat >haproxy.cfg <<-EOF &&
	defaults
	    mode http
	    log global
	frontend fe_http
	    bind 127.0.0.1:8080
	    capture request header Host len 64
	    capture request header User-Agent len 128
	    log-format "%ci:%cp %ST %hr %{+Q}r"
	EOF
	echo "203.0.113.7:51234 429 {hc-ping.com|curl/8.5.0} \"GET /ping/x HTTP/1.1\"" >cfg.log &&
	lbt-cat --haproxy-cfg haproxy.cfg -f client,status,host,ua,path cfg.log >out 2>err &&
	test ! -s err &&
	printf "client\tstatus\thost\tua\tpath\n203.0.113.7\t429\thc-ping.com\tcurl/8.5.0\t/ping/x\n" >expect &&
	test_cmp expect out
'

expect_success '--nginx-conf: a named log_format' '
	cat >nginx.conf <<-EOF &&
	http {
	    log_format short "\$remote_addr \$status \$request_time";
	    access_log /var/log/nginx/access.log short;
	}
	EOF
	echo "203.0.113.7 404 0.250" >ng.log &&
	lbt-cat --nginx-conf nginx.conf --log-name short -f client,status ng.log >out 2>err &&
	test ! -s err &&
	printf "client\tstatus\n203.0.113.7\t404\n" >expect && test_cmp expect out
'

# ${HAPROXY_HTTP_LOG_FMT} is the httplog string (HAProxy 2.8+), alone or extended.
expect_success '--log-format with ${HAPROXY_HTTP_LOG_FMT}: the httplog records' '
	lbt-cat --format haproxy-httplog -f client,status,path httplog.log >expect &&
	lbt-cat --log-format "\${HAPROXY_HTTP_LOG_FMT}" -f client,status,path httplog.log >out 2>err &&
	test ! -s err && test_cmp expect out
'

expect_success '--log-format: an unknown ${NAME} is an error' '
	test_expect_code 1 lbt-cat --log-format "%ci \${NOPE}" httplog.log >out 2>err &&
	echo "lbt-cat: --log-format: unknown variable '"'"'\${NOPE}'"'"' in the template: only \${HAPROXY_HTTP_LOG_FMT}, _HTTPS_, _TCP_, _HTTP_CLF_ and _TCP_CLF_ are known" >expect &&
	test_cmp expect err
'
test_done
