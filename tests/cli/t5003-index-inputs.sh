#!/bin/sh
# lbt-index reads --input / --sources like every program: each file with
# its input's options (format, LB, tier), the tier stored (shapes.tier); an
# index of both tiers answers as the logs do; a grown file that mixes
# formats resumes with the formats detection chose for it.
. "$(dirname "$0")/lib.sh"

R=$DATA/real
cp "$R/haproxy-httplog.log" lb1.log
cp "$R/nginx-json.log" web1.log
cp "$R/nginx.conf" "$R/haproxy-mixed.log" .
LB2FMT='%ci:%cp [%tr] %b/%s %TR/%Tw/%Tc/%Tr/%Ta %ST %B %tsc %ac/%fc/%bc/%sc/%rc %sq/%bq %{+Q}r'
awk '$2 ~ /^\[/ && length($0) <= 1000 {
	rest = $0
	for (i = 1; i <= 12; i++) sub(/^[^ ]* /, "", rest)
	if (substr(rest, 1, 1) == "{") sub(/^\{[^}]*\} /, "", rest)
	print $1, $2, $4, $5, $6, $7, $10, $11, $12, rest }' lb1.log > lb2.log
printf 'frontend fe_edge\n    bind :80\n    log 127.0.0.1:514 local0\n    log-format "%s"\n' \
	"$LB2FMT" > lb2.cfg
cat > sources.txt <<'EOF'
lb1.log format=haproxy-httplog lb=lb1 tier=lb
lb2.log haproxy-cfg=lb2.cfg lb=lb2 tier=lb
web1.log nginx-conf=nginx.conf log-name=json lb=web1 tier=app
EOF

expect_success '--sources: each file indexed with its own options' '
	lbt-index -q -d t.db --sources sources.txt &&
	sqlite3 -separator "	" t.db "SELECT lb, coalesce(frontend, \"\"), tier, count(*) FROM requests_v GROUP BY 1, 2, 3 ORDER BY 1, 2" > got &&
	lbt-cat --sources sources.txt --tsv --fields lb,frontend,tier | tail -n +2 | sort | uniq -c |
	    awk -v OFS="\t" "{ print \$2, (NF == 4 ? \$3 : \"\"), \$NF, \$1 }" | sort > expect &&
	test_cmp expect got &&
	test "$(grep -c "	fe_edge	lb	" got)" = 1
'

expect_success 'the records read back are those of the logs (lbt-cat --db)' '
	F=time,lb,client,port,frontend,backend,server,method,path,status,bytes,Tw,Ta,term,key,tier &&
	lbt-cat --db t.db --tsv --fields $F | tail -n +2 | sort > a &&
	lbt-cat --sources sources.txt --tsv --fields $F | tail -n +2 | sort > b &&
	test_cmp b a
'

expect_success 'analyses over the index count the lb tier, as over the logs' '
	lbt-rate --db t.db --tsv --top 0 > a 2> aerr &&
	lbt-rate --sources sources.txt --tsv --top 0 > b 2> berr &&
	test_cmp b a &&
	grep -F "note: 41 requests of the backend tier left out (first: web1.log)" aerr &&
	grep -F "note: 41 requests of the backend tier left out (first: web1.log)" berr
'

expect_success 'indexing the sources again adds nothing' '
	lbt-index -d t.db --sources sources.txt 2> err &&
	grep "3 files (3 already indexed), 0 lines, 0 records" err
'

expect_success 'a bad sources line fails before anything is indexed' '
	printf "lb1.log lb=lb1\nlb2.log format=nope,also-nope\n" > bad.txt &&
	test_expect_code 1 lbt-index -q -d bad.db --sources bad.txt 2> err &&
	grep -F "lbt-index: bad.txt:2: " err
'

# (its fe_compact lines, a custom format, are unread: exit 3 both times)
expect_success 'a grown mixed file resumes with the formats chosen for it' '
	head -n 40 haproxy-mixed.log > grow.log &&
	test_expect_code 3 lbt-index -q -d g.db grow.log 2> /dev/null &&
	f=$(sqlite3 g.db "SELECT format FROM files") &&
	case "$f" in *,*) ;; *) echo "one format: $f"; false ;; esac &&
	tail -n +41 haproxy-mixed.log >> grow.log &&
	test_expect_code 3 lbt-index -d g.db grow.log 2> err &&
	compact=$(tail -n +41 haproxy-mixed.log | awk "\$9 == \"fe_compact\"" | wc -l) &&
	grep -F " $compact malformed" err &&
	test "$(sqlite3 g.db "SELECT count(*) FROM requests")" = \
	    "$(lbt-cat --tsv --fields line haproxy-mixed.log 2> /dev/null | tail -n +2 | wc -l)"
'

test_done
