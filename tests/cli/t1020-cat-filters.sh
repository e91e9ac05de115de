#!/bin/sh
# lbt-cat filters: --since --until (every shape) --key --src --status
# --term --lb --key-regex, alone and together.  httplog.log's lines are at
# 23:24:01.123, :02.377, :04.994 and :06.556 on 2025-11-01 (UTC).
test_description='lbt-cat filters'
. "$LBT_TOP/tests/cli/lib.sh"

cp "$DATA/cli/httplog.log" "$DATA/cli/wrapped.log" .
H="--format haproxy-httplog"

# lines LIST: the --no-header line column expected for a filter
lines() { printf "%s\n" "$@" >expect; }
# (an empty expectation is an empty answer: exit 2)
cat_lines() {
	if [ -s expect ]; then lbt-cat $H --no-header -f line "$@" httplog.log >out
	else test_expect_code 2 lbt-cat $H --no-header -f line "$@" httplog.log >out 2>/dev/null
	fi && test_cmp expect out
}

expect_success '--since and --until, ISO with zone' '
	lines 2 3 && cat_lines --since 2025-11-01T23:24:02Z --until 2025-11-01T23:24:05Z
'

expect_success '--until is exclusive, to the millisecond' '
	lines 1 && cat_lines --until 2025-11-01T23:24:02.377Z &&
	lines 1 2 && cat_lines --until 2025-11-01T23:24:02.378Z
'

expect_success 'ISO with an offset, and without a zone (UTC)' '
	lines 3 4 && cat_lines --since 2025-11-02T00:24:03+01:00 &&
	lines 3 4 && cat_lines --since "2025-11-01 23:24:03"
'

expect_success 'a date alone is midnight UTC' '
	lines 1 2 3 4 && cat_lines --since 2025-11-01 --until 2025-11-02 &&
	: >expect && cat_lines --since 2025-11-02
'

expect_success 'time of day on the first record'"'"'s day' '
	lines 2 3 4 && cat_lines --since 23:24:02 &&
	lines 1 && cat_lines --until 23:24:02
'

expect_success 'relative times count back from --now' '
	lines 3 4 && cat_lines --now 2025-11-01T23:24:07Z --since -3s &&
	lines 1 2 && cat_lines --now @1762039447 --until -4s
'

expect_success 'Unix time' '
	lines 4 && cat_lines --since @1762039446
'

expect_success '--key: a UUID matches in any case' '
	lines 1 2 && cat_lines --key 5BF66975-d4c7-4bf5-bcc8-b8d8a82ea278 &&
	lines 1 2 4 && cat_lines --key k3v9q2x7m1p8r4t6w0y5za/db-backup,5bf66975-d4c7-4bf5-bcc8-b8d8a82ea278
'

expect_success '--src: addresses and networks, v4 and v6' '
	lines 2 && cat_lines --src 2001:db8::/64 &&
	lines 3 4 && cat_lines --src 198.51.100.0/24,192.0.2.55 &&
	: >expect && cat_lines --src 203.0.113.8
'

expect_success '--status: codes, classes, lists' '
	lines 1 2 && cat_lines --status 200 &&
	lines 3 4 && cat_lines --status 5xx &&
	lines 1 2 4 && cat_lines --status 2xx,503
'

expect_success '--term: prefixes' '
	lines 3 4 && cat_lines --term PT,sQ &&
	lines 1 2 && cat_lines --term -- &&
	lines 3 && cat_lines --term PT--
'

expect_success 'filters together must all pass' '
	lines 4 && cat_lines --status 5xx --src 192.0.2.0/24 --since 23:24:05
'

expect_success '--lb: the syslog host' '
	lines 3 &&
	lbt-cat $H --no-header -f line --lb lb2 wrapped.log >out && test_cmp expect out &&
	lines 1 3 &&
	lbt-cat $H --no-header -f line --lb lb1,lb2 wrapped.log >out && test_cmp expect out
'

expect_success '--key-regex: the key is what the group captures' '
	printf "3\twp-login\n" >expect &&
	lbt-cat $H --no-header -f line,key --key-regex "^/([a-z-]+)[.]php" httplog.log >out 2>err &&
	grep -v "	\$" out >got && test_cmp expect got
'

expect_success '--key-regex with --key filters on the new key' '
	lines 3 && cat_lines --key-regex "^/([a-z-]+)[.]php" --key wp-login
'

test_done
