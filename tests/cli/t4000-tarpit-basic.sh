#!/bin/sh
# lbt-tarpit on tests/data/tarpit/httplog.log (maxconn 4): every section
# against the numbers worked out by hand in tests/data/tarpit/README.md,
# the held seconds against awk, and the full-frontend finding.
. "$(dirname "$0")/lib.sh"

D="$DATA/tarpit"
cp "$D/httplog.log" .
F="--format haproxy-httplog"

for s in summary periods by-source:sources series full; do
	flag=${s%%:*} table=${s#*:}
	expect_success "--$flag matches the hand-computed table" "
		lbt-tarpit --tsv $F --maxconn 4 --$flag httplog.log > out 2> err &&
		test_cmp '$D/httplog-$table.tsv' out
	"
done

expect_success 'held seconds equal the sum of Tw over PT lines (awk)' '
	awk "\$10 ~ /^PT/ { split(\$5, t, \"/\"); s += t[2] } END { printf \"%.3f\n\", s / 1000 }" \
		httplog.log > expect &&
	lbt-tarpit --tsv $F --summary httplog.log > all 2> err && awk -F "\t" "NR == 2 { print \$6 }" all > out &&
	test_cmp expect out
'

expect_success 'the full frontend is said plainly, with its evidence, on stderr' '
	lbt-tarpit --tsv $F --maxconn 4 --summary httplog.log > out 2> err &&
	grep -F "lbt-tarpit: note: fe_http was full: the logged fc reached maxconn 4 (>= 3) in 1 bucket of 10s" err &&
	grep -F "(fc 4; e.g. httplog.log:2)" err &&
	grep -F "These logs understate waiting and lost connections" err
'

expect_success 'method notes only with --notes; --notes as TSV rows' '
	! grep -F "slot intervals" err &&
	lbt-tarpit --tsv $F --maxconn 4 --notes httplog.log > out 2> err2 &&
	grep -F "method		fe_http	fe_http: slot intervals from the request time (%tr) minus Th and Ti where logged, duration from Ta for 8" out &&
	grep -F "caveat			held time: HAProxy reports the tarpit hold in Tw; TR is -1" out &&
	grep -F "1 request left during the tarpit (CT)" out &&
	! grep -F "note:" err2
'

expect_success 'the table a person reads at 00:11' '
	lbt-tarpit $F --maxconn 4 --table httplog.log > out 2> err &&
	grep -E "^peak slots +4 at 2025-11-01T23:24:02.500Z, 3 of them tarpitted" out &&
	grep -E "^held, sum of Tw +17.008 s over 4 PT lines" out &&
	grep -E "^if denied at once +peak 1 slot, never at >= 4" out &&
	grep -E "^fc at maxconn +in 1 bucket of 10s: FULL" out &&
	grep -E "^- fe_http was full" out &&
	! grep -F "series in buckets" out
'

expect_success '--json rows parse and keep absent as null' '
	lbt-tarpit $F --json --summary httplog.log > out 2> err &&
	python3 -c "import json,sys; r=[json.loads(l) for l in open(\"out\")]; \
		assert len(r) == 1 and r[0][\"held_s\"] == 17.008 and r[0][\"lb\"] is None \
		and r[0][\"maxconn\"] is None and r[0][\"periods\"] is None, r"
'

expect_success 'maxconn from --haproxy-cfg, and that configuration is valid' '
	cp "$D/haproxy.cfg" . &&
	{ ! command -v haproxy > /dev/null || haproxy -c -q -f haproxy.cfg; } &&
	lbt-tarpit --tsv --haproxy-cfg haproxy.cfg --summary httplog.log > out 2> err &&
	sed "s/--maxconn/haproxy.cfg:18 (frontend fe_http)/" "$D/httplog-summary.tsv" > expect &&
	test_cmp expect out
'

expect_success 'the same from lbt-cat TSV on stdin' '
	status_to cat.rc lbt-cat $F httplog.log | lbt-tarpit --tsv --maxconn 4 --summary > out 2> err &&
	test "$(cat cat.rc)" = 0 &&
	test_cmp "$D/httplog-summary.tsv" out
'

expect_success 'the same from an lbt-index database (--db)' '
	lbt-index $F -d t.db httplog.log 2> err &&
	lbt-tarpit --tsv --db t.db --maxconn 4 --summary > out 2> err &&
	test_cmp "$D/httplog-summary.tsv" out &&
	lbt-tarpit --tsv --db t.db --maxconn 4 --by-source > out 2> err &&
	test_cmp "$D/httplog-sources.tsv" out
'

# Two files of one LB that names itself in none of its lines: lb= says
# they are one (without it each input is a row of its own, and a total).
IN2="--input 'new.log lb=lb1' --input 'old.log lb=lb1'"
expect_success 'two rotated files of one LB (lb=), newest first: totals exact, overlap flagged' '
	head -n 4 httplog.log > old.log && tail -n 4 httplog.log > new.log &&
	eval lbt-tarpit --tsv $F --maxconn 4 --summary "$IN2" > out 2> err &&
	cut -f 3-9 "$D/httplog-summary.tsv" > expect && cut -f 3-9 out > got &&
	test_cmp expect got &&
	eval lbt-tarpit --tsv $F --maxconn 4 --series "$IN2" > out 2> err &&
	awk -F "\t" "NR == 2 { print \$10, \$12 }" out > got &&
	echo "5 ~" > expect && test_cmp expect got &&
	grep -F "1 bucket hold slots from several input files" err
'
expect_success 'two unnamed files: a row each under its file name, their total exact' '
	lbt-tarpit --tsv $F --maxconn 4 --summary new.log old.log > out 2> err &&
	cut -f 1 out | tr "\n" " " > got && printf "lb new.log old.log (total) " > expect &&
	test_cmp expect got &&
	cut -f 3-9 "$D/httplog-summary.tsv" | sed 1d > expect && tail -1 out | cut -f 3-9 > got &&
	test_cmp expect got
'

# The evidence of a full bucket, by hand (awk): of the lines ending in it
# (tr + Ta, bucket of 10 s; tr in seconds after 23:24) with its largest
# fc, the earliest by tr, then line: 23:24:00 has fc 4 on lines 1 (tr 2.5)
# and 2 (tr 0), so line 2.
expect_success 'the full bucket names the earliest line at its largest fc (awk)' '
	awk "{ split(\$2, c, \":\"); t = (c[3] - 24) * 60 + c[4]; split(\$5, tm, \"/\"); split(\$11, n, \"/\")
		b = int((t + tm[5] / 1000) / 10); k = sprintf(\"%09.3f %09d\", t, NR)
		if (!(b in fc) || n[2] > fc[b] || (n[2] == fc[b] && k < key[b])) {
			fc[b] = n[2]; key[b] = k; ev[b] = FILENAME \":\" NR } }
		END { for (b in fc) if (fc[b] >= 3) print ev[b] }" httplog.log > expect &&
	lbt-tarpit --tsv $F --maxconn 4 --full --no-header httplog.log > all && cut -f 8 all > got &&
	test_cmp expect got
'

# Two parts given in either order: every evidence line is the same.
expect_success 'evidence does not depend on the order of the files' '
	head -n 4 httplog.log > old.log && tail -n 4 httplog.log > new.log &&
	for s in by-source full notes; do
		lbt-tarpit --tsv $F --maxconn 4 --$s old.log new.log > a.out 2>&1 &&
		lbt-tarpit --tsv $F --maxconn 4 --$s new.log old.log > b.out 2>&1 &&
		test_cmp a.out b.out || exit 1
	done &&
	grep -F "e.g. old.log:2" a.out
'

expect_success '--step 1s: 10 buckets touched, the third holds 4 at once' '
	lbt-tarpit --tsv $F --maxconn 4 --step 1s --series httplog.log > out 2> err &&
	test $(sed 1d out | wc -l) -eq 10 &&
	grep -F "2025-11-01T23:24:02Z	2	1	0	3.002	3.00	3.00	4	1		4	4" out
'

test_done
