/*
 * check_tally.c - unit tests for lib/analysis/tally.c: counts per bucket
 * in the small form (2 bytes an event, out of order) and after it turned
 * into a series (too many events, a bucket out of the 16-bit reach), each
 * reading checked against a plain array of counts kept by the test.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/tally.h"

#define T0 1762039441LL            /* 2025-11-01T23:24:01Z in seconds */

/* Events out of order, counted by hand: second T0 3, T0+2 1, T0+5 4. */
START_TEST(by_hand)
{
	lbt_tally t = LBT_TALLY_INIT;
	int64_t b, c, *d;
	lbt_series_point *p;
	size_t n;

	ck_assert_int_eq(lbt_tally_peak(&t, &b, &c), -1);
	ck_assert_int_eq(lbt_tally_add(&t, T0, 1), 0);
	ck_assert_int_eq(lbt_tally_add(&t, T0 + 5, 1), 0);
	ck_assert_int_eq(lbt_tally_add(&t, T0 + 5, 2), 0);
	ck_assert_int_eq(lbt_tally_add(&t, T0 + 2, 1), 0);
	ck_assert_int_eq(lbt_tally_add(&t, T0, 2), 0);
	ck_assert_int_eq(lbt_tally_add(&t, T0 + 5, 1), 0);
	ck_assert_int_eq(t.is_series, 0);
	ck_assert_int_eq(t.unsorted, 1);
	ck_assert_uint_eq(lbt_tally_bytes(&t), 9 * 2);   /* 8 events in room for 4, 6, then 9 */
	ck_assert_int_eq(lbt_tally_nbuckets(&t), 3);
	ck_assert_int_eq(lbt_tally_peak(&t, &b, &c), 0);
	ck_assert_int_eq(b, T0 + 5);
	ck_assert_int_eq(c, 4);
	p = lbt_tally_points(&t, &n);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(n, 3);
	ck_assert_int_eq(p[0].bucket, T0);
	ck_assert_int_eq(p[0].value, 3);
	ck_assert_int_eq(p[1].bucket, T0 + 2);
	ck_assert_int_eq(p[1].value, 1);
	ck_assert_int_eq(p[2].bucket, T0 + 5);
	ck_assert_int_eq(p[2].value, 4);
	free(p);
	d = lbt_tally_dense(&t, T0 - 1, T0 + 5);
	ck_assert_ptr_nonnull(d);
	ck_assert_int_eq(d[0], 0);
	ck_assert_int_eq(d[1], 3);
	ck_assert_int_eq(d[2], 0);
	ck_assert_int_eq(d[3], 1);
	ck_assert_int_eq(d[6], 4);
	free(d);
	ck_assert_int_eq(lbt_tally_add(&t, INT64_MIN, 1), -1);
	ck_assert_int_eq(lbt_tally_add(&t, T0, 0), -1);
	lbt_tally_free(&t);
	ck_assert_int_eq(t.n, 0);
}
END_TEST

/* Equal counts: the earliest bucket is the peak, in either form. */
START_TEST(peak_tie)
{
	for (int form = 0; form < 2; form++) {
		lbt_tally t;
		int64_t b, c;

		memset(&t, 0, sizeof(t));               /* zero bytes: an empty tally */
		lbt_tally_add(&t, T0 + 10, 2);
		lbt_tally_add(&t, T0 + 5, 1);
		lbt_tally_add(&t, T0 + 20, 1);
		lbt_tally_add(&t, T0 + 5, 1);
		if (form == 1)                          /* far before the base: a series */
			lbt_tally_add(&t, T0 - 100000, 1);
		ck_assert_int_eq(t.is_series, form);
		ck_assert_int_eq(lbt_tally_peak(&t, &b, &c), 0);
		ck_assert_int_eq(b, T0 + 5);
		ck_assert_int_eq(c, 2);
		lbt_tally_free(&t);
	}
}
END_TEST

#define SPAN 70000                  /* past the 16-bit reach */

