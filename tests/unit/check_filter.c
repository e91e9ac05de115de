/*
 * check_filter.c - lib/read/filter.c: every option, its shapes and its errors.
 *
 * Epoch values worked out by hand: 2025-01-01T00:00:00Z is 1735689600; Jan
 * to Oct 2025 have 304 days, so 2025-11-01T00:00:00Z is 1735689600 + 304 *
 * 86400 = 1761955200, and 22:24:01 that day is 1761955200 + 80641 =
 * 1762035841 (01/Nov/2025:22:24:01 +0000, the stamp of many samples).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/filter.h"

#define DAY0 INT64_C(1761955200)            /* 2025-11-01T00:00:00Z */
#define T0   INT64_C(1762035841)            /* 2025-11-01T22:24:01Z */
#define S    INT64_C(1000000)

/* A record with only a time. */
static lbt_rec rec_at(int64_t us)
{
	lbt_rec r;

	lbt_rec_clear(&r);
	r.time_us = us;
	r.have = LBT_BIT(LBT_F_TIME);
	return r;
}

/* Compile a filter with only --since/--until set; fails the test on error. */
static lbt_filter *window(const char *since, const char *until, int64_t now_us)
{
	lbt_filter_opts o = LBT_FILTER_OPTS_INIT;
	lbt_err err;
	lbt_filter *f;

	o.since = since;
	o.until = until;
	f = lbt_filter_new(&o, now_us, &err);
	ck_assert_msg(f != NULL, "%s", err.msg);
	return f;
}

/* The --since value s resolves to `us` (checked with lbt_filter_bounds). */
static void since_is(const char *s, int64_t us)
{
	lbt_filter *f = window(s, NULL, T0 * S);
	int64_t a, b;

	lbt_filter_bounds(f, &a, &b);
	ck_assert_msg(a == us, "%s: got %lld want %lld", s, (long long)a, (long long)us);
	ck_assert(b == INT64_MAX);
	lbt_filter_free(f);
}

START_TEST(time_shapes)
{
	since_is("2025-11-01T22:24:01Z", T0 * S);
	since_is("2025-11-01T22:24:01", T0 * S);               /* no zone = UTC */
	since_is("2025-11-01 22:24:01", T0 * S);
	since_is("2025-11-01T23:24:01+01:00", T0 * S);
	since_is("2025-11-01T23:24:01+0100", T0 * S);
	since_is("2025-11-01T22:24:01.5Z", T0 * S + 500000);
	since_is("2025-11-01T22:24", (T0 - 1) * S);
	since_is("2025-11-01T23:24+01:00", (T0 - 1) * S);
	since_is("2025-11-01", DAY0 * S);
	since_is("@1762035841", T0 * S);
	since_is("@1762035841.25", T0 * S + 250000);
	since_is("-15m", (T0 - 900) * S);
	since_is("-2h", (T0 - 7200) * S);
	since_is("-1d", (T0 - 86400) * S);
	since_is("-90", (T0 - 90) * S);
}
END_TEST

START_TEST(time_window)
{
	lbt_filter *f = window("2025-11-01T22:24:01Z", "2025-11-01T22:24:02Z", 0);
	lbt_rec r = rec_at(T0 * S), none;

	ck_assert(lbt_filter_match(f, &r));
	r = rec_at(T0 * S - 1);
	ck_assert(!lbt_filter_match(f, &r));
	r = rec_at((T0 + 1) * S - 1);
	ck_assert(lbt_filter_match(f, &r));
	r = rec_at((T0 + 1) * S);                        /* --until is exclusive */
	ck_assert(!lbt_filter_match(f, &r));
	lbt_rec_clear(&none);                            /* no time: no pass */
	ck_assert(!lbt_filter_match(f, &none));
	ck_assert_uint_eq(lbt_filter_fields(f), LBT_BIT(LBT_F_TIME));
	lbt_filter_free(f);
}
END_TEST

