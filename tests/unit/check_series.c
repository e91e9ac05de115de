/*
 * check_series.c - unit tests for lib/analysis/series.c: sparse buckets filled out
 * of order, span/peak/total/dense, median, jump start/end/baseline worked
 * out by hand on small arrays, sparkline and bucket times.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/series.h"

#define SEC 1000000LL
#define T0 1762039441LL            /* 2025-11-01T23:24:01Z (date -u -d ... +%s) */

/* Fill v with runs: pairs (count, value) ending with count 0.  @return n */
static size_t runs(int64_t *v, const int *spec)
{
	size_t n = 0;

	for (; spec[0] != 0; spec += 2)
		for (int i = 0; i < spec[0]; i++)
			v[n++] = spec[1];
	return n;
}

/* floor division, also below zero. */
START_TEST(bucket_of)
{
	ck_assert_int_eq(lbt_bucket_of(0, SEC), 0);
	ck_assert_int_eq(lbt_bucket_of(999999, SEC), 0);
	ck_assert_int_eq(lbt_bucket_of(SEC, SEC), 1);
	ck_assert_int_eq(lbt_bucket_of(-1, SEC), -1);
	ck_assert_int_eq(lbt_bucket_of(-SEC, SEC), -1);
	ck_assert_int_eq(lbt_bucket_of(-SEC - 1, SEC), -2);
	ck_assert_int_eq(lbt_bucket_of(T0 * SEC + 59 * SEC, 60 * SEC), (T0 + 59) / 60);
}
END_TEST

/* Records out of order land in the right buckets. */
START_TEST(sparse)
{
	lbt_series *s = lbt_series_new(SEC);
	int64_t first, last, b, v;
	int64_t *d;
	lbt_series_point *p;
	size_t n;

	ck_assert_int_eq(lbt_series_span(s, &first, &last), -1);
	ck_assert_int_eq(lbt_series_peak(s, &b, &v), -1);
	/* second 0: 3 requests, second 5: 4, second 2: 1, with second 0 revisited late */
	lbt_series_add(s, T0 * SEC + 100, 1);
	lbt_series_add(s, T0 * SEC + 5 * SEC + 10, 1);
	lbt_series_add(s, T0 * SEC + 5 * SEC + 20, 1);
	lbt_series_add(s, T0 * SEC + 2 * SEC, 1);
	lbt_series_add(s, T0 * SEC + 999999, 1);
	lbt_series_add(s, T0 * SEC + 5 * SEC + 999999, 2);
	lbt_series_add(s, T0 * SEC, 1);
	ck_assert_int_eq(lbt_series_nbuckets(s), 3);
	ck_assert_int_eq(lbt_series_total(s), 8);
	ck_assert_int_eq(lbt_series_get(s, T0), 3);
	ck_assert_int_eq(lbt_series_get(s, T0 + 5), 4);
	ck_assert_int_eq(lbt_series_get(s, T0 + 2), 1);
	ck_assert_int_eq(lbt_series_get(s, T0 + 1), 0);
	ck_assert_int_eq(lbt_series_span(s, &first, &last), 0);
	ck_assert_int_eq(first, T0);
	ck_assert_int_eq(last, T0 + 5);
	ck_assert_int_eq(lbt_series_peak(s, &b, &v), 0);
	ck_assert_int_eq(b, T0 + 5);
	ck_assert_int_eq(v, 4);
	ck_assert_int_eq(lbt_series_sum_range(s, T0 + 1, T0 + 2), 1);
	d = lbt_series_dense(s, T0 - 1, T0 + 5);
	ck_assert_int_eq(d[0], 0);
	ck_assert_int_eq(d[1], 3);
	ck_assert_int_eq(d[3], 1);
	ck_assert_int_eq(d[6], 4);
	free(d);
	ck_assert_ptr_null(lbt_series_dense(s, T0, T0 - 1));
	p = lbt_series_points(s, &n);
	ck_assert_uint_eq(n, 3);
	ck_assert_int_eq(p[0].bucket, T0);
	ck_assert_int_eq(p[1].bucket, T0 + 2);
	ck_assert_int_eq(p[2].bucket, T0 + 5);
	ck_assert_int_eq(p[2].value, 4);
	free(p);
	lbt_series_free(s);
	lbt_series_free(NULL);
}
END_TEST