/* The readings of t against counts cnt[0..SPAN) of buckets T0 - 1000 + i. */
static void check_against(lbt_tally *t, const int64_t *cnt)
{
	int64_t first = T0 - 1000, b, c, best = -1, *d;
	size_t touched = 0, n, k = 0;
	lbt_series_point *p;

	for (size_t i = 0; i < SPAN; i++) {
		touched += cnt[i] > 0;
		if (cnt[i] > 0 && (best < 0 || cnt[i] > cnt[best]))
			best = (int64_t)i;
	}
	ck_assert_uint_eq(lbt_tally_nbuckets(t), touched);
	ck_assert_int_eq(lbt_tally_peak(t, &b, &c), 0);
	ck_assert_int_eq(b, first + best);
	ck_assert_int_eq(c, cnt[best]);
	d = lbt_tally_dense(t, first, first + SPAN - 1);
	ck_assert_ptr_nonnull(d);
	ck_assert_int_eq(memcmp(d, cnt, SPAN * sizeof(*d)), 0);
	free(d);
	p = lbt_tally_points(t, &n);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(n, touched);
	for (size_t i = 0; i < SPAN; i++)
		if (cnt[i] > 0) {
			ck_assert_int_eq(p[k].bucket, first + (int64_t)i);
			ck_assert_int_eq(p[k].value, cnt[i]);
			k++;
		}
	free(p);
}

/*
 * Random events nearly in order (a few late by up to a minute), within
 * `reach` buckets: few enough stay small, more become a series; the
 * counts are those of the test's own array either way.
 */
static void random_run(int events, int reach, int want_series, unsigned seed)
{
	int64_t *cnt = calloc(SPAN, sizeof(*cnt));
	lbt_tally t = LBT_TALLY_INIT;

	srand(seed);
	for (int e = 0; e < events; e++) {
		int64_t i = 1000 + (int64_t)e * reach / events;

		if (rand() % 10 == 0)
			i -= rand() % 60;
		ck_assert_int_eq(lbt_tally_add(&t, T0 - 1000 + i, 1), 0);
		cnt[i]++;
	}
	ck_assert_int_eq(t.is_series, want_series);
	check_against(&t, cnt);
	lbt_tally_free(&t);
	free(cnt);
}

START_TEST(small_random)
{
	random_run(LBT_TALLY_SMALL, 3000, 0, 1);
}
END_TEST

START_TEST(many_events)
{
	random_run(LBT_TALLY_SMALL + 1, 3000, 1, 2);
	random_run(20000, 600, 1, 3);
}
END_TEST

START_TEST(far_bucket)
{
	random_run(500, SPAN - 1001, 1, 4);             /* the last ones past 65535 */
}
END_TEST

/* Merges of small and series tallies hold the sum of both inputs. */
START_TEST(merge)
{
	for (int kind = 0; kind < 4; kind++) {
		int64_t *cnt = calloc(SPAN, sizeof(*cnt));
		lbt_tally a = LBT_TALLY_INIT, b = LBT_TALLY_INIT;
		int na = kind & 1 ? 3000 : 300, nb = kind & 2 ? 3000 : 200;

		srand(10 + (unsigned)kind);
		for (int e = 0; e < na + nb; e++) {
			int64_t i = 1000 + rand() % 2000;

			lbt_tally_add(e < na ? &a : &b, T0 - 1000 + i, 1);
			cnt[i]++;
		}
		ck_assert_int_eq(a.is_series, kind & 1);
		ck_assert_int_eq(b.is_series, (kind & 2) >> 1);
		ck_assert_int_eq(lbt_tally_merge(&a, &b), 0);
		check_against(&a, cnt);
		lbt_tally_free(&a);
		lbt_tally_free(&b);
		free(cnt);
	}
}
END_TEST

static Suite *tally_suite(void)
{
	Suite *s = suite_create("tally");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, by_hand);
	tcase_add_test(tc, peak_tie);
	tcase_add_test(tc, small_random);
	tcase_add_test(tc, many_events);
	tcase_add_test(tc, far_bucket);
	tcase_add_test(tc, merge);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(tally_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