START_TEST(time_of_day)
{
	lbt_filter *f = window("22:00", "23:00", 0);
	lbt_rec r = rec_at(T0 * S);
	int64_t a, b;

	lbt_filter_bounds(f, &a, &b);                    /* not fixed yet */
	ck_assert(a == INT64_MIN && b == INT64_MAX);
	ck_assert(lbt_filter_match(f, &r));              /* 22:24:01 fixes the day */
	lbt_filter_bounds(f, &a, &b);
	ck_assert(a == (DAY0 + 22 * 3600) * S && b == (DAY0 + 23 * 3600) * S);
	r = rec_at((DAY0 + 23 * 3600) * S);
	ck_assert(!lbt_filter_match(f, &r));
	r = rec_at((DAY0 + 86400 + 22 * 3600 + 60) * S);   /* 22:01 the next day */
	ck_assert(!lbt_filter_match(f, &r));
	lbt_filter_free(f);

	/* Across midnight, with seconds. */
	f = window("23:30:30", "00:30", 0);
	r = rec_at((DAY0 + 23 * 3600 + 40 * 60) * S);
	ck_assert(lbt_filter_match(f, &r));
	lbt_filter_bounds(f, &a, &b);
	ck_assert(a == (DAY0 + 23 * 3600 + 30 * 60 + 30) * S);
	ck_assert(b == (DAY0 + 86400 + 30 * 60) * S);
	r = rec_at((DAY0 + 86400 + 29 * 60) * S);
	ck_assert(lbt_filter_match(f, &r));
	lbt_filter_free(f);

	/* Only --until as a time of day: --since stays open; 22:24 nearest to
	 * a first record at 20:00 is 2 h 24 later, the same day. */
	f = window(NULL, "22:24", 0);
	r = rec_at((DAY0 + 20 * 3600) * S);
	ck_assert(lbt_filter_match(f, &r));
	r = rec_at(T0 * S);
	ck_assert(!lbt_filter_match(f, &r));
	lbt_filter_free(f);

	/* ... but nearest to a first record at 01:00 it is the day before's
	 * 22:24 (2 h 36 earlier, not 21 h 24 later): nothing passes. */
	f = window(NULL, "22:24", 0);
	r = rec_at((DAY0 + 3600) * S);
	ck_assert(!lbt_filter_match(f, &r));
	lbt_filter_bounds(f, &a, &b);
	ck_assert(b == (DAY0 - 86400 + 22 * 3600 + 24 * 60) * S);
	lbt_filter_free(f);
}
END_TEST

/*
 * The incident of the issue: a log from 23:30 to 01:10 (the next day).
 * --since 23:39 --until 01:06 covers 23:39 -> 01:06 of the next day;
 * --since 00:11 means the next day's 00:11 (41 min after the first
 * record, not 23 h 19 before it); --since 23:58 on a log starting at
 * 23:58:35 keeps its first lines (35 s before, not 23 h 59 after).
 */
START_TEST(time_of_day_nearest)
{
	int64_t first = (DAY0 + 23 * 3600 + 30 * 60) * S, a, b;
	lbt_filter *f = window("23:39", "01:06", 0);
	lbt_rec r = rec_at(first);

	ck_assert(!lbt_filter_match(f, &r));
	lbt_filter_bounds(f, &a, &b);
	ck_assert(a == (DAY0 + 23 * 3600 + 39 * 60) * S);
	ck_assert(b == (DAY0 + 86400 + 3600 + 6 * 60) * S);
	r = rec_at((DAY0 + 86400 + 11 * 60) * S);           /* 00:11 the next day */
	ck_assert(lbt_filter_match(f, &r));
	lbt_filter_free(f);

	f = window("00:11", NULL, 0);
	r = rec_at(first);
	ck_assert(!lbt_filter_match(f, &r));
	lbt_filter_bounds(f, &a, &b);
	ck_assert(a == (DAY0 + 86400 + 11 * 60) * S && b == INT64_MAX);
	r = rec_at((DAY0 + 23 * 3600 + 50 * 60) * S);       /* 23:50: before */
	ck_assert(!lbt_filter_match(f, &r));
	lbt_filter_free(f);

	f = window("23:58", NULL, 0);
	r = rec_at((DAY0 + 23 * 3600 + 58 * 60 + 35) * S);
	ck_assert(lbt_filter_match(f, &r));
	lbt_filter_bounds(f, &a, &b);
	ck_assert(a == (DAY0 + 23 * 3600 + 58 * 60) * S);
	lbt_filter_free(f);

	/* Equal clock times: a whole day. */
	f = window("10:00", "10:00", 0);
	r = rec_at((DAY0 + 9 * 3600) * S);
	ck_assert(!lbt_filter_match(f, &r));
	lbt_filter_bounds(f, &a, &b);
	ck_assert(a == (DAY0 + 10 * 3600) * S && b == a + 86400 * S);
	lbt_filter_free(f);
}
END_TEST

