#!/bin/sh
# lbt-cat output shapes: default columns, --fields, TSV, NDJSON, table,
# Markdown, --raw, stdin, compressed input, several files, wrappers, events.
# Expected rows are written by hand from tests/data/cli/httplog.log (four
# HAProxy httplog lines, %tr read as UTC) and nginx.log.
test_description='lbt-cat output'
. "$LBT_TOP/tests/cli/lib.sh"

cp "$DATA/cli/httplog.log" "$DATA/cli/nginx.log" "$DATA/cli/wrapped.log" .
H="--format haproxy-httplog"
U=5bf66975-d4c7-4bf5-bcc8-b8d8a82ea278

# Rows are written with '|' between cells.
tsv() { tr '|' '\t'; }

expect_success 'default columns, every field of every line' '
	tsv >expect <<-EOF &&
	time|lb|client|port|frontend|backend|server|method|path|query|host|status|bytes|TR|Tw|Tc|Tr|Ta|Tt|term|ac|fc|bc|sc|rc|sq|bq|ua|key|client_from|conn|file|line
	2025-11-01T23:24:01.123Z||203.0.113.7|51234|fe_http|be_app|app1|GET|/ping/$U/start|||200|135|0|0|1|12|13||----|12|8|3|2|0|0|0||$U|||httplog.log|1
	2025-11-01T23:24:02.377Z||2001:db8::1|51290|fe_http|be_app|app2|GET|/ping/5BF66975-D4C7-4BF5-BCC8-B8D8A82EA278|rid=1||200|135|0|0|0|3|3||----|12|8|3|1|0|0|0||$U|||httplog.log|2
	2025-11-01T23:24:04.994Z||198.51.100.66|46208|fe_http|fe_http|<NOSRV>|GET|/wp-login.php|||500|0|-1|5002|-1|-1|5001||PT--|3|2|0|0|0|0|0|||||httplog.log|3
	2025-11-01T23:24:06.556Z||192.0.2.55|39836|fe_http|be_queue|<NOSRV>|GET|/k3v9q2x7m1p8r4t6w0y5za/db-backup|||503|0|0|1001|-1|-1|1001||sQ--|20|20|11|10|0|0|1||k3v9q2x7m1p8r4t6w0y5za/db-backup|||httplog.log|4
	EOF
	lbt-cat $H httplog.log >out 2>err && test_cmp expect out && test ! -s err
'

expect_success '--fields picks and orders columns' '
	tsv >expect <<-EOF &&
	line|status|client|Tw|term
	1|200|203.0.113.7|0|----
	2|200|2001:db8::1|0|----
	3|500|198.51.100.66|5002|PT--
	4|503|192.0.2.55|1001|sQ--
	EOF
	lbt-cat $H -f line,status,client,Tw,term httplog.log >out && test_cmp expect out
'

expect_success '--no-header' '
	printf "1\n2\n3\n4\n" >expect &&
	lbt-cat $H --no-header -f line httplog.log >out && test_cmp expect out
'

expect_success '--json: numbers bare, absent fields null' '
	cat >expect <<-EOF &&
	{"time":"2025-11-01T23:24:04.994Z","client":"198.51.100.66","status":500,"Tw":5002,"term":"PT--","key":null,"line":3}
	{"time":"2025-11-01T23:24:06.556Z","client":"192.0.2.55","status":503,"Tw":1001,"term":"sQ--","key":"k3v9q2x7m1p8r4t6w0y5za/db-backup","line":4}
	EOF
	lbt-cat $H --json -f time,client,status,Tw,term,key,line --status 5xx httplog.log >out &&
	test_cmp expect out
'

if test_have python3; then
	expect_success '--json: every line of every default column is valid JSON' '
		lbt-cat $H --json httplog.log >out &&
		python3 -c "import json,sys; [json.loads(l) for l in sys.stdin]; print(\"ok\")" <out >v &&
		echo ok >expect && test_cmp expect v
	'
fi

expect_success '--table: aligned, numbers on the right' '
	{
		printf "%-13s  %6s  %4s\n" client status Tw &&
		printf "%-13s  %6s  %4s\n" 203.0.113.7 200 0 2001:db8::1 200 0 \
		    198.51.100.66 500 5002 192.0.2.55 503 1001
	} >expect &&
	lbt-cat $H --table -f client,status,Tw httplog.log >out && test_cmp expect out
'

expect_success '--md: Markdown table, < > as entities (a renderer would take <NOSRV> for a tag)' '
	cat >expect <<-EOF &&
	| line | server | status |
	| ---: | --- | ---: |
	| 3 | &lt;NOSRV&gt; | 500 |
	| 4 | &lt;NOSRV&gt; | 503 |
	EOF
	lbt-cat $H --md -f line,server,status --status 5xx httplog.log >out && test_cmp expect out
'