/* Peak ties go to the earliest bucket, whatever the order of arrival. */
START_TEST(peak_tie)
{
	lbt_series *s = lbt_series_new(10 * SEC);
	int64_t b, v;

	lbt_series_add(s, T0 * SEC + 100 * SEC, 5);
	lbt_series_add(s, T0 * SEC + 30 * SEC, 5);
	lbt_series_add(s, T0 * SEC + 60 * SEC, 5);
	lbt_series_peak(s, &b, &v);
	ck_assert_int_eq(b, (T0 + 30) / 10);
	ck_assert_int_eq(v, 5);
	ck_assert_int_eq(lbt_series_step(s), 10 * SEC);
	lbt_series_free(s);
	ck_assert_ptr_null(lbt_series_new(0));
}
END_TEST

/* Maximum mode keeps the largest value; the first value is kept even if negative. */
START_TEST(max_mode)
{
	lbt_series *s = lbt_series_new(SEC);

	lbt_series_max(s, 0, -3);
	ck_assert_int_eq(lbt_series_get(s, 0), -3);
	lbt_series_max(s, 10, 7);
	lbt_series_max(s, 20, 4);
	ck_assert_int_eq(lbt_series_get(s, 0), 7);
	lbt_series_free(s);
}
END_TEST

/* 100000 buckets interleaved from two "files" (even then odd seconds). */
START_TEST(many_buckets)
{
	enum { N = 100000 };
	lbt_series *s = lbt_series_new(SEC);
	int64_t first, last;

	for (int64_t i = 0; i < N; i += 2)
		lbt_series_add(s, (T0 + i) * SEC, i % 7);
	for (int64_t i = 1; i < N; i += 2)
		lbt_series_add(s, (T0 + i) * SEC, i % 7);
	ck_assert_uint_eq(lbt_series_nbuckets(s), N);
	for (int64_t i = 0; i < N; i += 101)
		ck_assert_int_eq(lbt_series_get(s, T0 + i), i % 7);
	lbt_series_span(s, &first, &last);
	ck_assert_int_eq(last - first + 1, N);
	ck_assert_uint_lt(lbt_series_bytes(s), (size_t)N * 48);
	lbt_series_free(s);
}
END_TEST

/* Median of odd and even counts; the input is not reordered. */
START_TEST(median)
{
	int64_t a[] = { 9, 1, 5 }, b[] = { 4, 1, 3, 10 };

	ck_assert_double_eq(lbt_median_i64(a, 3), 5);
	ck_assert_int_eq(a[0], 9);
	ck_assert_double_eq(lbt_median_i64(b, 4), 3.5);
	ck_assert_double_eq(lbt_median_i64(b, 0), 0);
	ck_assert_uint_eq(lbt_peak_i64(b, 4), 3);
}
END_TEST

/* 10 s at 2/s, 12 s at 30/s, 10 s at 2/s: baseline 2, threshold 10,
 * start at index 10, end at 22, sustained 30. */
START_TEST(jump_basic)
{
	static const int spec[] = { 10, 2, 12, 30, 10, 2, 0 };
	int64_t v[64];
	size_t n = runs(v, spec);
	lbt_jump_opts o = LBT_JUMP_OPTS_INIT;
	lbt_jump j;

	ck_assert_int_eq(lbt_jump_find(v, n, &o, &j), 0);
	ck_assert_int_eq(j.found, 1);
	ck_assert_uint_eq(j.start, 10);
	ck_assert_uint_eq(j.end, 22);
	ck_assert_int_eq(j.ongoing, 0);
	ck_assert_double_eq(j.baseline, 2);
	ck_assert_double_eq(j.threshold, 10);
	ck_assert_double_eq(j.sustained, 30);
	ck_assert_int_eq(j.peak, 30);
}
END_TEST

/* Still high at the end: ongoing; trailing low buckets (fewer than M) are
 * left out of the sustained rate. */
START_TEST(jump_ongoing)
{
	static const int a[] = { 10, 2, 15, 30, 0 }, b[] = { 10, 2, 12, 30, 3, 2, 0 };
	int64_t v[64];
	size_t n = runs(v, a);
	lbt_jump_opts o = LBT_JUMP_OPTS_INIT;
	lbt_jump j;

	lbt_jump_find(v, n, &o, &j);
	ck_assert_int_eq(j.found, 1);
	ck_assert_int_eq(j.ongoing, 1);
	ck_assert_uint_eq(j.start, 10);
	ck_assert_uint_eq(j.end, 25);
	ck_assert_double_eq(j.sustained, 30);
	n = runs(v, b);
	lbt_jump_find(v, n, &o, &j);
	ck_assert_int_eq(j.ongoing, 1);
	ck_assert_uint_eq(j.end, 25);
	ck_assert_double_eq(j.sustained, 30);
}
END_TEST

