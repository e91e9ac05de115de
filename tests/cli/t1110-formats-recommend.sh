#!/bin/sh
# lbt-formats --recommend: the log-format passes `haproxy -c`, lbt reads
# it through its descriptor, through --log-format and through --haproxy-cfg,
# and (when HAProxy can run here) a line HAProxy really wrote parses.
test_description='lbt-formats --recommend'
. "$LBT_TOP/tests/cli/lib.sh"

U=5bf66975-d4c7-4bf5-bcc8-b8d8a82ea278

lbt-formats --recommend >rec.txt
# The haproxy.cfg lines are the indented ones; the descriptor the others.
sed -n 's/^    //p' rec.txt >frontend.lines
grep -v -e '^#' -e '^    ' rec.txt >rec.fmt

# A minimal configuration around the recommended lines.
make_cfg() {
	{
		printf 'global\n    log stdout format raw local0\n'
		printf 'defaults\n    mode http\n    log global\n'
		printf '    timeout connect 200ms\n    timeout client 2s\n    timeout server 2s\n'
		printf 'frontend fe_http\n    bind 127.0.0.1:%s\n' "$1"
		sed 's/^/    /' frontend.lines
		printf '    default_backend be_app\n'
		printf 'backend be_app\n    server app1 127.0.0.1:9\n'
	} >haproxy.cfg
}

# One line in the recommended format, written by hand: accept at
# 1762039441.123 = 2025-11-01T23:24:01.123Z.
echo '1762039441.123 203.0.113.7:51234 fe_http be_app/app1 0/2/0/1/0/12/13/15 200 135 ---- 12/8/3/2/0 0/0 {hc-ping.com|curl/8.5.0 "x"} "GET /ping/'$U'?rid=1 HTTP/1.1"' >rec.log
FIELDS=time,client,port,frontend,backend,server,Th,Ti,TR,Tw,Tc,Tr,Ta,Tt,status,bytes,term,ac,fc,bc,sc,rc,sq,bq,host,ua,method,path,query,key
printf '%s\n' "time|client|port|frontend|backend|server|Th|Ti|TR|Tw|Tc|Tr|Ta|Tt|status|bytes|term|ac|fc|bc|sc|rc|sq|bq|host|ua|method|path|query|key" \
    "2025-11-01T23:24:01.123Z|203.0.113.7|51234|fe_http|be_app|app1|0|2|0|1|0|12|13|15|200|135|----|12|8|3|2|0|0|0|hc-ping.com|curl/8.5.0 \"x\"|GET|/ping/$U|rid=1|$U" |
    tr '|' '\t' >expect.tsv

expect_success 'the recommendation explains itself and has a descriptor' '
	grep -q "^# " rec.txt && grep -q "^    log-format \"%Ts.%ms " rec.txt &&
	grep -q "^name haproxy-lbt\$" rec.fmt && grep -q "^dialect haproxy\$" rec.fmt &&
	grep -q "^captures host,ua\$" rec.fmt
'

expect_success 'the descriptor template is the log-format of the configuration' '
	sed -n "s/^template //p" rec.fmt >t1 &&
	sed -n "s/^log-format \"\\(.*\\)\"\$/\\1/p" frontend.lines >t2 && test_cmp t1 t2
'

expect_success 'every field lbt reads, through the descriptor' '
	lbt-cat --format ./rec.fmt -f $FIELDS rec.log >out 2>err &&
	test_cmp expect.tsv out && test ! -s err
'

expect_success 'the same through the built-in haproxy-lbt, and by detection' '
	lbt-cat --format haproxy-lbt -f $FIELDS rec.log >out 2>err &&
	test_cmp expect.tsv out && test ! -s err &&
	lbt-cat -f $FIELDS rec.log >out 2>err && test_cmp expect.tsv out && test ! -s err
'

expect_success 'the same through --log-format and --captures' '
	lbt-cat --log-format "$(sed -n "s/^template //p" rec.fmt)" --captures host,ua \
	    -f $FIELDS rec.log >out 2>err && test_cmp expect.tsv out && test ! -s err
'

expect_success 'the same through --haproxy-cfg' '
	make_cfg 18080 &&
	lbt-cat --haproxy-cfg haproxy.cfg -f $FIELDS rec.log >out 2>err &&
	test_cmp expect.tsv out && test ! -s err
'

test_have haproxy || missing haproxy
test_have curl || missing curl
expect_success 'haproxy -c accepts the recommended configuration' '
	make_cfg 18080 && haproxy -c -q -f haproxy.cfg
'
port=$((20000 + $$ % 20000))
make_cfg "$port"
expect_success 'a line HAProxy writes in that format parses' '
	timeout 10 haproxy -f haproxy.cfg -db >live.log 2>&1 &
	pid=$!
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		curl -s -o /dev/null -m 2 -A "curl/8 \"q\"" \
		    "http://127.0.0.1:$port/ping/$U?rid=1" && break
		sleep 0.1
	done
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		grep -q "fe_http be_app" live.log && break
		sleep 0.2
	done
	kill $pid 2>/dev/null
	grep "fe_http be_app" live.log | head -n 1 >one.log &&
	test -s one.log &&
	lbt-cat --format ./rec.fmt --strict -f client,status,host,ua,path,key,Tt \
	    one.log >out &&
	cut -f 1,3,4,5,6 out | tail -n 1 >got &&
	printf "127.0.0.1\t127.0.0.1:%s\tcurl/8 \"q\"\t/ping/%s\t%s\n" "$port" "$U" "$U" >expect &&
	test_cmp expect got
'

test_done