/* lbt_filter_new(o) fails with exactly `msg`. */
static void fails(const lbt_filter_opts *o, const char *msg)
{
	lbt_err err;

	ck_assert_ptr_null(lbt_filter_new(o, T0 * S, &err));
	ck_assert_str_eq(err.msg, msg);
}

#define TIME_SHAPES "(2025-11-01T23:24:01[Z|+01:00], 2025-11-01, 23:24[:01], -15m, @1762035841)"

START_TEST(time_errors)
{
	lbt_filter_opts o = LBT_FILTER_OPTS_INIT;
	lbt_err err;
	int64_t us;

	o.since = "yesterday";
	fails(&o, "--since: 'yesterday' is not a time " TIME_SHAPES);
	o.since = "24:00";
	fails(&o, "--since: '24:00' is not a time " TIME_SHAPES);
	o.since = "2025-13-01";
	fails(&o, "--since: '2025-13-01' is not a time " TIME_SHAPES);
	o.since = "-15x";
	fails(&o, "--since: '-15x' is not a time " TIME_SHAPES);
	o.since = "";
	fails(&o, "--since: '' is not a time " TIME_SHAPES);
	o.since = NULL;
	o.until = "2025-11-01T22:24:01 junk";
	fails(&o, "--until: '2025-11-01T22:24:01 junk' is not a time " TIME_SHAPES);

	ck_assert_int_eq(lbt_filter_time_parse("--now", "2025-11-01T22:24:01Z", 0, &us, &err), 0);
	ck_assert(us == T0 * S);
	ck_assert_int_eq(lbt_filter_time_parse("--now", "12:00", 0, &us, &err), -1);
	ck_assert_str_eq(err.msg, "--now: '12:00' is not a time " TIME_SHAPES);
}
END_TEST

/* A record with a status. */
static lbt_rec rec_status(int32_t st)
{
	lbt_rec r;

	lbt_rec_clear(&r);
	r.status = st;
	r.have = LBT_BIT(LBT_F_STATUS);
	return r;
}

START_TEST(status_list)
{
	lbt_filter_opts o = LBT_FILTER_OPTS_INIT;
	lbt_err err;
	lbt_filter *f;
	lbt_rec r;
	static const struct { int32_t st; int pass; } cases[] = {
		{ 429, 1 }, { 428, 0 }, { 500, 1 }, { 503, 1 }, { 599, 1 }, { 499, 0 },
		{ -1, 1 }, { 0, 0 }, { 200, 0 }, { 600, 0 }, { -2, 0 }, { 100000, 0 },
	};

	o.status = "429,5xx,-1";
	f = lbt_filter_new(&o, 0, &err);
	ck_assert_ptr_nonnull(f);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		r = rec_status(cases[i].st);
		ck_assert_msg(lbt_filter_match(f, &r) == cases[i].pass, "status %d", cases[i].st);
	}
	lbt_rec_clear(&r);
	ck_assert(!lbt_filter_match(f, &r));
	ck_assert_uint_eq(lbt_filter_fields(f), LBT_BIT(LBT_F_STATUS));
	lbt_filter_free(f);

	o.status = "2XX";
	f = lbt_filter_new(&o, 0, &err);
	ck_assert_ptr_nonnull(f);
	r = rec_status(204);
	ck_assert(lbt_filter_match(f, &r));
	lbt_filter_free(f);
}
END_TEST

#define STATUS_RULE "is not a status or class (100..599, 1xx..5xx, -1)"

START_TEST(status_errors)
{
	lbt_filter_opts o = LBT_FILTER_OPTS_INIT;

	o.status = "6xx";
	fails(&o, "--status: '6xx' " STATUS_RULE);
	o.status = "429,600";
	fails(&o, "--status: '600' " STATUS_RULE);
	o.status = "99";
	fails(&o, "--status: '99' " STATUS_RULE);
	o.status = "-2";
	fails(&o, "--status: '-2' " STATUS_RULE);
	o.status = "+200";
	fails(&o, "--status: '+200' " STATUS_RULE);
	o.status = "5x";
	fails(&o, "--status: '5x' " STATUS_RULE);
	o.status = "429,";
	fails(&o, "--status: empty item in '429,'");
	o.status = "";
	fails(&o, "--status: empty item in ''");
}
END_TEST