/* A dip shorter than M does not end the jump: 10x2, 12x30, 3x2, 12x30, 10x2
 * -> start 10, end 37, sustained (24*30 + 3*2) / 27. */
START_TEST(jump_dip)
{
	static const int spec[] = { 10, 2, 12, 30, 3, 2, 12, 30, 10, 2, 0 };
	int64_t v[64];
	size_t n = runs(v, spec);
	lbt_jump_opts o = LBT_JUMP_OPTS_INIT;
	lbt_jump j;

	lbt_jump_find(v, n, &o, &j);
	ck_assert_uint_eq(j.start, 10);
	ck_assert_uint_eq(j.end, 37);
	ck_assert_int_eq(j.ongoing, 0);
	ck_assert_double_eq_tol(j.sustained, (24 * 30 + 3 * 2) / 27.0, 1e-9);
}
END_TEST

/* No jump: a spike shorter than M; a rise below the factor; 0.1/s -> 1/s
 * (baseline median 0, but 1 is under the floor of 2); too short a series. */
START_TEST(jump_none)
{
	static const int spike[] = { 10, 2, 5, 30, 10, 2, 0 }, mild[] = { 10, 10, 20, 40, 0 };
	int64_t v[128];
	size_t n;
	lbt_jump_opts o = LBT_JUMP_OPTS_INIT;
	lbt_jump j;

	n = runs(v, spike);
	lbt_jump_find(v, n, &o, &j);
	ck_assert_int_eq(j.found, 0);
	n = runs(v, mild);
	lbt_jump_find(v, n, &o, &j);
	ck_assert_int_eq(j.found, 0);
	/* 50 s at one request every 10 s, then 1 per second for 20 s */
	memset(v, 0, sizeof v);
	for (int i = 0; i < 50; i += 10)
		v[i] = 1;
	for (int i = 50; i < 70; i++)
		v[i] = 1;
	lbt_jump_find(v, 70, &o, &j);
	ck_assert_int_eq(j.found, 0);
	/* with the floor lowered to 1, it is one, starting at 50 */
	o.floor = 1;
	lbt_jump_find(v, 70, &o, &j);
	ck_assert_int_eq(j.found, 1);
	ck_assert_uint_eq(j.start, 50);
	ck_assert_double_eq(j.baseline, 0);
	ck_assert_int_eq(j.ongoing, 1);
	o = (lbt_jump_opts)LBT_JUMP_OPTS_INIT;
	lbt_jump_find(v, 10, &o, &j);
	ck_assert_int_eq(j.found, 0);
}
END_TEST

/* From nothing to a flood: the baseline is the median of zeros. */
START_TEST(jump_from_zero)
{
	static const int spec[] = { 5, 0, 3, 1, 20, 300, 0 };
	int64_t v[64];
	size_t n = runs(v, spec);
	lbt_jump_opts o = { 5.0, 3, 2.0, 0 };
	lbt_jump j;

	lbt_jump_find(v, n, &o, &j);
	ck_assert_int_eq(j.found, 1);
	ck_assert_uint_eq(j.start, 8);
	/* median of 0 0 0 0 0 1 1 1 = 0 */
	ck_assert_double_eq(j.baseline, 0);
	ck_assert_double_eq(j.threshold, 2);
	ck_assert_int_eq(j.ongoing, 1);
	ck_assert_double_eq(j.sustained, 300);
}
END_TEST

/* The baseline moves with the candidate: 4 at 1, 4 at 3 then high.
 * At t=8 the median of 1 1 1 1 3 3 3 3 is 2, threshold 10 (k=5). */
START_TEST(jump_even_median)
{
	static const int spec[] = { 4, 1, 4, 3, 4, 10, 0 };
	int64_t v[64];
	size_t n = runs(v, spec);
	lbt_jump_opts o = { 5.0, 2, 2.0, 0 };
	lbt_jump j;

	lbt_jump_find(v, n, &o, &j);
	ck_assert_int_eq(j.found, 1);
	/* t=4: median(1 1 1 1)=1, thr 5: v[4..5]=3 3 no; t=5..7: v includes 3; t=8 ok */
	ck_assert_uint_eq(j.start, 8);
	ck_assert_double_eq(j.baseline, 2);
	ck_assert_double_eq(j.threshold, 10);
}
END_TEST

