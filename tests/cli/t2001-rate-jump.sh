#!/bin/sh
# lbt-rate change-point options on flood.log (key A: 2/s, then 30/s for
# 15 s from 23:24:20, then 2/s for 12 s): each option alone can make the
# rise disappear.  Columns: key, baseline_rps, jump_start, jump_end,
# sustained_rps (the main episode's start, end and mean), episodes.
. "$(dirname "$0")/lib.sh"

A=5bf66975-d4c7-4bf5-bcc8-b8d8a82ea278
T=2025-11-01T23:24
cp "$DATA/analyses/flood.log" .

# A's row, change-point columns only.
jump() { lbt-rate --top 1 --no-header "$@" flood.log > jump.out && cut -f 1,5-8,10 jump.out; }

expect_success 'defaults: 2/s -> 30/s is a rise' '
	test "$(jump)" = "$A	2.00	$T:20Z	$T:35Z	30.00	1"
'
expect_success '--jump-factor 20: 30 < 40 is not' '
	test "$(jump --jump-factor 20)" = "$A	2.00				0"
'
expect_success '--jump-factor 15: 30 >= 30 is' '
	test "$(jump --jump-factor 15)" = "$A	2.00	$T:20Z	$T:35Z	30.00	1"
'
# Shorter than --jump-min, the flood is no episode but traffic like any:
# part of the baseline, 514 requests over the 47 s (awk counts them).
expect_success '--jump-min 20s: 15 s is too short, and part of the baseline' '
	b=$(awk "index(\$0, \"$A\") { n++ } END { printf \"%.2f\", n / 47 }" flood.log) &&
	test "$(jump --jump-min 20s)" = "$A	$b				0"
'
# The old rule wanted 15 s back under the threshold to end a jump and
# called this one ongoing: 12 s back at 2/s are an end.
expect_success '--jump-min 15s: exactly long enough, over at 23:24:35' '
	test "$(jump --jump-min 15s)" = "$A	2.00	$T:20Z	$T:35Z	30.00	1"
'
expect_success '--jump-floor 31: above the flood' '
	test "$(jump --jump-floor 31)" = "$A	2.00				0"
'
expect_success '--until cuts the log inside the flood: ongoing' '
	test "$(jump --until 2025-11-01T23:24:32Z)" = "$A	2.00	$T:20Z	ongoing	30.00	1"
'
expect_success '--drop-fraction is checked: 1 and more are refused' '
	test_expect_code 1 lbt-rate --drop-fraction 1 flood.log 2> err &&
	grep "^lbt-rate: --drop-fraction: .1. " err
'
expect_success '--series and --episodes exclude each other' '
	test_expect_code 1 lbt-rate --series --episodes flood.log 2> err &&
	grep "exclude each other" err
'
test_done
