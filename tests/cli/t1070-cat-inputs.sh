#!/bin/sh
# Several inputs in one command, each with its own format, LB name and tier:
# --input words and --sources files (docs/inputs.md).  The incident of two
# load balancers: lb1 is the real httplog capture (tests/data/real), lb2
# the same requests rewritten by awk into a custom log-format without %ft
# (its frontend comes from its haproxy.cfg), and NGINX behind them writes
# JSON (nginx-json.log with the lab's nginx.conf).  Expected counts are
# awk's on the fixtures.
. "$(dirname "$0")/lib.sh"

R=$DATA/real
mkdir -p logs/lb1 logs/lb2 logs/web1 conf
cp "$R/haproxy-httplog.log" logs/lb1/haproxy.log
cp "$R/nginx-json.log" logs/web1/access.json.log
cp "$R/nginx.conf" conf/nginx.conf
LB2FMT='%ci:%cp [%tr] %b/%s %TR/%Tw/%Tc/%Tr/%Ta %ST %B %tsc %ac/%fc/%bc/%sc/%rc %sq/%bq %{+Q}r'
# lb2: the request lines of lb1 without %ft, the captured headers and the
# cookie fields (the two lines HAProxy cut at 1024 bytes are left out: cut
# shorter, they would no longer read as cut), and HAProxy's own lines.
awk '$2 ~ /^\[/ && length($0) <= 1000 {
	rest = $0
	for (i = 1; i <= 12; i++) sub(/^[^ ]* /, "", rest)
	if (substr(rest, 1, 1) == "{") sub(/^\{[^}]*\} /, "", rest)
	print $1, $2, $4, $5, $6, $7, $10, $11, $12, rest; next }
	$2 !~ /^\[/' "$R/haproxy-httplog.log" > logs/lb2/haproxy.log
cat > conf/lb2.cfg <<EOF
global
    maxconn 500
defaults
    mode http
    timeout connect 1s
    timeout client 5s
    timeout server 5s
frontend fe_edge
    bind 127.0.0.1:18081
    maxconn 50
    log 127.0.0.1:514 local0
    log-format "$LB2FMT"
    default_backend be_app
backend be_app
    server app1 192.0.2.2:8080
EOF
cat > logs/sources.txt <<'EOF'
# the incident of 2026-11-30: two load balancers and the server behind them
lb1/haproxy.log   format=haproxy-httplog lb=lb1 tier=lb
lb2/haproxy.log   haproxy-cfg=../conf/lb2.cfg lb=lb2 tier=lb   # no %ft: fe_edge
web1/access.json.log nginx-conf=../conf/nginx.conf log-name=json lb=web1 tier=app
EOF

# Records per "lb<TAB>frontend" of lbt-cat TSV on stdin, sorted.
per_lb() { tail -n +2 | sort | uniq -c | awk -v OFS='\t' '{ print $2, $3, $1 }'; }

n1http=$(awk '$2 ~ /^\[/ && $3 == "fe_http"' logs/lb1/haproxy.log | wc -l)
n1nocap=$(awk '$2 ~ /^\[/ && $3 == "fe_nocap"' logs/lb1/haproxy.log | wc -l)
n2=$(awk '$2 ~ /^\[/' logs/lb2/haproxy.log | wc -l)
nweb=$(grep -c '^{' logs/web1/access.json.log)

expect_success 'the fixtures: lb2 is lb1 rewritten, its configuration valid' '
	test "$n1http" = 38 && test "$n1nocap" = 31 && test "$n2" = 67 && test "$nweb" = 41 &&
	{ ! command -v haproxy > /dev/null || haproxy -c -q -f conf/lb2.cfg; }
'

printf 'lb1\tfe_http\t%s\nlb1\tfe_nocap\t%s\nlb2\tfe_edge\t%s\nweb1\t\t%s\n' \
	"$n1http" "$n1nocap" "$n2" "$nweb" | sort > want

expect_success '--sources: every input with its format, LB and frontend (awk counts)' '
	lbt-cat --sources logs/sources.txt --tsv --fields lb,frontend > out 2> err &&
	per_lb < out > got && test_cmp want got && test ! -s err
'

expect_success 'relative paths in a sources file are relative to its directory' '
	mkdir elsewhere && cd elsewhere &&
	lbt-cat --sources ../logs/sources.txt --tsv --fields lb,frontend > out 2> err &&
	per_lb < out > got && test_cmp ../want got
'

expect_success 'the tier of each record: lb for HAProxy, the sources file'\''s app for NGINX' '
	lbt-cat --sources logs/sources.txt --tsv --fields lb,tier > out &&
	per_lb < out > got &&
	printf "lb1\tlb\t%s\nlb2\tlb\t%s\nweb1\tbackend\t%s\n" $((n1http + n1nocap)) "$n2" "$nweb" > expect &&
	test_cmp expect got
'

expect_success '--input words: blanks or semicolons, the same records' '
	lbt-cat --tsv --fields lb,frontend,client,line \
	    --input "logs/lb1/haproxy.log format=haproxy-httplog lb=lb1" \
	    --input "logs/lb2/haproxy.log;haproxy-cfg=conf/lb2.cfg;lb=lb2" \
	    --input "logs/web1/access.json.log nginx-conf=conf/nginx.conf log-name=json lb=web1" > a &&
	lbt-cat --sources logs/sources.txt --tsv --fields lb,frontend,client,line > b &&
	test_cmp a b
'

expect_success '--input with log-format= quoted: lb2 without its configuration' '
	lbt-cat --tsv --fields lb,frontend,status --input "logs/lb2/haproxy.log lb=lb2 log-format='"'"'$LB2FMT'"'"'" > out &&
	test "$(tail -n +2 out | wc -l)" = "$n2" &&
	test "$(cut -f 2 out | sort -u | tr "\n" " ")" = " frontend " &&
	awk "\$2 ~ /^\\[/ { print \$5 }" logs/lb2/haproxy.log | sort | uniq -c > expect &&
	tail -n +2 out | cut -f 3 | sort | uniq -c > got && test_cmp expect got
'

expect_success 'plain operands keep the global options, beside --input' '
	lbt-cat --tsv --fields lb,frontend --lb-name lbx --format haproxy-httplog \
	    --input "logs/lb2/haproxy.log haproxy-cfg=conf/lb2.cfg lb=lb2" logs/lb1/haproxy.log > out &&
	per_lb < out > got &&
	printf "lb2\tfe_edge\t%s\nlbx\tfe_http\t%s\nlbx\tfe_nocap\t%s\n" "$n2" "$n1http" "$n1nocap" > expect &&
	test_cmp expect got
'

expect_success 'a glob names every matching file, in order' '
	cp logs/lb1/haproxy.log logs/lb1/haproxy.log.1 &&
	lbt-cat --tsv --fields file --input "logs/lb1/haproxy.log* format=haproxy-httplog" > out &&
	tail -n +2 out | uniq > got &&
	printf "logs/lb1/haproxy.log\nlogs/lb1/haproxy.log.1\n" > expect && test_cmp expect got
'

expect_success 'standard input as one of the inputs' '
	lbt-cat --tsv --fields lb,frontend --input "- haproxy-cfg=conf/lb2.cfg lb=lb2" \
	    --input "logs/lb1/haproxy.log lb=lb1" < logs/lb2/haproxy.log > out &&
	per_lb < out > got &&
	printf "lb1\tfe_http\t%s\nlb1\tfe_nocap\t%s\nlb2\tfe_edge\t%s\n" "$n1http" "$n1nocap" "$n2" > expect &&
	test_cmp expect got
'

# ---- bad inputs: exit 1, the file and line, what is wrong -------------------

# bad_sources 'line' 'message': a sources file of a comment and that line fails so.
bad_sources() {
	printf '# inputs\n%s\n' "$1" > bad.txt &&
	test_expect_code 1 lbt-cat --sources bad.txt logs/lb1/haproxy.log > out 2> err &&
	echo "lbt-cat: bad.txt:2: $2" > expect && test_cmp expect err && test ! -s out
}

expect_success 'an unknown key: file:line and the keys' '
	bad_sources "lb1/haproxy.log fromat=haproxy-httplog" \
	    "unknown key '"'"'fromat'"'"' (keys: format= log-format= escape= haproxy-cfg= frontend= nginx-conf= log-name= lb= log-tz= captures= trusted-proxies= tier=)"
'

expect_success 'a word that is not key=value' '
	bad_sources "a.log lb1" "'"'"'lb1'"'"' is not key=value (one input a line: PATH, then key=value words)"
'

expect_success 'a key before the path' '
	bad_sources "format=haproxy-httplog a.log" "'"'"'format=haproxy-httplog'"'"': the path comes first, then key=value words"
'

expect_success 'a bad tier' '
	bad_sources "a.log tier=web" "tier: '"'"'web'"'"' is not lb, backend or app"
'

expect_success 'a key given twice, an empty value' '
	bad_sources "a.log lb=a lb=b" "lb= given twice" &&
	bad_sources "a.log lb=" "lb=: empty value"
'

expect_success 'keys that exclude each other, or need another' '
	bad_sources "a.log format=haproxy-httplog nginx-conf=n.conf" \
	    "format=, log-format=, haproxy-cfg= and nginx-conf= exclude each other" &&
	bad_sources "a.log frontend=fe_http" "frontend= needs haproxy-cfg=" &&
	bad_sources "a.log log-name=json" "log-name= needs nginx-conf=" &&
	bad_sources "a.log escape=json" "escape= needs log-format="
'

expect_success 'a quote not closed: its column' '
	bad_sources "a.log log-format='"'"'%ci %ST" "'"'"' at column 18 is not closed"
'

expect_success 'a glob that matches nothing' '
	bad_sources "nothing-*.log lb=x" "no file matches '"'"'nothing-*.log'"'"'"
'

expect_success 'a configuration that fails names the sources line first' '
	printf "frontend\n" > broken.cfg &&
	printf "logs/lb1/haproxy.log haproxy-cfg=broken.cfg\n" > bad.txt &&
	test_expect_code 1 lbt-cat --sources bad.txt > out 2> err &&
	echo "lbt-cat: bad.txt:1: broken.cfg:1: '"'"'frontend'"'"' expects a name" > expect &&
	test_cmp expect err
'

expect_success 'an unknown format= names the sources line' '
	printf "logs/lb1/haproxy.log format=haproxy-nope\n" > bad.txt &&
	test_expect_code 1 lbt-cat --sources bad.txt > out 2> err &&
	grep -F "lbt-cat: bad.txt:1: " err && grep -F "haproxy-nope" err && test ! -s out
'

expect_success 'a sources file without inputs, or missing' '
	printf "# nothing\n\n" > empty.txt &&
	test_expect_code 1 lbt-cat --sources empty.txt > out 2> err &&
	echo "lbt-cat: empty.txt: no input in the sources file (one a line: PATH, then key=value words)" > expect &&
	test_cmp expect err &&
	test_expect_code 1 lbt-cat --sources nothere.txt > out 2> err &&
	echo "lbt-cat: nothere.txt: cannot read the sources file: No such file or directory" > expect &&
	test_cmp expect err
'

expect_success '--input errors say --input' '
	test_expect_code 1 lbt-cat --input "a.log tier=x" > out 2> err &&
	echo "lbt-cat: --input: tier: '"'"'x'"'"' is not lb, backend or app" > expect && test_cmp expect err &&
	test_expect_code 1 lbt-cat --input "  " > out 2> err &&
	echo "lbt-cat: --input: '"'"'  '"'"' names no input" > expect && test_cmp expect err
'

expect_success 'standard input named twice, --db with inputs: usage errors' '
	test_expect_code 1 lbt-cat --input "- lb=a" - < /dev/null > out 2> err &&
	grep -Fx "lbt-cat: standard input ('"'"'-'"'"') can be read once" err &&
	grep -F "usage: lbt-cat" err &&
	test_expect_code 1 lbt-cat --db x.db --input "a.log" > out 2> err &&
	grep -Fx "lbt-cat: --db reads the index: no log file operands expected" err
'

expect_success 'a missing file of a sources line: reported, the others read, status 1' '
	printf "nothere.log lb=x\nlb1/haproxy.log lb=lb1\n" > logs/some.txt &&
	test_expect_code 1 lbt-cat --sources logs/some.txt --tsv --fields lb > out 2> err &&
	grep -Fx "lbt-cat: logs/nothere.log: No such file or directory" err &&
	test "$(tail -n +2 out | wc -l)" = $((n1http + n1nocap))
'

test_done
