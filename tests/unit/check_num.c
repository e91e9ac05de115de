/*
 * check_num.c - unit tests for lib/base/num.c (bounded and fast number parsing).
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "lbt/num.h"

/* Bounded parse accepts in-range values and both bounds. */
START_TEST(parse_ok)
{
	int64_t v = 0;
	lbt_err err;

	ck_assert_int_eq(lbt_num_parse("10", 1, 1000, "--top", &v, &err), 0);
	ck_assert_int_eq(v, 10);
	ck_assert_int_eq(lbt_num_parse("1", 1, 1000, "--top", &v, &err), 0);
	ck_assert_int_eq(v, 1);
	ck_assert_int_eq(lbt_num_parse("1000", 1, 1000, "--top", &v, &err), 0);
	ck_assert_int_eq(v, 1000);
	ck_assert_int_eq(lbt_num_parse("-5", -10, 10, "x", &v, &err), 0);
	ck_assert_int_eq(v, -5);
}
END_TEST

/* Bad text and out-of-range values say what and which range. */
START_TEST(parse_bad)
{
	int64_t v = 77;
	lbt_err err;

	ck_assert_int_eq(lbt_num_parse("abc", 1, 1000, "--top", &v, &err), -1);
	ck_assert_str_eq(err.msg, "--top: 'abc' is not a number in 1..1000");
	ck_assert_int_eq(v, 77);
	ck_assert_int_eq(lbt_num_parse("0", 1, 1000, "--top", &v, &err), -1);
	ck_assert_str_eq(err.msg, "--top: '0' is not a number in 1..1000");
	ck_assert_int_eq(lbt_num_parse("1001", 1, 1000, "--top", &v, &err), -1);
	ck_assert_int_eq(lbt_num_parse("", 1, 1000, "--top", &v, &err), -1);
	ck_assert_str_eq(err.msg, "--top: '' is not a number in 1..1000");
	ck_assert_int_eq(lbt_num_parse("12x", 1, 1000, "--top", &v, &err), -1);
	ck_assert_int_eq(lbt_num_parse(" 12", 1, 1000, "--top", &v, &err), -1);
	ck_assert_int_eq(lbt_num_parse("99999999999999999999", 0, INT64_MAX, "-n", &v, &err), -1);
	ck_assert_int_eq(lbt_num_parse(NULL, 1, 2, "-n", &v, NULL), -1);
}
END_TEST

/*
 * Decimal numbers: strtod forms, inclusive and exclusive minimum, finite
 * and absent maximum, each error's text; *out untouched on error.
 */
START_TEST(parse_double)
{
	double v = 7;
	lbt_err err;

	ck_assert_int_eq(lbt_num_parse_double("0.5", 0, 0, 100, "--min-share", &v, &err), 0);
	ck_assert(v == 0.5);
	ck_assert_int_eq(lbt_num_parse_double("1e3", 0, 0, 1e12, "--min-rate", &v, &err), 0);
	ck_assert(v == 1000);
	ck_assert_int_eq(lbt_num_parse_double("100", 0, 0, 100, "--min-share", &v, &err), 0);
	ck_assert(v == 100);
	ck_assert_int_eq(lbt_num_parse_double("0", 0, 0, 100, "--min-share", &v, &err), 0);
	ck_assert(v == 0);
	ck_assert_int_eq(lbt_num_parse_double("1.01", 1, 1, HUGE_VAL, "--jump-factor", &v,
	    &err), 0);
	ck_assert(v == 1.01);
	v = 7;
	ck_assert_int_eq(lbt_num_parse_double("x", 0, 0, 100, "--min-share", &v, &err), -1);
	ck_assert_str_eq(err.msg, "--min-share: 'x' is not a number");
	ck_assert_int_eq(lbt_num_parse_double("", 0, 0, 100, "--min-share", &v, &err), -1);
	ck_assert_str_eq(err.msg, "--min-share: '' is not a number");
	ck_assert_int_eq(lbt_num_parse_double("5 ", 0, 0, 100, "--min-share", &v, &err), -1);
	ck_assert_int_eq(lbt_num_parse_double("nan", 0, 0, 100, "--min-share", &v, &err), -1);
	ck_assert_int_eq(lbt_num_parse_double("inf", 0, 0, HUGE_VAL, "x", &v, &err), -1);
	ck_assert_str_eq(err.msg, "x: 'inf' is not a number");
	ck_assert_int_eq(lbt_num_parse_double("1e999", 0, 0, HUGE_VAL, "x", &v, &err), -1);
	ck_assert_int_eq(lbt_num_parse_double("101", 0, 0, 100, "--min-share", &v, &err), -1);
	ck_assert_str_eq(err.msg, "--min-share: '101' is not in 0..100");
	ck_assert_int_eq(lbt_num_parse_double("-1", 0, 0, 1e12, "--min-rate", &v, &err), -1);
	ck_assert_str_eq(err.msg, "--min-rate: '-1' is not in 0..1e+12");
	ck_assert_int_eq(lbt_num_parse_double("1", 1, 1, HUGE_VAL, "--jump-factor", &v, &err), -1);
	ck_assert_str_eq(err.msg, "--jump-factor: '1' must be greater than 1");
	ck_assert_int_eq(lbt_num_parse_double("-0.5", 0, 0, HUGE_VAL, "--jump-floor", &v, &err),
	    -1);
	ck_assert_str_eq(err.msg, "--jump-floor: '-0.5' must be at least 0");
	ck_assert_int_eq(lbt_num_parse_double("0", 0, 1, 1, "x", &v, &err), -1);
	ck_assert_str_eq(err.msg, "x: '0' must be greater than 0 and at most 1");
	ck_assert_int_eq(lbt_num_parse_double(NULL, 0, 0, 1, NULL, &v, &err), -1);
	ck_assert_str_eq(err.msg, "value: '' is not a number");
	ck_assert(v == 7);
}
END_TEST

