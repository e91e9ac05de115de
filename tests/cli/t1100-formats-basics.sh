#!/bin/sh
# lbt-formats --list, --show, --explain, --detect, --from-haproxy-cfg,
# --from-nginx-conf, and the mode rules.
test_description='lbt-formats'
. "$LBT_TOP/tests/cli/lib.sh"

cp "$DATA/cli/httplog.log" "$DATA/cli/wrapped.log" .
U=5bf66975-d4c7-4bf5-bcc8-b8d8a82ea278
tsv() { tr '|' '\t'; }

expect_success '--list names every formats/*.fmt' '
	ls "$TOP/formats" | sed -n "s/\\.fmt\$//p" | sort >expect &&
	lbt-formats --list --no-header >list && cut -f 1 list | sort >got && test_cmp expect got
'

expect_success '--list: TSV with a header, one description each' '
	lbt-formats --list >out &&
	head -n 1 out >got && printf "name\tdescription\n" >expect && test_cmp expect got &&
	grep "^haproxy-httplog	HAProxy option httplog" out &&
	test "$(awk -F "\t" "NF != 2 || \$2 == \"\"" out | wc -l)" -eq 0
'

expect_success '--show prints the descriptor as it is' '
	lbt-formats --show haproxy-httplog >out && test_cmp "$TOP/formats/haproxy-httplog.fmt" out
'

expect_success '--show of an unknown name fails' '
	echo "lbt-formats: --show: '\''nope'\'' is not a built-in format (lbt-formats --list)" >expect &&
	test_expect_code 1 lbt-formats --show nope >out 2>err && test_cmp expect err && test ! -s out
'

expect_success '--explain: wrapper, matches, best format, fields' '
	tsv >expect <<-EOF &&
	wrapper|rfc3164
	matches|haproxy-httplog haproxy-httplog-extra haproxy-legacy
	format|haproxy-httplog
	time|2025-11-01T23:24:01.123Z
	lb|lb1
	client|203.0.113.7
	port|51234
	frontend|fe_http
	backend|be_app
	server|app1
	method|GET
	path|/ping/$U/start
	version|HTTP/1.1
	status|200
	bytes|135
	TR|0
	Tw|0
	Tc|1
	Tr|12
	Ta|13
	term|----
	ac|12
	fc|8
	bc|3
	sc|2
	rc|0
	sq|0
	bq|0
	key|$U
	clock|request
	tier|lb
	EOF
	lbt-formats --explain "$(sed -n 1p wrapped.log)" >out 2>err &&
	test_cmp expect out && test ! -s err
'

expect_success '--explain an NGINX line' '
	tsv >expect <<-EOF &&
	matches|nginx-combined nginx-xff
	format|nginx-combined
	time|2025-11-01T22:24:03.000Z
	client|2001:db8::7
	method|POST
	path|/ping/$U/log
	query|x=1
	version|HTTP/1.1
	status|429
	bytes|169
	ua|Wget/1.21
	key|$U
	clock|end
	tier|backend
	EOF
	lbt-formats --explain "2001:db8::7 - - [01/Nov/2025:23:24:03 +0100] \"POST /ping/$U/log?x=1 HTTP/1.1\" 429 169 \"-\" \"Wget/1.21\"" >out &&
	test_cmp expect out
'

expect_success '--explain an event line' '
	lbt-formats --explain "Server be_app/app1 is DOWN, reason: Layer4 timeout" >out &&
	tsv >expect <<-EOF &&
	format|event
	backend|be_app
	server|app1
	msg|Server be_app/app1 is DOWN, reason: Layer4 timeout
	event|server
	EOF
	test_cmp expect out
'

expect_success '--explain: no match is an error' '
	echo "lbt-formats: no built-in format matches this line (try lbt-formats --explain LINE --format NAME to see why)" >expect &&
	test_expect_code 1 lbt-formats --explain "hello world" >out 2>err &&
	test_cmp expect err && test ! -s out
'

expect_success '--explain --format says why that format does not match' '
	test_expect_code 1 lbt-formats --explain "hello world" --format haproxy-httplog >out 2>err &&
	grep "^lbt-formats: haproxy-httplog: ." err && test ! -s out