expect_success '--raw prints the matching lines as they are' '
	sed -n 3,4p httplog.log >expect &&
	lbt-cat $H --raw --status 5xx httplog.log >out && test_cmp expect out
'

expect_success '--raw keeps the syslog wrapper' '
	sed -n 3p wrapped.log >expect &&
	lbt-cat --raw --lb lb2 wrapped.log >out 2>/dev/null && test_cmp expect out
'

expect_success '--raw with --fields is a usage error' '
	test_expect_code 1 lbt-cat --raw -f line httplog.log 2>err >out && test ! -s out &&
	head -n 1 err >got &&
	echo "lbt-cat: --raw prints the lines as they are: no --fields or output format" >expect &&
	test_cmp expect got
'

expect_success 'standard input, named (stdin)' '
	tsv >expect <<-EOF &&
	file|line|status
	(stdin)|1|200
	(stdin)|2|200
	(stdin)|3|500
	(stdin)|4|503
	EOF
	lbt-cat $H -f file,line,status <httplog.log >out && test_cmp expect out &&
	lbt-cat $H -f file,line,status - <httplog.log >out2 && test_cmp expect out2
'

expect_success '.gz and .zst read as the plain file' '
	lbt-cat $H -f line,time,client,path,status httplog.log >expect &&
	gzip -c httplog.log >h.gz && lbt-cat $H -f line,time,client,path,status h.gz >out &&
	test_cmp expect out &&
	zstd -q -c httplog.log >h.zst && lbt-cat $H -f line,time,client,path,status h.zst >out &&
	test_cmp expect out
'

expect_success 'several files, each with its own detected format' '
	tsv >expect <<-EOF &&
	file|line|time|client|status|key
	httplog.log|1|2025-11-01T23:24:01.123Z|203.0.113.7|200|$U
	httplog.log|2|2025-11-01T23:24:02.377Z|2001:db8::1|200|$U
	httplog.log|3|2025-11-01T23:24:04.994Z|198.51.100.66|500|
	httplog.log|4|2025-11-01T23:24:06.556Z|192.0.2.55|503|k3v9q2x7m1p8r4t6w0y5za/db-backup
	nginx.log|1|2025-11-01T23:24:01.000Z|203.0.113.7|200|$U
	nginx.log|2|2025-11-01T22:24:03.000Z|2001:db8::7|429|$U
	EOF
	lbt-cat -f file,line,time,client,status,key httplog.log nginx.log >out 2>err &&
	test_cmp expect out
'

expect_success 'syslog host is the load balancer; events only with --events' '
	touch -d 2025-11-02T00:00:00Z wrapped.log &&
	tsv >expect <<-EOF &&
	lb|time|client|backend|server|line
	lb1|2025-11-01T23:24:01.123Z|203.0.113.7|be_app|app1|1
	lb2|2025-11-01T23:24:02.377Z|2001:db8::1|be_app|app1|3
	EOF
	lbt-cat $H -f lb,time,client,backend,server,line wrapped.log >out 2>err &&
	test_cmp expect out && test ! -s err &&
	tsv >expect <<-EOF &&
	lb|time|backend|server|line
	lb1|2025-11-01T23:24:01.123Z|be_app|app1|1
	lb1|2025-11-01T23:24:02.000Z|be_app|app2|2
	lb2|2025-11-01T23:24:02.377Z|be_app|app1|3
	EOF
	lbt-cat $H --events -f lb,time,backend,server,line wrapped.log >out &&
	test_cmp expect out
'

expect_success '--events adds the msg column to the defaults' '
	lbt-cat $H --events wrapped.log >out 2>/dev/null &&
	head -n 1 out | tr "\t" "\n" | tail -n 1 >got && echo msg >expect &&
	test_cmp expect got &&
	sed -n 3p out | cut -f 34 >got &&
	echo "Server be_app/app2 is DOWN, reason: Layer4 connection problem, info: \"Connection refused\", check duration: 0ms. 1 active and 0 backup servers left. 0 sessions active, 0 requeued, 0 remaining in queue." >expect &&
	test_cmp expect got
'

expect_success '--lb-name names the LB of lines without a syslog host' '
	tsv >expect <<-EOF &&
	lb|line
	edge9|1
	edge9|2
	EOF
	lbt-cat -f lb,line --lb-name edge9 nginx.log >out && test_cmp expect out
'

expect_success 'TSV escapes tabs, newlines and backslashes in values' '
	printf "203.0.113.7 - - [01/Nov/2025:23:24:01 +0000] \"GET /a\\\\x09b\\\\x5Cc HTTP/1.1\" 200 2 \"-\" \"t\\\\x09ab\\\\x0Anl\"\n" >esc.log &&
	printf "path\tua\n/a\\\\tb\\\\\\\\c\tt\\\\tab\\\\nnl\n" >expect &&
	lbt-cat --format nginx-combined -f path,ua esc.log >out && test_cmp expect out
'

test_done