/* Durations: every unit, bare seconds, range and junk. */
START_TEST(duration)
{
	int64_t us = 0;
	lbt_err err;

	ck_assert_int_eq(lbt_duration_parse("500ms", 0, INT64_MAX, "--bin", &us, &err), 0);
	ck_assert_int_eq(us, 500000);
	ck_assert_int_eq(lbt_duration_parse("1s", 0, INT64_MAX, "--bin", &us, &err), 0);
	ck_assert_int_eq(us, 1000000);
	ck_assert_int_eq(lbt_duration_parse("10", 0, INT64_MAX, "--bin", &us, &err), 0);
	ck_assert_int_eq(us, 10000000);
	ck_assert_int_eq(lbt_duration_parse("1m", 0, INT64_MAX, "--bin", &us, &err), 0);
	ck_assert_int_eq(us, 60000000);
	ck_assert_int_eq(lbt_duration_parse("2h", 0, INT64_MAX, "--bin", &us, &err), 0);
	ck_assert_int_eq(us, 7200000000LL);
	ck_assert_int_eq(lbt_duration_parse("1d", 0, INT64_MAX, "--bin", &us, &err), 0);
	ck_assert_int_eq(us, 86400000000LL);
	ck_assert_int_eq(lbt_duration_parse("5x", 0, INT64_MAX, "--bin", &us, &err), -1);
	ck_assert_str_eq(err.msg, "--bin: '5x' is not a duration (500ms, 10s, 1m, 2h, 1d)");
	ck_assert_int_eq(lbt_duration_parse("ms", 0, INT64_MAX, "--bin", &us, &err), -1);
	ck_assert_int_eq(lbt_duration_parse("-1s", 0, INT64_MAX, "--bin", &us, &err), -1);
	ck_assert_int_eq(lbt_duration_parse("0s", 1, INT64_MAX, "--bin", &us, &err), -1);
	ck_assert_str_eq(err.msg, "--bin: '0s' is out of range");
	ck_assert_int_eq(lbt_duration_parse("999999999999d", 0, INT64_MAX, "--bin", &us, &err), -1);
}
END_TEST

/* Fast conversions: signs ('+' from logasap), empty, junk, overflow. */
START_TEST(fast)
{
	int64_t v;
	int32_t w;

	ck_assert_int_eq(lbt_num_i64("123", 3, &v), 0);
	ck_assert_int_eq(v, 123);
	ck_assert_int_eq(lbt_num_i64("1234", 2, &v), 0);
	ck_assert_int_eq(v, 12);
	ck_assert_int_eq(lbt_num_i64("-1", 2, &v), 0);
	ck_assert_int_eq(v, -1);
	ck_assert_int_eq(lbt_num_i64("+15", 3, &v), 0);
	ck_assert_int_eq(v, 15);
	ck_assert_int_eq(lbt_num_i64("9223372036854775807", 19, &v), 0);
	ck_assert(v == INT64_MAX);
	ck_assert_int_eq(lbt_num_i64("-9223372036854775808", 20, &v), 0);
	ck_assert(v == INT64_MIN);
	ck_assert_int_eq(lbt_num_i64("9223372036854775808", 19, &v), -1);
	ck_assert_int_eq(lbt_num_i64("", 0, &v), -1);
	ck_assert_int_eq(lbt_num_i64("-", 1, &v), -1);
	ck_assert_int_eq(lbt_num_i64("1a", 2, &v), -1);
	ck_assert_int_eq(lbt_num_i64("--1", 3, &v), -1);
	ck_assert_int_eq(lbt_num_i32("2147483647", 10, &w), 0);
	ck_assert_int_eq(w, INT32_MAX);
	ck_assert_int_eq(lbt_num_i32("-2147483648", 11, &w), 0);
	ck_assert_int_eq(w, INT32_MIN);
	ck_assert_int_eq(lbt_num_i32("2147483648", 10, &w), -1);
	ck_assert_int_eq(lbt_num_i32("0000000000000000000000001", 25, &w), 0);
	ck_assert_int_eq(w, 1);
	ck_assert_int_eq(lbt_num_i32("99999999999999999999999", 23, &w), -1);
	ck_assert_int_eq(lbt_num_i32("+0", 2, &w), 0);
	ck_assert_int_eq(w, 0);
}
END_TEST

/* The num suite. */
static Suite *num_suite(void)
{
	Suite *s = suite_create("num");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, parse_ok);
	tcase_add_test(tc, parse_bad);
	tcase_add_test(tc, parse_double);
	tcase_add_test(tc, duration);
	tcase_add_test(tc, fast);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite; exit status 1 when a check failed. */
int main(void)
{
	SRunner *sr = srunner_create(num_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