/* A record with a client address (must parse). */
static lbt_rec rec_client(const char *a)
{
	lbt_rec r;

	lbt_rec_clear(&r);
	ck_assert_int_eq(lbt_addr_parse(a, strlen(a), &r.client), 0);
	r.have = LBT_BIT(LBT_F_CLIENT);
	return r;
}

START_TEST(src_list)
{
	lbt_filter_opts o = LBT_FILTER_OPTS_INIT;
	lbt_err err;
	lbt_filter *f;
	lbt_rec r;
	static const struct { const char *a; int pass; } cases[] = {
		{ "203.0.113.7", 1 }, { "203.0.113.255", 1 }, { "203.0.114.1", 0 },
		{ "198.51.100.23", 1 }, { "198.51.100.24", 0 },
		{ "2001:db8::1", 1 }, { "2001:db8::ffff:1", 1 }, { "2001:db8:0:1::1", 0 },
		{ "::ffff:203.0.113.9", 1 },      /* IPv4-mapped is IPv4 */
	};

	o.src = "203.0.113.0/24,198.51.100.23,2001:db8::/64";
	f = lbt_filter_new(&o, 0, &err);
	ck_assert_ptr_nonnull(f);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		r = rec_client(cases[i].a);
		ck_assert_msg(lbt_filter_match(f, &r) == cases[i].pass, "%s", cases[i].a);
	}
	lbt_rec_clear(&r);
	ck_assert(!lbt_filter_match(f, &r));
	ck_assert_uint_eq(lbt_filter_fields(f), LBT_BIT(LBT_F_CLIENT));
	lbt_filter_free(f);

	o.src = "203.0.113.0/33";
	fails(&o, "--src: '203.0.113.0/33' is not an address or network "
	    "(203.0.113.7, 198.51.100.0/24, 2001:db8::/64)");
	o.src = "lb1";
	fails(&o, "--src: 'lb1' is not an address or network "
	    "(203.0.113.7, 198.51.100.0/24, 2001:db8::/64)");
}
END_TEST

/* A record with a termination state. */
static lbt_rec rec_term(const char *t)
{
	lbt_rec r;

	lbt_rec_clear(&r);
	r.term = lbt_str_make(t, strlen(t));
	r.have = LBT_BIT(LBT_F_TERM);
	return r;
}

START_TEST(term_list)
{
	lbt_filter_opts o = LBT_FILTER_OPTS_INIT;
	lbt_err err;
	lbt_filter *f;
	lbt_rec r;

	o.term = "PT,sQ,----";
	f = lbt_filter_new(&o, 0, &err);
	ck_assert_ptr_nonnull(f);
	r = rec_term("PT--");
	ck_assert(lbt_filter_match(f, &r));
	r = rec_term("sQ");
	ck_assert(lbt_filter_match(f, &r));
	r = rec_term("----");
	ck_assert(lbt_filter_match(f, &r));
	r = rec_term("PR--");
	ck_assert(!lbt_filter_match(f, &r));
	r = rec_term("P");                    /* shorter than the prefix */
	ck_assert(!lbt_filter_match(f, &r));
	r = rec_term("SQ--");                 /* case matters: S is not s */
	ck_assert(!lbt_filter_match(f, &r));
	lbt_filter_free(f);

	o.term = "PR---";
	fails(&o, "--term: 'PR---' is not a termination-state prefix "
	    "(1 to 4 characters such as PT, sQ, PR--)");
	o.term = "P T";
	fails(&o, "--term: 'P T' is not a termination-state prefix "
	    "(1 to 4 characters such as PT, sQ, PR--)");
	o.term = "PT,,sQ";
	fails(&o, "--term: empty item in 'PT,,sQ'");
}
END_TEST

