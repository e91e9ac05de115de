#!/bin/sh
# lbt-tarpit with the real configurations: a haproxy.cfg of several
# frontends (the lab's seven, one log of all) is read, not refused, each
# frontend with its own maxconn or the global one as HAProxy applies them;
# two load balancers, each with its own haproxy.cfg, in one command (the
# real incident capture as lb1, the same lines rewritten by awk into a
# custom log-format without %ft as lb2).  Expected values are awk's on the
# fixtures and the configurations.
. "$(dirname "$0")/lib.sh"

R=$DATA/real inc=${LBT_INCIDENT:-$DATA/incident}
cp "$R/haproxy-mixed.log" "$R/haproxy.cfg" .
zstd -q -dc "$inc/haproxy-httplog.log.zst" > lb1.log 2> /dev/null || missing "the incident capture"
cp "$inc/haproxy-tarpit.cfg" lb1.cfg
LB2FMT='%ci:%cp [%tr] %b/%s %TR/%Tw/%Tc/%Tr/%Ta %ST %B %tsc %ac/%fc/%bc/%sc/%rc %sq/%bq %{+Q}r'
awk '$2 ~ /^\[/ && length($0) <= 1000 {
	rest = $0
	for (i = 1; i <= 12; i++) sub(/^[^ ]* /, "", rest)
	if (substr(rest, 1, 1) == "{") sub(/^\{[^}]*\} /, "", rest)
	print $1, $2, $4, $5, $6, $7, $10, $11, $12, rest }' lb1.log > lb2.log
cat > lb2.cfg <<EOF
global
    maxconn 500
defaults
    mode http
    timeout connect 1s
    timeout client 5s
    timeout server 5s
    timeout tarpit 1s
frontend fe_edge
    bind 127.0.0.1:18082
    maxconn 50
    log 127.0.0.1:514 local0
    log-format "$LB2FMT"
    default_backend be_app
backend be_app
    server app1 192.0.2.2:8080
EOF

