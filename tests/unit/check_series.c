/*
 * check_series.c - unit tests for lib/analysis/series.c: sparse buckets filled out
 * of order, span/peak/total/dense, the peak of a dense array, sparkline
 * and bucket times.  (Baselines and episodes: check_changepoint.c.)
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/series.h"

#define SEC 1000000LL
#define T0 1762039441LL            /* 2025-11-01T23:24:01Z (date -u -d ... +%s) */

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

/* The index of the first largest element. */
START_TEST(peak_index)
{
	int64_t b[] = { 4, 1, 10, 3, 10 };

	ck_assert_uint_eq(lbt_peak_i64(b, 5), 2);
	ck_assert_uint_eq(lbt_peak_i64(b, 0), 0);
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
/* Against a plain array: a run in time order with small steps back (it
 * stays a run), then a step far back, a value past 32 bits and a bucket
 * far ahead (each turns a run into the table): every reading agrees. */
START_TEST(run_and_table)
{
	enum { N = 3000 };
	static int64_t ref[N];
	static const int kinds[] = { 0, 1, 2, 3 };

	for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
		lbt_series *s = lbt_series_new(1000000);
		int64_t b0 = 1762039441, first, last, pb, pv, total = 0;
		uint64_t x = 7;
		size_t n;
		lbt_series_point *p;
		int64_t *d;

		memset(ref, 0, sizeof ref);
		for (int i = 0; i < 20000; i++) {
			int64_t b = i / 8 + (int64_t)(x >> 62);       /* up to 3 buckets back */
			int64_t v = 1;

			x = x * 6364136223846793005ull + 1442695040888963407ull;
			if (kinds[k] == 1 && i == 15000)
				b = 10;                                  /* far back */
			if (kinds[k] == 2 && i == 15000)
				v = (int64_t)1 << 40;                    /* past 32 bits */
			if (kinds[k] == 3 && i == 15000)
				b = N - 1;                               /* far ahead: stays a run */
			ck_assert_int_eq(lbt_series_add_bucket(s, b0 + b, v), 0);
			ref[b] += v;
			total += v;
		}
		ck_assert_int_eq(lbt_series_total(s), total);
		ck_assert_int_eq(lbt_series_span(s, &first, &last), 0);
		ck_assert_int_eq(first, b0);
		ck_assert_int_eq(last, b0 + (kinds[k] == 3 ? N - 1 : 19999 / 8 + 3) - (kinds[k] != 3 && ref[19999 / 8 + 3] == 0));
		ck_assert_ptr_nonnull(d = lbt_series_dense(s, b0, b0 + N - 1));
		for (int i = 0; i < N; i++) {
			ck_assert_int_eq(d[i], ref[i]);
			ck_assert_int_eq(lbt_series_get(s, b0 + i), ref[i]);
		}
		free(d);
		ck_assert_ptr_nonnull(p = lbt_series_points(s, &n));
		ck_assert_uint_eq(n, lbt_series_nbuckets(s));
		for (size_t i = 1; i < n; i++)
			ck_assert_int_lt(p[i - 1].bucket, p[i].bucket);
		free(p);
		ck_assert_int_eq(lbt_series_peak(s, &pb, &pv), 0);
		ck_assert_int_eq(pv, ref[lbt_peak_i64(ref, N)]);
		ck_assert_int_eq(pb, b0 + (int64_t)lbt_peak_i64(ref, N));
		lbt_series_free(s);
	}
}
END_TEST

static Suite *series_suite(void)
{
	Suite *s = suite_create("series");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, bucket_of);
	tcase_add_test(tc, sparse);
	tcase_add_test(tc, peak_tie);
	tcase_add_test(tc, max_mode);
	tcase_add_test(tc, many_buckets);
	tcase_add_test(tc, peak_index);
	tcase_add_test(tc, sparkline);
	tcase_add_test(tc, bucket_format);
	tcase_add_test(tc, run_and_table);
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