'

expect_success '--detect: scores best first' '
	tsv >expect <<-EOF &&
	format|parsed|tried
	haproxy-httplog|4|4
	haproxy-httplog-extra|4|4
	haproxy-legacy|4|4
	EOF
	lbt-formats --detect httplog.log >out &&
	head -n 4 out | cut -f 1-3 >got && test_cmp expect got &&
	n=$(ls "$TOP/formats" | grep -c "\\.fmt\$") &&
	test "$(wc -l <out)" -eq $((n + 1)) &&
	sed -n "5,\$p" out | cut -f 2 | sort -u >got && echo 0 >expect && test_cmp expect got
'

expect_success '--detect of a missing file fails' '
	echo "lbt-formats: nosuch.log: No such file or directory" >expect &&
	test_expect_code 1 lbt-formats --detect nosuch.log >out 2>err && test_cmp expect err
'

expect_success '--from-haproxy-cfg prints the proxy'"'"'s template as a descriptor' '
	cat >haproxy.cfg <<-EOF &&
	defaults
	    mode http
	    log global
	frontend fe_a
	    bind 127.0.0.1:8080
	    log-format "%ci:%cp %ST"
	frontend fe_b
	    bind 127.0.0.1:8081
	    log-format "%ci %ST %B"
	EOF
	lbt-formats --from-haproxy-cfg haproxy.cfg --frontend fe_b >out &&
	grep "^dialect haproxy\$" out && grep "^template %ci %ST %B\$" out &&
	sed -e "/^#/d" out >desc.fmt && echo "198.51.100.1 503 0" >b.log &&
	lbt-cat --format ./desc.fmt -f client,status,bytes b.log >got &&
	printf "client\tstatus\tbytes\n198.51.100.1\t503\t0\n" >expect && test_cmp expect got
'

expect_success '--from-haproxy-cfg: unknown frontend' '
	test_expect_code 1 lbt-formats --from-haproxy-cfg haproxy.cfg --frontend fe_z 2>err &&
	grep "^lbt-formats: haproxy.cfg: .*fe_z" err
'

# "from" without a name: HAProxy 2.6 refuses the file ("please use the
# 'bind' keyword"); lbt took the unnamed defaults section, not the last one
# above.  Found by tests/fuzz/fuzz_hacfg.c.
expect_success '--from-haproxy-cfg: "from" without a defaults name is an error, file:line' '
	cat >from.cfg <<-EOF &&
	defaults
	    mode http
	    log global
	    option httplog
	defaults base
	    mode tcp
	    log global
	    option tcplog
	frontend fe from
	    bind :80
	EOF
	echo "lbt-formats: from.cfg:9: '\''frontend fe from'\'': '\''from'\'' needs the name of a defaults section" >expect &&
	test_expect_code 1 lbt-formats --from-haproxy-cfg from.cfg >out 2>err &&
	test_cmp expect err && test ! -s out
'

expect_success '--from-nginx-conf prints the log_format as a descriptor' '
	cat >nginx.conf <<-EOF &&
	http {
	    log_format short "\$remote_addr \$status";
	    access_log /var/log/nginx/access.log short;
	}
	EOF
	lbt-formats --from-nginx-conf nginx.conf >out &&
	grep "^dialect nginx\$" out && grep "^template \$remote_addr \$status\$" out
'

expect_success 'exactly one mode' '
	printf "%s\n" "lbt-formats: choose one of --list, --show, --explain, --detect, --from-haproxy-cfg, --from-nginx-conf and --recommend" \
	    "usage: lbt-formats --list" >expect &&
	test_expect_code 1 lbt-formats 2>err && head -n 2 err >got && test_cmp expect got &&
	test_expect_code 1 lbt-formats --list --recommend 2>err && head -n 2 err >got &&
	test_cmp expect got
'

expect_success '--frontend without --from-haproxy-cfg' '
	printf "%s\n" "lbt-formats: --frontend needs --from-haproxy-cfg" \
	    "usage: lbt-formats --list" >expect &&
	test_expect_code 1 lbt-formats --list --frontend x 2>err && head -n 2 err >got &&
	test_cmp expect got
'

test_done
