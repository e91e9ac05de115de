#!/bin/sh
# The scorer of make eval (tests/eval/score.py, docs/eval.md) on a hand-made
# case (tests/data/eval/selftest): its truth, a perfect answer and a wrong
# one, every number below counted by hand from those files; then make
# eval-quick's runner on the committed quick corpus (tests/data/corpus),
# whose scores are printed but never judged here.
. "$(dirname "$0")/lib.sh"

test_have python3 || missing python3
# importing tests/lab/corpus.py must leave no __pycache__ in the tree
PYTHONDONTWRITEBYTECODE=1; export PYTHONDONTWRITEBYTECODE
ST=$DATA/eval/selftest
[ -f "$ST/truth.json" ] || missing "the scorer's hand-made case in $ST"
SCORE="python3 $TOP/tests/eval/score.py"
row() { grep "^| $1 |" "$2" | head -1; }

expect_success 'perfect answer: 4 of 5 events (slow-headers is not emitted), no false one, every verdict, remedy and audit finding' '
	$SCORE "$ST=$ST/perfect" > perfect.md &&
	test "$(row selftest perfect.md)" = "| selftest | 1 (0) | 1.00 | 0.80 | 4/0/1 | 0.35 | 1.00 | 100 % | 100 % | 0 | 0 | 0 | 1.00 | 1.00 |" &&
	test "$(row slow-headers perfect.md)" = "| slow-headers | not emitted yet | 0 | 0 | 1 | - | 0.00 |" &&
	test "$(row saturation perfect.md)" = "| saturation | saturation (frontend) | 1 | 0 | 0 | 1.00 | 1.00 |"
'

expect_success 'wrong answer: late rise, other LB, a duplicate reload, a customer new and denied, verdict and audit wrong' '
	$SCORE "$ST=$ST/wrong" > wrong.md &&
	test "$(row selftest wrong.md)" = "| selftest | 1 (0) | 0.29 | 0.40 | 2/5/3 | 0.75 | 1.00 | 0 % | 40 % | 1 | 1 | 1 | 0.00 | 0.00 |" &&
	test "$(row key-rise wrong.md)" = "| key-rise | rise (key) | 0 | 1 | 1 | 0.00 | 0.00 |" &&
	test "$(row reload wrong.md)" = "| reload | reload (proxy) | 1 | 1 | 0 | 0.50 | 1.00 |" &&
	test "$(row lb-gone wrong.md)" = "| lb-gone | lb_stop (lb) | 0 | 1 | 0 | 0.00 | - |" &&
	grep -q "^\* selftest: verdict ongoing (over)" wrong.md &&
	grep -q "2001:db8:c0:1::/64: deny, not none" wrong.md &&
	grep -q "v4-attack: none, not aggregate-prefix" wrong.md
'

expect_success '--goals: the perfect answer misses the recall goal alone, the wrong one every goal; exit 1' '
	test_expect_code 1 $SCORE --goals "$ST=$ST/perfect" > pg.md &&
	test "$(sed -n "/^Goals missed/,\$p" pg.md | grep -c "^\*")" = 1 &&
	grep -q "^\* selftest: events recall 0.80 < 0.95" pg.md &&
	test_expect_code 1 $SCORE --goals "$ST=$ST/wrong" > wg.md &&
	test "$(sed -n "/^Goals missed/,\$p" wg.md | grep -c "^\*")" = 5
'

expect_failure 2 'a pair without = is a usage error (argparse)' '$SCORE "$ST" > /dev/null 2>&1'

expect_success 'the truth'"'"'s saturation time: the first instant the client held n connections (corpus.py)' '
	cat > rows.tsv <<-EOF &&
	send_us	dur_us
	1000	9000
	2000	3000
	3000	1000
	4000	500
	EOF
	test "$(python3 -c "import sys; sys.path.insert(0, \"$TOP/tests/lab\"); import corpus; \
		r = corpus.read_tsv(\"rows.tsv\"); print(corpus.concurrency_reaches(r, 3), corpus.concurrency_reaches(r, 4))")" = "3000 None"
'

expect_success 'the quick corpus'"'"'s truth is what its records give: corpus.py truth on plan.json, truth.tsv and events.tsv' '
	for c in "$DATA"/corpus/*/; do
		name=$(basename "$c") && mkdir -p "re/$name/run" &&
		cp "$c/plan.json" "re/$name/" &&
		zstd -dcq "$c/truth.tsv.zst" > "re/$name/truth.tsv" &&
		zstd -dcq "$c/events.tsv.zst" > "re/$name/events.tsv" &&
		python3 "$TOP/tests/lab/corpus.py" truth --out "re/$name" &&
		test_cmp "$c/truth.json" "re/$name/truth.json" || exit 1
	done
'

expect_success 'make eval-quick: lbt on every case of the quick corpus, one row per class, exit 0' '
	sh "$TOP/tests/eval/eval.sh" quick "$LBT_BIN" > quick.md 2> quick.err &&
	cat quick.md && test ! -s quick.err &&
	for c in flood-tarpit retry-storm surge distributed slow-headers dns-crashloop midnight-shapes calm; do
		grep -q "^| $c | 1 (" quick.md || { echo "no row for $c"; exit 1; }
	done
'

test_done
