#!/bin/sh
# lbt-rate jump options on flood.log (key A: 2/s, then 30/s for 15 s from
# 23:24:20, then 2/s): each option alone can make the jump disappear.
. "$(dirname "$0")/lib.sh"

A=5bf66975-d4c7-4bf5-bcc8-b8d8a82ea278
T=2025-11-01T23:24
cp "$DATA/analyses/flood.log" .

# A's row, jump columns only.
jump() { lbt-rate --top 1 --no-header "$@" flood.log > jump.out && cut -f 1,5-8 jump.out; }

expect_success 'defaults: 2/s -> 30/s is a jump' '
	test "$(jump)" = "$A	2.00	$T:20Z	$T:35Z	30.00"
'
expect_success '--jump-factor 20: 30 < 40 is not' '
	test "$(jump --jump-factor 20)" = "$A	2.00			"
'
expect_success '--jump-factor 15: 30 >= 30 is' '
	test "$(jump --jump-factor 15)" = "$A	2.00	$T:20Z	$T:35Z	30.00"
'
expect_success '--jump-min 20s: 15 s is too short' '
	test "$(jump --jump-min 20s)" = "$A	2.00			"
'
expect_success '--jump-min 15s: exactly long enough; the end needs 15 s back' '
	test "$(jump --jump-min 15s)" = "$A	2.00	$T:20Z	ongoing	30.00"
'
expect_success '--jump-floor 31: above the flood' '
	test "$(jump --jump-floor 31)" = "$A	2.00			"
'
expect_success '--until cuts the log inside the flood: ongoing' '
	test "$(jump --until 2025-11-01T23:24:32Z)" = "$A	2.00	$T:20Z	ongoing	30.00"
'
test_done