# "N (haproxy.cfg line)" of the first maxconn line of section $2 in file $1
mc() { awk -v s="$2" '$1 == "frontend" || $1 == "global" || $1 == "defaults" || $1 == "backend" { in_s = ($0 ~ "^" s "( |$)") }
	in_s && $1 == "maxconn" { print $2, NR; exit }' "$1"; }

expect_success 'a haproxy.cfg of seven frontends: every one with its own or the global maxconn' '
	lbt-tarpit --tsv --summary --haproxy-cfg haproxy.cfg haproxy-mixed.log > out 2> err &&
	set -- $(mc haproxy.cfg "frontend fe_http") && fe=$1 fel=$2 &&
	set -- $(mc haproxy.cfg global) && gl=$1 gll=$2 &&
	test "$fe" = 20 && test "$gl" = 2000 &&
	for f in fe_clf fe_compact fe_https fe_nocap fe_tcp; do
		printf "lb1\t%s\t%s\thaproxy.cfg:%s (global)\n" $f $gl $gll
	done > expect &&
	printf "lb1\tfe_http\t%s\thaproxy.cfg:%s (frontend fe_http)\n" $fe $fel >> expect &&
	awk -F "\t" -v OFS="\t" "NR > 1 && \$2 != \"\" { print \$1, \$2, \$15, \$16 }" out | sort > got &&
	sort expect | test_cmp - got &&
	! grep -F "several proxies" err
'

expect_success 'the requests of each frontend of the mixed log (awk)' '
	awk -F "\t" -v OFS="\t" "NR > 1 && \$2 != \"\" { print \$2, \$3 }" out | sort > got &&
	for f in fe_http fe_nocap fe_tcp fe_https; do
		printf "%s\t%s\n" $f "$(awk -v f=$f "\$7 ~ /^\\[/ && (\$8 == f || \$8 == f \"~\")" haproxy-mixed.log | wc -l)"
	done > expect &&
	printf "fe_clf\t%s\nfe_compact\t%s\n" "$(grep -c "\"fe_clf\" \"" haproxy-mixed.log)" \
	    "$(awk "\$9 == \"fe_compact\"" haproxy-mixed.log | wc -l)" >> expect &&
	sort expect | test_cmp - got
'

# tarpitted lines and held seconds (sum of Tw over PT lines) of a log, by awk:
# the termination state and the timers are the 10th and 5th words of
# httplog, the 7th and 4th of lb2's format
held() { awk -v t="$2" -v w="$3" '$t ~ /^PT/ { n++; split($w, a, "/"); s += a[2] } END { printf "%d\t%.3f\n", n, s / 1000 }' "$1"; }

expect_success 'two load balancers, each with its haproxy.cfg: per LB its frontend, maxconn, tarpit' '
	printf "lb1.log haproxy-cfg=lb1.cfg lb=lb1\nlb2.log haproxy-cfg=lb2.cfg lb=lb2\n" > sources.txt &&
	lbt-tarpit --tsv --summary --sources sources.txt > out 2> err &&
	set -- $(mc lb1.cfg "frontend fe_http") && m1=$1 l1=$2 &&
	set -- $(mc lb2.cfg "frontend fe_edge") && m2=$1 l2=$2 &&
	test "$m1" = 20 && test "$m2" = 50 &&
	{ printf "lb1\tfe_http\t%s\t%s\tlb1.cfg:%s (frontend fe_http)\n" "$(held lb1.log 10 5)" $m1 $l1 &&
	  printf "lb2\tfe_edge\t%s\t%s\tlb2.cfg:%s (frontend fe_edge)\n" "$(held lb2.log 7 4)" $m2 $l2; } > expect &&
	awk -F "\t" -v OFS="\t" "NR > 1 && \$1 != \"(total)\" { print \$1, \$2, \$4, \$6, \$15, \$16 }" \
	    out > got &&
	test_cmp expect got &&
	awk -F "\t" "NR > 1 && \$1 != \"(total)\" { n += \$3; pt += \$4; w += \$6 }
	    END { printf \"(total)\t%d\t%d\t%.3f\n\", n, pt, w }" out > expect &&
	awk -F "\t" -v OFS="\t" "\$1 == \"(total)\" { print \$1, \$3, \$4, \$6 }" out > got &&
	test_cmp expect got
'

expect_success 'one frontend name on two load balancers: each its own configuration'\''s maxconn' '
	sed "s/maxconn 20/maxconn 30/" lb1.cfg > other.cfg &&
	lbt-tarpit --tsv --summary --input "lb1.log haproxy-cfg=lb1.cfg lb=lb1" \
	    --input "lb1.log haproxy-cfg=other.cfg lb=lb9" > out 2> err &&
	awk -F "\t" -v OFS="\t" "NR > 1 { print \$1, \$2, \$15 }" out > got &&
	printf "lb1\tfe_http\t20\nlb9\tfe_http\t30\n(total)\tfe_http\t\n" > expect && test_cmp expect got
'

expect_success '--maxconn still wins over every configuration' '
	lbt-tarpit --tsv --summary --maxconn 7 --sources sources.txt > out &&
	test "$(awk -F "\t" "NR > 1 && \$1 != \"(total)\" { print \$15 \$16 }" out | sort -u)" = \
	    "7--maxconn"
'

expect_success 'a bad maxconn in one input'\''s configuration: file:line, exit 1' '
	sed "s/maxconn 50\$/maxconn fifty/" lb2.cfg > bad.cfg &&
	test_expect_code 1 lbt-tarpit --tsv --input "lb1.log haproxy-cfg=lb1.cfg lb=lb1" \
	    --input "lb2.log haproxy-cfg=bad.cfg lb=lb2" > out 2> err &&
	n=$(grep -n "maxconn fifty" bad.cfg | cut -d: -f1) &&
	echo "lbt-tarpit: bad.cfg:$n: maxconn: '"'"'fifty'"'"' is not a number in 0..2147483647" > expect &&
	test_cmp expect err && test ! -s out
'

expect_success 'lbt-triage and lbt-timeline take the same maxconn per LB from the sources file' '
	lbt-triage --sources sources.txt > screen ;
	test $? -eq 4 &&
	set -- $(mc lb1.cfg "frontend fe_http") && m1=$1 l1=$2 &&
	set -- $(mc lb2.cfg "frontend fe_edge") && m2=$1 l2=$2 &&
	grep -qx "pressure on lb1/fe_http: maxconn $m1 (lb1.cfg:$l1)" screen &&
	grep -qx "pressure on lb2/fe_edge: maxconn $m2 (lb2.cfg:$l2)" screen &&
	fc2=$(awk "{ split(\$8, a, \"/\"); if (a[2] > m) m = a[2] } END { print m }" lb2.log) &&
	test "$fc2" -lt "$m2" && grep -qx "  never full: logged fc at most $fc2" screen &&
	lbt-timeline --tsv --sources sources.txt > tl &&
	awk -F "\t" -v OFS="\t" "\$3 == \"saturation\" || \$3 == \"alert\" { print \$3, \$5, \$6 }" tl > got &&
	printf "alert\tfe_http\tlb1\nsaturation\tfe_http\tlb1\n" > expect && test_cmp expect got
'

test_done