/* One dip inside the flood: no jump under the strict rule (the 7 buckets
 * after the dip are too few), a jump from 10 to 22 with dips = 2;
 * sustained (11 * 30 + 5) / 12. */
START_TEST(jump_dips_start)
{
	static const int spec[] = { 10, 2, 4, 30, 1, 5, 7, 30, 10, 2, 0 };
	int64_t v[64];
	size_t n = runs(v, spec);
	lbt_jump_opts o = LBT_JUMP_OPTS_INIT;
	lbt_jump j;

	lbt_jump_find(v, n, &o, &j);
	ck_assert_int_eq(j.found, 0);
	o.dips = 2;
	lbt_jump_find(v, n, &o, &j);
	ck_assert_int_eq(j.found, 1);
	ck_assert_uint_eq(j.start, 10);
	ck_assert_uint_eq(j.end, 22);
	ck_assert_double_eq_tol(j.sustained, 335.0 / 12, 1e-9);
}
END_TEST

/* A stray high bucket after the flood: the strict end waits for ten lows
 * after it (index 26; sustained over 10..25 = (12*30 + 3*2 + 30) / 16);
 * with dips = 1 the end is the first low bucket, 22. */
START_TEST(jump_dips_end)
{
	static const int spec[] = { 10, 2, 12, 30, 3, 2, 1, 30, 14, 2, 0 };
	int64_t v[64];
	size_t n = runs(v, spec);
	lbt_jump_opts o = LBT_JUMP_OPTS_INIT;
	lbt_jump j;

	lbt_jump_find(v, n, &o, &j);
	ck_assert_uint_eq(j.start, 10);
	ck_assert_uint_eq(j.end, 26);
	ck_assert_double_eq(j.sustained, 396.0 / 16);
	o.dips = 1;
	lbt_jump_find(v, n, &o, &j);
	ck_assert_uint_eq(j.end, 22);
	ck_assert_double_eq(j.sustained, 30);
}
END_TEST

/* Sparkline levels: ceil(8 x / max); empty cells are spaces; cells merge by max. */
START_TEST(sparkline)
{
	int64_t v[] = { 0, 1, 2, 4, 8 }, w[] = { 0, 0, 8, 1, 0, 4, 2, 2, 0, 0 };
	char buf[64];

	ck_assert_uint_eq(lbt_sparkline(v, 5, 40, buf, sizeof buf), 13);
	ck_assert_str_eq(buf, " \u2581\u2582\u2584\u2588");
	lbt_sparkline(w, 10, 5, buf, sizeof buf);
	ck_assert_str_eq(buf, " \u2588\u2584\u2582 ");
	ck_assert_uint_eq(lbt_sparkline(w, 0, 5, buf, sizeof buf), 0);
	ck_assert_str_eq(buf, "");
	/* a small buffer is never overrun */
	ck_assert_uint_le(lbt_sparkline(v, 5, 40, buf, 5), 4);
}
END_TEST

/* Bucket start times in ISO 8601 UTC. */
START_TEST(bucket_format)
{
	char buf[40];

	lbt_bucket_format(T0, SEC, buf, sizeof buf);
	ck_assert_str_eq(buf, "2025-11-01T23:24:01Z");
	lbt_bucket_format(T0 / 60, 60 * SEC, buf, sizeof buf);
	ck_assert_str_eq(buf, "2025-11-01T23:24:00Z");
	lbt_bucket_format(T0 * 2 + 1, 500000, buf, sizeof buf);
	ck_assert_str_eq(buf, "2025-11-01T23:24:01.500Z");
}
END_TEST

/* The series suite. */
static Suite *series_suite(void)
{
	Suite *s = suite_create("series");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, bucket_of);
	tcase_add_test(tc, sparse);
	tcase_add_test(tc, peak_tie);
	tcase_add_test(tc, max_mode);
	tcase_add_test(tc, many_buckets);
	tcase_add_test(tc, median);
	tcase_add_test(tc, jump_basic);
	tcase_add_test(tc, jump_ongoing);
	tcase_add_test(tc, jump_dip);
	tcase_add_test(tc, jump_none);
	tcase_add_test(tc, jump_from_zero);
	tcase_add_test(tc, jump_even_median);
	tcase_add_test(tc, jump_dips_start);
	tcase_add_test(tc, jump_dips_end);
	tcase_add_test(tc, sparkline);
	tcase_add_test(tc, bucket_format);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(series_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