START_TEST(key_and_lb)
{
	lbt_filter_opts o = LBT_FILTER_OPTS_INIT;
	lbt_err err;
	lbt_filter *f;
	lbt_rec r;

	o.key = "5BF66975-D4C7-4BF5-BCC8-B8D8A82EA278,abcdefghijklmnopqrstuv/Db";
	o.lb = "lb1,lb2";
	f = lbt_filter_new(&o, 0, &err);
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(lbt_filter_fields(f), LBT_BIT(LBT_F_KEY) | LBT_BIT(LBT_F_LB));
	lbt_rec_clear(&r);
	r.have = LBT_BIT(LBT_F_KEY) | LBT_BIT(LBT_F_LB);
	r.lb = lbt_str_make("lb2", 3);
	r.key = lbt_str_make("5bf66975-d4c7-4bf5-bcc8-b8d8a82ea278", 36);
	ck_assert(lbt_filter_match(f, &r));           /* a UUID matches in any case */
	r.key = lbt_str_make("abcdefghijklmnopqrstuv/Db", 25);
	ck_assert(lbt_filter_match(f, &r));
	r.key = lbt_str_make("abcdefghijklmnopqrstuv/db", 25);
	ck_assert(!lbt_filter_match(f, &r));          /* other keys are exact */
	r.key = lbt_str_make("abcdefghijklmnopqrstuv/D", 24);
	ck_assert(!lbt_filter_match(f, &r));
	r.key = lbt_str_make("abcdefghijklmnopqrstuv/Db", 25);
	r.lb = lbt_str_make("lb", 2);
	ck_assert(!lbt_filter_match(f, &r));
	r.have = LBT_BIT(LBT_F_KEY);                  /* no lb at all */
	ck_assert(!lbt_filter_match(f, &r));
	lbt_filter_free(f);
}
END_TEST

START_TEST(empty_filter)
{
	lbt_filter_opts o = LBT_FILTER_OPTS_INIT;
	lbt_err err;
	lbt_filter *f = lbt_filter_new(&o, 0, &err);
	lbt_rec r;
	int64_t a, b;

	ck_assert_ptr_nonnull(f);
	ck_assert(lbt_filter_is_empty(f));
	ck_assert_uint_eq(lbt_filter_fields(f), 0);
	lbt_rec_clear(&r);
	ck_assert(lbt_filter_match(f, &r));
	lbt_filter_bounds(f, &a, &b);
	ck_assert(a == INT64_MIN && b == INT64_MAX);
	lbt_filter_free(f);
	lbt_filter_free(NULL);
}
END_TEST

/* Every option at once: a record must pass all of them. */
START_TEST(all_options)
{
	lbt_filter_opts o = LBT_FILTER_OPTS_INIT;
	lbt_err err;
	lbt_filter *f;
	lbt_rec r;

	o.since = "-1h";
	o.status = "5xx";
	o.term = "PT";
	o.src = "198.51.100.0/24";
	f = lbt_filter_new(&o, T0 * S, &err);
	ck_assert_ptr_nonnull(f);
	ck_assert(!lbt_filter_is_empty(f));
	r = rec_client("198.51.100.66");
	r.have |= LBT_BIT(LBT_F_TIME) | LBT_BIT(LBT_F_STATUS) | LBT_BIT(LBT_F_TERM);
	r.time_us = (T0 - 60) * S;
	r.status = 500;
	r.term = lbt_str_make("PT--", 4);
	ck_assert(lbt_filter_match(f, &r));
	r.status = 403;
	ck_assert(!lbt_filter_match(f, &r));
	r.status = 500;
	r.time_us = (T0 - 3601) * S;
	ck_assert(!lbt_filter_match(f, &r));
	lbt_filter_free(f);
}
END_TEST

/* Build the suite. */
static Suite *filter_suite(void)
{
	Suite *s = suite_create("filter");
	TCase *tc = tcase_create("filter");

	tcase_add_test(tc, time_shapes);
	tcase_add_test(tc, time_window);
	tcase_add_test(tc, time_of_day);
	tcase_add_test(tc, time_of_day_nearest);
	tcase_add_test(tc, time_errors);
	tcase_add_test(tc, status_list);
	tcase_add_test(tc, status_errors);
	tcase_add_test(tc, src_list);
	tcase_add_test(tc, term_list);
	tcase_add_test(tc, key_and_lb);
	tcase_add_test(tc, empty_filter);
	tcase_add_test(tc, all_options);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite; exit status 0 when every test passed. */
int main(void)
{
	SRunner *sr = srunner_create(filter_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
