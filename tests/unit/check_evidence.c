/*
 * check_evidence.c - unit tests for lib/base/evidence.c: the order of evidence
 * keys (time, file name, line), records without a time or a file, and
 * that the kept minimum is the same for every order of a set.
 */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "lbt/evidence.h"

#define NT INT64_MIN                    /* no time, for mk() */

/* A record with provenance (file, line) and, unless t is NT, a time. */
static lbt_rec mk(int64_t t, const char *file, uint64_t line)
{
	lbt_rec r;

	lbt_rec_clear(&r);
	r.have = LBT_BIT(LBT_F_FILE) | LBT_BIT(LBT_F_LINE);
	if (t != NT) {
		r.have |= LBT_BIT(LBT_F_TIME);
		r.time_us = t;
	}
	r.file = file;
	r.line = line;
	return r;
}

/* Offer rec to e, keeping it when better (the caller's file copy is the
 * record's own name here: string literals live forever). */
static void offer(lbt_evidence *e, const lbt_rec *rec)
{
	if (lbt_evidence_better(e, rec))
		lbt_evidence_set(e, rec, rec->file);
}

/*
 * Pairs (a, b) with a before b, by hand: the time decides first (a later
 * line of a smaller file does not matter), then the name ("a.log" <
 * "a.log.1" < "b.log", strcmp, not the order given), then the line; a
 * record without a time after every one with a time; a record without a
 * file name as the empty name, before "a.log".
 */
START_TEST(key_order)
{
	static const struct { int64_t ta; const char *fa; uint64_t la;
		int64_t tb; const char *fb; uint64_t lb; } c[] = {
		{ 5, "z.log", 99, 6, "a.log", 1 },
		{ 5, "a.log", 99, 5, "b.log", 1 },
		{ 5, "a.log", 99, 5, "a.log.1", 1 },
		{ 5, "a.log", 2, 5, "a.log", 10 },
		{ -1000, "b.log", 1, 0, "a.log", 1 },
		{ 7, "z.log", 5, NT, "a.log", 1 },     /* no time: last */
		{ NT, "a.log", 1, NT, "b.log", 1 },    /* both without: by name */
		{ 5, NULL, 3, 5, "a.log", 1 },         /* no file: the empty name */
	};

	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		lbt_rec a = mk(c[i].ta, c[i].fa, c[i].la), b = mk(c[i].tb, c[i].fb, c[i].lb);
		lbt_evidence ea = LBT_EVIDENCE_INIT, eb = LBT_EVIDENCE_INIT;

		lbt_evidence_set(&ea, &a, a.file);
		lbt_evidence_set(&eb, &b, b.file);
		ck_assert_msg(lbt_evidence_cmp(&ea, &eb) < 0, "case %zu", i);
		ck_assert_msg(lbt_evidence_cmp(&eb, &ea) > 0, "case %zu", i);
		ck_assert_msg(lbt_evidence_better(&eb, &a) == 1, "case %zu", i);
		ck_assert_msg(lbt_evidence_better(&ea, &b) == 0, "case %zu", i);
	}
}
END_TEST

/* An unset evidence takes any record and sorts after a set one; an equal
 * key does not replace; set() copies time, line and the given name. */
START_TEST(set_and_equal)
{
	lbt_evidence e = LBT_EVIDENCE_INIT, u = LBT_EVIDENCE_INIT;
	lbt_rec r = mk(NT, "x.log", 4);

	ck_assert_int_eq(lbt_evidence_better(&e, &r), 1);
	lbt_evidence_set(&e, &r, "copy");
	ck_assert_int_eq(e.set, 1);
	ck_assert_str_eq(e.file, "copy");
	ck_assert_uint_eq(e.line, 4);
	ck_assert_int_eq(e.time_us, LBT_EVIDENCE_NO_TIME);
	ck_assert_int_lt(lbt_evidence_cmp(&e, &u), 0);
	ck_assert_int_gt(lbt_evidence_cmp(&u, &e), 0);
	ck_assert_int_eq(lbt_evidence_cmp(&u, &u), 0);
	r = mk(10, "a.log", 3);
	lbt_evidence_set(&e, &r, r.file);
	ck_assert_int_eq(lbt_evidence_better(&e, &r), 0);
	ck_assert_int_eq(lbt_evidence_cmp(&e, &e), 0);
	r.file = NULL;
	lbt_evidence_set(&e, &r, NULL);
	ck_assert_ptr_null(e.file);
	r.file = "";                               /* "" and no name are one key */
	ck_assert_int_eq(lbt_evidence_better(&e, &r), 0);
}
END_TEST

/*
 * Six records, three at the same time in two files; every one of the 720
 * orders keeps the same one: time 100 in "a.log" and "b.log" (lines 8, 2,
 * 5), so a.log:5 (before a.log:8, and "a.log" < "b.log").
 */
START_TEST(every_order)
{
	static const struct { int64_t t; const char *f; uint64_t l; } in[] = {
		{ 200, "a.log", 1 }, { 100, "b.log", 2 }, { 100, "a.log", 8 },
		{ 100, "a.log", 5 }, { 300, "a.log", 2 }, { NT, "a.log", 1 },
	};
	size_t p[6] = { 0, 1, 2, 3, 4, 5 }, n = 0;

	for (;;) {
		lbt_evidence e = LBT_EVIDENCE_INIT;
		size_t i, j, t;

		for (i = 0; i < 6; i++) {
			lbt_rec r = mk(in[p[i]].t, in[p[i]].f, in[p[i]].l);

			offer(&e, &r);
		}
		ck_assert_str_eq(e.file, "a.log");
		ck_assert_uint_eq(e.line, 5);
		ck_assert_int_eq(e.time_us, 100);
		n++;
		/* next permutation, lexicographic */
		for (i = 5; i > 0 && p[i - 1] >= p[i]; i--)
			;
		if (i == 0)
			break;
		for (j = 5; p[j] <= p[i - 1]; j--)
			;
		t = p[i - 1], p[i - 1] = p[j], p[j] = t;
		for (j = 5; i < j; i++, j--)
			t = p[i], p[i] = p[j], p[j] = t;
	}
	ck_assert_uint_eq(n, 720);
}
END_TEST

/* The evidence suite. */
static Suite *evidence_suite(void)
{
	Suite *s = suite_create("evidence");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, key_order);
	tcase_add_test(tc, set_and_equal);
	tcase_add_test(tc, every_order);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(evidence_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
