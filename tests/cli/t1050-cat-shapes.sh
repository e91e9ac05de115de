#!/bin/sh
# lbt-cat on the log shapes of real deployments, detected without a
# format option: JSON by key names, an X-Forwarded-For list first, a $host
# prefix, ingress-nginx, httplog with extra fields, a hand-made HAProxy
# JSON format; the year of RFC 3164 stamps around a minimal "Connect from"
# line; JSON lines that are no record.  Fixtures: tests/data/real, written
# by NGINX 1.22 and HAProxy 2.6 (tests/lab/shapes.sh); expected values read
# off those lines by hand.
test_description='lbt-cat shapes'
. "$LBT_TOP/tests/cli/lib.sh"

R=$DATA/real
U=5bf66975-d4c7-4bf5-bcc8-b8d8a82ea278
tsv() { tr '|' '\t'; }
for f in json-nginx.log nginx-xff.log nginx-vhost.log nginx-vhost-port.log nginx-ingress.log \
    haproxy-httplog-extra.log json-haproxy.log; do
	[ -f "$R/$f" ] || missing "$f"
done

expect_success 'JSON by key names: detected, the last upstream of a list kept' '
	lbt-cat -f line,client,path,status,server,Tr "$R/json-nginx.log" >out 2>err &&
	test ! -s err &&
	tsv >expect <<-EOT &&
	line|client|path|status|server|Tr
	13|203.0.113.7|/retry/$U|404|192.0.2.2:8080|1
	14|203.0.113.7|/dead/$U|502|192.0.2.2:8096|0
	15|203.0.113.7|/dead/$U|502|dead|0
	EOT
	sed -n "1p;14,16p" out >got && test_cmp expect got
'

expect_success 'lbt-formats --detect ranks json over the lenient nginx-json template' '
	lbt-formats --detect "$R/json-nginx.log" | sed -n "2,3p" | cut -f 1 >got &&
	printf "json\nnginx-json\n" >expect && test_cmp expect got
'

expect_success 'an X-Forwarded-For list first: the first address is the client' '
	lbt-cat -f line,client,query "$R/nginx-xff.log" >out 2>err && test ! -s err &&
	tsv >expect <<-EOT &&
	17|203.0.113.7|
	18|2001:db8::7|x=1
	EOT
	sed -n "18,19p" out >got && test_cmp expect got
'

expect_success 'a $host prefix, with and without the port' '
	lbt-cat -f host,client "$R/nginx-vhost.log" >a 2>err && test ! -s err &&
	lbt-cat -f host,client "$R/nginx-vhost-port.log" >b 2>err && test ! -s err &&
	sed -n 2p a >got && sed -n 2p b >>got &&
	printf "hc-ping.com\t203.0.113.7\nhc-ping.com\t203.0.113.7\n" >expect && test_cmp expect got &&
	lbt-formats --detect "$R/nginx-vhost-port.log" | sed -n 2p | cut -f 1 >got &&
	echo nginx-vhost-port >expect && test_cmp expect got
'

expect_success 'ingress-nginx: backend from $proxy_upstream_name, the answering server' '
	lbt-cat -f line,backend,server,Tr,Ta "$R/nginx-ingress.log" >out 2>err && test ! -s err &&
	sed -n 14p out >got &&
	printf "13\tdefault-hc-ping-80\t192.0.2.2:8080\t1\t1\n" >expect && test_cmp expect got
'

expect_success 'httplog followed by %sslv %sslc %ID: the httplog part' '
	lbt-cat --captures host -f client,frontend,host,path,status "$R/haproxy-httplog-extra.log" \
	    >out 2>err && test ! -s err &&
	sed -n 2p out >got &&
	printf "203.0.113.7\tfe_extra\thc-ping.com\t/ok\t200\n" >expect && test_cmp expect got
'

expect_success 'a JSON log-format written by hand for HAProxy 2.6' '
	lbt-cat -f time,client,port,frontend,backend,server,status,term "$R/json-haproxy.log" \
	    >out 2>err && test ! -s err &&
	sed -n 2p out >got &&
	printf "2026-12-01T20:27:51.000Z\t203.0.113.7\t55786\tfe_json\tbe_app\tapp1\t200\t----\n" \
	    >expect && test_cmp expect got
'

# 2026-12-31 23:59:59 then 2027-01-01 00:00:01, in a file written on
# 2027-01-02: the December line is of the year before (docs/formats.md, "Years and zones").
expect_success '"Connect from" behind RFC 3164: the year from the file, across New Year' '
	{
		echo "<134>Dec 31 23:59:59 lb1 haproxy[1]: Connect from 203.0.113.5:56274 to 192.0.2.1:80 (fe_min/HTTP)" &&
		echo "<134>Jan  1 00:00:01 lb1 haproxy[1]: Connect from 203.0.113.6:56282 to 192.0.2.1:80 (fe_min/HTTP)"
	} >min.log &&
	touch -d "2027-01-02 00:00:00 UTC" min.log &&
	lbt-cat -f time,clock,lb,client,frontend min.log >out 2>err && test ! -s err &&
	tsv >expect <<-EOT &&
	time|clock|lb|client|frontend
	2026-12-31T23:59:59.000Z|syslog|lb1|203.0.113.5|fe_min
	2027-01-01T00:00:01.000Z|syslog|lb1|203.0.113.6|fe_min
	EOT
	test_cmp expect out &&
	lbt-cat -f time --now 2027-01-02T00:00:00Z <min.log | sed 1d >got &&
	printf "2026-12-31T23:59:59.000Z\n2027-01-01T00:00:01.000Z\n" >expect && test_cmp expect got
'

expect_success 'a JSON line without time and request is malformed, with its reason' '
	{
		echo "{\"msec\":\"1796024402.760\",\"request\":\"GET /x HTTP/1.1\",\"status\":200}" &&
		echo "{\"remote_addr\":\"192.0.2.10\",\"status\":200}"
	} >j.log &&
	test_expect_code 3 lbt-cat --format nginx-json -f status j.log >out 2>err &&
	printf "status\n200\n" >expect && test_cmp expect out &&
	grep -x "lbt-cat: j.log:2: no time and no request in the JSON object (2 known keys)" err &&
	test_expect_code 1 lbt-cat --strict --format nginx-json -f status j.log >out 2>err &&
	grep -x "lbt-cat: j.log:2: no time and no request in the JSON object (2 known keys)" err
'

expect_success 'junk request lines: kept whole in the request field, no method' '
	grep -a "\"HELP\"\|\"GET /a b c\"" "$R/nginx-vhost.log" >junk.log &&
	lbt-cat -f method,path,request,status junk.log >out 2>err && test ! -s err &&
	printf "method\tpath\trequest\tstatus\n\t\tHELP\t400\n\t\tGET /a b c\t400\n" >expect &&
	test_cmp expect out
'

test_done
