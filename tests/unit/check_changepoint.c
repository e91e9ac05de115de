/*
 * check_changepoint.c - episodes on series whose truth is known because
 * they are built here: exact rates in exact buckets, the cases of the
 * issue "change points that tell the truth".
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "lbt/changepoint.h"

/* Fill v[a..b) so that every `every` buckets hold `k` events (a rate of
 * k / every a bucket), deterministic. */
static void fill(int64_t *v, size_t a, size_t b, int64_t k, size_t every)
{
	for (size_t i = a; i < b; i++)
		v[i] = (i - a) % every == 0 ? k : 0;
}

/* Baseline 29 events a minute (0.483/s), a tarpit flood at 300/s for 60 s,
 * a 35 s lull at 7.5/s (15 every 2 s), a deny flood at 400/s for 60 s,
 * calm again: two rises with their own means, and the baseline's decimals. */
START_TEST(two_floods_and_a_lull)
{
	size_t n = 900;
	int64_t *v = calloc(n, sizeof *v);
	lbt_cp_result r;

	for (size_t m = 0; m < n / 60; m++)         /* 29 in each minute */
		for (size_t k = 0; k < 29; k++)
			v[m * 60 + k * 2] = 1;
	fill(v, 300, 360, 300, 1);
	fill(v, 360, 395, 15, 2);
	fill(v, 395, 455, 400, 1);
	ck_assert_int_eq(lbt_cp_find(v, n, 1.0, NULL, &r), 0);
	ck_assert(!r.is_new);
	ck_assert_msg(fabs(r.baseline - 29.0 / 60) < 0.01, "baseline %g", r.baseline);
	ck_assert_uint_eq(r.nep, 2);
	ck_assert(r.ep[0].kind == LBT_CP_RISE && r.ep[1].kind == LBT_CP_RISE);
	ck_assert_uint_eq(r.ep[0].start, 300);
	ck_assert_uint_eq(r.ep[0].end, 360);
	ck_assert_msg(fabs(r.ep[0].mean_rate - 300) < 1e-9, "%g", r.ep[0].mean_rate);
	ck_assert_uint_eq(r.ep[1].start, 395);
	ck_assert_uint_eq(r.ep[1].end, 455);
	ck_assert_msg(fabs(r.ep[1].mean_rate - 400) < 1e-9, "%g", r.ep[1].mean_rate);
	ck_assert(!r.ep[1].ongoing);
	ck_assert_msg(fabs(r.ep[0].ratio - 300 / r.baseline) < 1e-6, "%g", r.ep[0].ratio);
	lbt_cp_result_free(&r);
	free(v);
}
END_TEST

/* Absent for 5 minutes, then 300/s: new, first seen at 300, no baseline;
 * one rise from 300, ongoing at the end. */
START_TEST(new_source)
{
	size_t n = 400;
	int64_t *v = calloc(n, sizeof *v);
	lbt_cp_result r;

	fill(v, 300, 400, 300, 1);
	ck_assert_int_eq(lbt_cp_find(v, n, 1.0, NULL, &r), 0);
	ck_assert(r.is_new);
	ck_assert_uint_eq(r.first_seen, 300);
	ck_assert(r.baseline == 0);
	ck_assert_uint_eq(r.nep, 1);
	ck_assert_uint_eq(r.ep[0].start, 300);
	ck_assert(r.ep[0].ongoing && r.ep[0].end == n);
	ck_assert(r.ep[0].ratio == 0);
	lbt_cp_result_free(&r);
	free(v);
}
END_TEST

/* One event a minute, first at 30 s: its absence is what its rate predicts
 * (0.5 events expected), so it is not new, and nothing happens. */
START_TEST(rare_key_not_new)
{
	size_t n = 600;
	int64_t *v = calloc(n, sizeof *v);
	lbt_cp_result r;

	fill(v, 30, n, 1, 60);
	ck_assert_int_eq(lbt_cp_find(v, n, 1.0, NULL, &r), 0);
	ck_assert(!r.is_new);
	ck_assert_uint_eq(r.first_seen, 30);
	ck_assert_uint_eq(r.nep, 0);
	ck_assert_msg(fabs(r.baseline - 10.0 / 600) < 1e-9, "baseline %g", r.baseline);
	lbt_cp_result_free(&r);
	free(v);
}
END_TEST

