#!/bin/sh
# lbt-cat --db: the records of an lbt-index database are those of the log.
test_description='lbt-cat --db'
. "$LBT_TOP/tests/cli/lib.sh"

cp "$DATA/cli/httplog.log" .
H="--format haproxy-httplog"
F=time,client,port,backend,server,path,query,status,bytes,TR,Tw,Tc,Tr,Ta,term,key,file,line


lbt-index -q -d raw.db --keep-raw $H httplog.log
lbt-index -q -d plain.db $H httplog.log

expect_success 'the index gives the records of the log' '
	lbt-cat $H -f $F httplog.log >expect &&
	lbt-cat --db raw.db -f $F >out && test_cmp expect out
'

expect_success 'filters apply to the index' '
	lbt-cat $H -f $F --status 5xx --src 192.0.2.0/24 httplog.log >expect &&
	lbt-cat --db raw.db -f $F --status 5xx --src 192.0.2.0/24 >out && test_cmp expect out
'

expect_success '--raw from an index kept with --keep-raw' '
	sed -n 3,4p httplog.log >expect &&
	lbt-cat --db raw.db --raw --status 5xx >out && test_cmp expect out
'

expect_success '--raw from an index without raw lines is an error' '
	echo "lbt-cat: --raw: the index holds no raw lines (build it with lbt-index --keep-raw)" >expect &&
	test_expect_code 1 lbt-cat --db plain.db --raw >out 2>err &&
	test_cmp expect err && test ! -s out
'

expect_success '--db takes no log operands' '
	test_expect_code 1 lbt-cat --db raw.db httplog.log 2>err &&
	head -n 1 err >got &&
	echo "lbt-cat: --db reads the index: no log file operands expected" >expect &&
	test_cmp expect got
'

expect_success 'a missing index is an error naming it' '
	test_expect_code 1 lbt-cat --db nosuch.db >out 2>err &&
	grep -F "nosuch.db" err && test ! -s out
'

test_done
