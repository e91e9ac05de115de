#!/bin/sh
# One name for one idea across programs (NEWS): the old spellings still
# work as hidden aliases, each doing exactly what its new name does, and
# --help shows the new names only.
#   --factor/--floor (lbt-triage)   -> --jump-factor/--jump-floor, as in
#                                      lbt-rate and lbt-offenders
#   --v4-prefix/--v6-prefix (lbt-triage, lbt-deny: the width of the rule)
#                                   -> --deny-v4-prefix/--deny-v6-prefix;
#                                      --v4-prefix groups sources elsewhere
#   --lb (lbt-index)                -> --lb-name, as in every program (--lb
#                                      filters by load balancer elsewhere)
# flood.log (tests/data/analyses/make-flood.sh): 5 requests a second from
# 23:24:00 to 23:24:19, 33 a second from 23:24:20 (awk below), the
# offenders 203.0.113.7 and 2001:db8:bad:1::/64.
. "$(dirname "$0")/lib.sh"

SOURCE_DATE_EPOCH=1764979200; export SOURCE_DATE_EPOCH    # 2025-12-06T00:00:00Z
test_have sqlite3 || missing sqlite3
cp "$DATA/analyses/flood.log" .
printf 'source\trequests\n203.0.113.7\t100\n2001:db8:bad:1::1\t100\n' > src.tsv

# same A B - lbt-deny outputs A and B alike but for the command they echo
same() {
	grep -v "^# command: " "$1" > "$1.cut" && grep -v "^# command: " "$2" > "$2.cut" &&
	test_cmp "$1.cut" "$2.cut"
}
# rule FILE - the rule lines of lbt-deny's output
rule() { grep "^    http-request" "$1"; }
# per_s FROM TO - requests a second in flood.log's seconds FROM..TO (awk)
per_s() {
	awk -v a="$1" -v b="$2" '{ s = substr($2, 20, 2) + 0 } s >= a && s <= b { n++ }
	    END { print n / (b - a + 1) }' flood.log
}

expect_success 'the flood rises from 5 to 33 requests a second (the oracle of --factor)' '
	test "$(per_s 0 19)" = 5 && test "$(per_s 20 29)" = 33
'

expect_success 'lbt-deny --v4-prefix 24 is --deny-v4-prefix 24: 203.0.113.7 becomes its /24' '
	lbt-deny -i src.tsv --v4-prefix 24 > old &&
	lbt-deny -i src.tsv --deny-v4-prefix 24 > new &&
	same new old &&
	echo "    http-request deny deny_status 429 if { src 203.0.113.0/24 2001:db8:bad:1::1 }" > expect &&
	rule old > got && test_cmp expect got
'

expect_success 'lbt-deny --v6-prefix 48 is --deny-v6-prefix 48: 2001:db8:bad:1::1 becomes its /48' '
	lbt-deny -i src.tsv --v6-prefix 48 > old &&
	lbt-deny -i src.tsv --deny-v6-prefix 48 > new &&
	same new old &&
	echo "    http-request deny deny_status 429 if { src 203.0.113.7 2001:db8:bad::/48 }" > expect &&
	rule old > got && test_cmp expect got
'

expect_success 'lbt-deny: a bad value of the old name is named by the new one' '
	test_expect_code 1 lbt-deny -i src.tsv --v4-prefix 33 2> err &&
	grep -q "^lbt-deny: --deny-v4-prefix: .33. is not a number in 0..32" err
'

expect_success 'lbt-triage --v4-prefix 24 is --deny-v4-prefix 24: the rule denies 203.0.113.0/24' '
	test_expect_code 4 lbt-triage --json --v4-prefix 24 flood.log > old.json &&
	test_expect_code 4 lbt-triage --json --deny-v4-prefix 24 flood.log > new.json &&
	test_cmp new.json old.json &&
	grep -q "\"203.0.113.0/24\"" old.json &&
	grep -q "\"2001:db8:bad:1::/64\"" old.json
'

expect_success 'lbt-triage --v6-prefix 48 is --deny-v6-prefix 48: the rule denies 2001:db8:bad::/48' '
	test_expect_code 4 lbt-triage --json --v6-prefix 48 flood.log > old.json &&
	test_expect_code 4 lbt-triage --json --deny-v6-prefix 48 flood.log > new.json &&
	test_cmp new.json old.json &&
	grep -q "\"2001:db8:bad::/48\"" old.json &&
	grep -q "\"203.0.113.7\"" old.json
'

expect_success 'lbt-triage --factor 10 is --jump-factor 10: a rise of 6.6 times is none' '
	test_expect_code 4 lbt-triage flood.log > default &&
	grep -q "requests rose 5.00 -> 33.0 req/s" default &&
	test_expect_code 4 lbt-triage --factor 10 flood.log > old &&
	test_expect_code 4 lbt-triage --jump-factor 10 flood.log > new &&
	test_cmp new old &&
	! grep -q "requests rose" old &&
	test_expect_code 1 lbt-triage --factor 1 flood.log 2> err &&
	grep -q "^lbt-triage: --jump-factor: .1. must be greater than 1" err
'

expect_success 'lbt-triage --floor 40 is --jump-floor 40: no rise reaches 40 req/s, calm' '
	lbt-triage --floor 40 flood.log > old &&
	lbt-triage --jump-floor 40 flood.log > new &&
	test_cmp new old &&
	grep -q "^calm: no rise of the requests or of a key" old
'

expect_success 'lbt-index --lb NAME is --lb-name NAME: files without a syslog host get NAME' '
	lbt-index -q -d old.db --lb edge-7 flood.log &&
	test "$(sqlite3 old.db "SELECT DISTINCT lb FROM requests_v")" = edge-7 &&
	lbt-index -q -d new.db --lb-name edge-7 flood.log &&
	test "$(sqlite3 new.db "SELECT DISTINCT lb FROM requests_v")" = edge-7
'

expect_success '--help names the new spellings, never the old ones' '
	lbt-triage --help > h && grep -q -- "--jump-factor K" h && grep -q -- "--jump-floor RATE" h &&
	grep -q -- "--deny-v4-prefix BITS" h && grep -q -- "--deny-v6-prefix BITS" h &&
	! grep -q -e "--factor" -e "--floor" -e " --v4-prefix" -e " --v6-prefix" h &&
	lbt-deny --help > h && grep -q -- "--deny-v4-prefix BITS" h &&
	grep -q -- "--deny-v6-prefix BITS" h &&
	! grep -q -e " --v4-prefix" -e " --v6-prefix" h &&
	lbt-index --help > h && grep -q -- "--lb-name NAME" h && ! grep -q -- "--lb " h &&
	for p in lbt-rate lbt-offenders; do
		$p --help > h &&
		grep -q -- "--jump-factor K" h && grep -q -- "--jump-floor RATE" h || exit 1
	done
'

test_done