/* An LB at 50/s leaves rotation at 600 s: a drop from 600, ongoing, from
 * 50/s, to 0. */
START_TEST(lb_leaves_rotation)
{
	size_t n = 900;
	int64_t *v = calloc(n, sizeof *v);
	lbt_cp_result r;

	fill(v, 0, 600, 50, 1);
	ck_assert_int_eq(lbt_cp_find(v, n, 1.0, NULL, &r), 0);
	ck_assert_msg(fabs(r.baseline - 50) < 1e-9, "baseline %g", r.baseline);
	ck_assert_uint_eq(r.nep, 1);
	ck_assert(r.ep[0].kind == LBT_CP_DROP);
	ck_assert_uint_eq(r.ep[0].start, 600);
	ck_assert(r.ep[0].ongoing);
	ck_assert(r.ep[0].mean_rate == 0 && r.ep[0].peak_rate == 0);
	ck_assert_msg(fabs(r.ep[0].from_rate - 50) < 1e-9, "from %g", r.ep[0].from_rate);
	lbt_cp_result_free(&r);
	free(v);
}
END_TEST

/* Steady traffic with Poisson-like jitter (a fixed pattern 3..7 around 5)
 * has no episode, and a 2-bucket spike is shorter than min_buckets. */
START_TEST(steady_no_episode)
{
	static const int64_t jitter[] = { 5, 3, 7, 4, 6, 5, 4, 6, 3, 7 };
	size_t n = 1000;
	int64_t *v = calloc(n, sizeof *v);
	lbt_cp_result r;

	for (size_t i = 0; i < n; i++)
		v[i] = jitter[i % 10];
	v[500] = v[501] = 200;
	ck_assert_int_eq(lbt_cp_find(v, n, 1.0, NULL, &r), 0);
	ck_assert_uint_eq(r.nep, 0);
	ck_assert_msg(fabs(r.baseline - 5) < 0.05, "baseline %g", r.baseline);
	lbt_cp_result_free(&r);
	free(v);
}
END_TEST

/* Buckets of 10 s: rates are per second (40 in a bucket = 4/s). */
START_TEST(bucket_width)
{
	size_t n = 100;
	int64_t *v = calloc(n, sizeof *v);
	lbt_cp_result r;

	fill(v, 0, n, 4, 1);
	fill(v, 50, 70, 400, 1);
	ck_assert_int_eq(lbt_cp_find(v, n, 10.0, NULL, &r), 0);
	ck_assert_msg(fabs(r.baseline - 0.4) < 1e-9, "baseline %g", r.baseline);
	ck_assert_uint_eq(r.nep, 1);
	ck_assert_uint_eq(r.ep[0].start, 50);
	ck_assert_uint_eq(r.ep[0].end, 70);
	ck_assert_msg(fabs(r.ep[0].peak_rate - 40) < 1e-9, "%g", r.ep[0].peak_rate);
	lbt_cp_result_free(&r);
	free(v);
}
END_TEST

/* Nothing at all, and an empty series. */
START_TEST(empty)
{
	int64_t v[20] = { 0 };
	lbt_cp_result r;

	ck_assert_int_eq(lbt_cp_find(v, 20, 1.0, NULL, &r), 0);
	ck_assert_uint_eq(r.nep, 0);
	ck_assert_uint_eq(r.first_seen, 20);
	ck_assert(!r.is_new);
	lbt_cp_result_free(&r);
	ck_assert_int_eq(lbt_cp_find(v, 0, 1.0, NULL, &r), 0);
	ck_assert_uint_eq(r.nseg, 0);
	lbt_cp_result_free(&r);
}
END_TEST

/* The suite. */
int main(void)
{
	Suite *s = suite_create("changepoint");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, two_floods_and_a_lull);
	tcase_add_test(tc, new_source);
	tcase_add_test(tc, rare_key_not_new);
	tcase_add_test(tc, lb_leaves_rotation);
	tcase_add_test(tc, steady_no_episode);
	tcase_add_test(tc, bucket_width);
	tcase_add_test(tc, empty);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
