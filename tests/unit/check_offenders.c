/*
 * check_offenders.c - unit tests for lib/offenders.c on hand-built records.
 *
 * The flood (seconds s = 0..39 from T0 = 23:24:01Z, records in time order,
 * in each second: A, D1, B, D2; line numbers count from 1 in "a.log"):
 *   A  = 203.0.113.7        1/s for s < 20 (200, key KA), then 20/s (429, KA)
 *   D1 = 203.0.113.8        1/s throughout (200, KB)   -- same /24 as A
 *   B  = 2001:db8:bad:1::N  10/s from s = 20, N = 1..10 within each second,
 *                           PT-- with Tw 1500 ms, status 500, key KA
 *   D2 = 2001:db8:bad:2::5  1/s throughout (200, KB)   -- same /48 as B
 * By hand: requests A 20 + 400 = 420, B 200, D1 40, D2 40, total 700.
 * Total rate 3/s then 32/s: baseline median 3, threshold 15, jump at s=20,
 * so the baseline window is s = 0..19 and the comparison s = 20..39.
 * A: base 1/s, now 20/s, ratio 20; B: new; D1, D2: ratio 1.
 * Peaks: A 20 at s=20, reached by its 20th record there: lines 1..60 are
 * s < 20 (3 a second), A's s=20 records are lines 61..80 -> a.log:80.
 * B: after D1's line 81, lines 82..91 -> a.log:91.  D1: line 2.  D2: line 3.
 * B holds 200 x 1.5 s = 300 s of tarpit, from 10 distinct addresses.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/offenders.h"

#define SEC 1000000LL
#define T0 1762039441LL
#define KA "aaaaaaaa-0000-4000-8000-000000000001"
#define KB "bbbbbbbb-0000-4000-8000-000000000002"

/* A full record. */
static lbt_rec mk(int64_t t_us, const char *addr, int32_t status, const char *term,
    int32_t tw, const char *key, uint64_t line)
{
	lbt_rec r;

	lbt_rec_clear(&r);
	r.have = LBT_BIT(LBT_F_TIME) | LBT_BIT(LBT_F_CLIENT) | LBT_BIT(LBT_F_STATUS) |
	    LBT_BIT(LBT_F_TERM) | LBT_BIT(LBT_F_TW) | LBT_BIT(LBT_F_KEY) |
	    LBT_BIT(LBT_F_FILE) | LBT_BIT(LBT_F_LINE);
	r.time_us = t_us;
	ck_assert_int_eq(lbt_addr_parse(addr, strlen(addr), &r.client), 0);
	r.status = status;
	r.term = lbt_str_make(term, strlen(term));
	r.tw = tw;
	r.key = lbt_str_make(key, strlen(key));
	r.file = "a.log";
	r.line = line;
	return r;
}

/* Feed the flood described above. */
static void flood(lbt_offenders *o)
{
	uint64_t line = 0;
	char addr[64];

	for (int s = 0; s < 40; s++) {
		int64_t t = (T0 + s) * SEC;
		lbt_rec r;

		for (int i = 0; i < (s < 20 ? 1 : 20); i++) {
			r = mk(t + i * 1000, "203.0.113.7", s < 20 ? 200 : 429, "----", 0, KA, ++line);
			lbt_offenders_add(o, &r);
		}
		r = mk(t + 100000, "203.0.113.8", 200, "----", 0, KB, ++line);
		lbt_offenders_add(o, &r);
		for (int i = 0; s >= 20 && i < 10; i++) {
			snprintf(addr, sizeof addr, "2001:db8:bad:1::%d", i + 1);
			r = mk(t + 200000 + i, addr, 500, "PT--", 1500, KA, ++line);
			lbt_offenders_add(o, &r);
		}
		r = mk(t + 300000, "2001:db8:bad:2::5", 200, "----", 0, KB, ++line);
		lbt_offenders_add(o, &r);
	}
}

/* The flood with options op, finished. */
static lbt_offenders *run(const lbt_offenders_opts *op)
{
	lbt_err err;
	lbt_offenders *o = lbt_offenders_new(op, &err);

	ck_assert_msg(o != NULL, "%s", err.msg);
	flood(o);
	ck_assert_int_eq(lbt_offenders_finish(o, &err), 0);
	return o;
}

/* Default ranking by requests, every column of the two offenders. */
START_TEST(by_requests)
{
	lbt_offenders_opts op = LBT_OFFENDERS_OPTS_INIT;
	lbt_offenders *o = run(&op);
	const lbt_offenders_stats *st = lbt_offenders_stats_get(o);
	const lbt_offender *a, *b;
	char buf[256];

	ck_assert_uint_eq(st->counted, 700);
	ck_assert_uint_eq(st->sources, 4);
	ck_assert_int_eq(st->baseline, 1);
	ck_assert_int_eq(st->base_from_us, T0 * SEC);
	ck_assert_int_eq(st->base_to_us, (T0 + 20) * SEC);
	ck_assert_int_eq(st->cur_to_us, (T0 + 40) * SEC);
	ck_assert_uint_eq(lbt_offenders_nrows(o), 4);
	a = lbt_offenders_row(o, 0);
	ck_assert_str_eq(a->source, "203.0.113.7");
	ck_assert_uint_eq(a->requests, 420);
	ck_assert_double_eq_tol(a->share, 60, 1e-9);
	ck_assert_int_eq(a->peak_count, 20);
	ck_assert_int_eq(a->peak_second, T0 + 20);
	ck_assert_uint_eq(a->addrs, 1);
	ck_assert_int_eq(a->nkeys, 1);
	ck_assert_str_eq(lbt_offender_keys_str(a, buf, sizeof buf), KA ":420");
	ck_assert_str_eq(lbt_offender_status_str(a, buf, sizeof buf), "2xx:20 429:400");
	ck_assert_uint_eq(a->tarpitted, 0);
	ck_assert_int_eq(a->first_us, T0 * SEC);
	ck_assert_int_eq(a->last_us, (T0 + 39) * SEC + 19000);
	ck_assert_int_eq(a->has_ratio, 1);
	ck_assert_int_eq(a->is_new, 0);
	ck_assert_double_eq(a->base_rate, 1);
	ck_assert_double_eq(a->cur_rate, 20);
	ck_assert_double_eq(a->ratio, 20);
	ck_assert_str_eq(a->ev_file, "a.log");
	ck_assert_uint_eq(a->ev_line, 80);
	b = lbt_offenders_row(o, 1);
	ck_assert_str_eq(b->source, "2001:db8:bad:1::/64");
	ck_assert_uint_eq(b->requests, 200);
	ck_assert_double_eq_tol(b->share, 200.0 * 100 / 700, 1e-9);
	ck_assert_int_eq(b->peak_count, 10);
	ck_assert_uint_eq(b->addrs, 10);
	ck_assert_uint_eq(b->tarpitted, 200);
	ck_assert_double_eq(b->held_s, 300);
	ck_assert_str_eq(lbt_offender_status_str(b, buf, sizeof buf), "5xx:200");
	ck_assert_int_eq(b->is_new, 1);
	ck_assert_uint_eq(b->ev_line, 91);
	/* the decoys stay apart: v4 sorts before v6 on equal requests */
	ck_assert_str_eq(lbt_offenders_row(o, 2)->source, "203.0.113.8");
	ck_assert_uint_eq(lbt_offenders_row(o, 2)->requests, 40);
	ck_assert_uint_eq(lbt_offenders_row(o, 2)->ev_line, 2);
	ck_assert_double_eq(lbt_offenders_row(o, 2)->ratio, 1);
	ck_assert_str_eq(lbt_offenders_row(o, 3)->source, "2001:db8:bad:2::/64");
	ck_assert_uint_eq(lbt_offenders_row(o, 3)->ev_line, 3);
	ck_assert_ptr_null(lbt_offenders_row(o, 4));
	lbt_offenders_free(o);
}
END_TEST

/* The other rankings. */
START_TEST(rankings)
{
	static const struct {
		lbt_off_by by;
		const char *order[4];
	} cases[] = {
		{ LBT_OFF_BY_RATE, { "203.0.113.7", "2001:db8:bad:1::/64", "203.0.113.8",
		    "2001:db8:bad:2::/64" } },
		{ LBT_OFF_BY_HELD, { "2001:db8:bad:1::/64", "203.0.113.7", "203.0.113.8",
		    "2001:db8:bad:2::/64" } },
		{ LBT_OFF_BY_RATIO, { "2001:db8:bad:1::/64", "203.0.113.7", "203.0.113.8",
		    "2001:db8:bad:2::/64" } },
	};

	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		lbt_offenders_opts op = LBT_OFFENDERS_OPTS_INIT;
		lbt_offenders *o;

		op.by = cases[c].by;
		o = run(&op);
		for (size_t i = 0; i < 4; i++)
			ck_assert_str_eq(lbt_offenders_row(o, i)->source, cases[c].order[i]);
		lbt_offenders_free(o);
	}
}
END_TEST

/* --min-rate 5, --min-share 10, --top 1. */
START_TEST(thresholds)
{
	lbt_offenders_opts op = LBT_OFFENDERS_OPTS_INIT;
	lbt_offenders *o;

	op.min_rate = 5;
	o = run(&op);
	ck_assert_uint_eq(lbt_offenders_nrows(o), 2);
	ck_assert_uint_eq(lbt_offenders_stats_get(o)->kept, 2);
	lbt_offenders_free(o);
	op.min_rate = 0;
	op.min_share = 28.6;          /* B has 28.57 % */
	o = run(&op);
	ck_assert_uint_eq(lbt_offenders_nrows(o), 1);
	lbt_offenders_free(o);
	op.min_share = 0;
	op.top = 1;
	o = run(&op);
	ck_assert_uint_eq(lbt_offenders_nrows(o), 1);
	ck_assert_str_eq(lbt_offenders_row(o, 0)->source, "203.0.113.7");
	ck_assert_uint_eq(lbt_offenders_stats_get(o)->kept, 4);
	lbt_offenders_free(o);
}
END_TEST

/* --baseline 23:24:01..23:24:11 (and the same in ISO 8601): base s=0..9,
 * comparison s=10..39 (30 s).  A: base 10/10 = 1/s, now (10 + 400)/30. */
START_TEST(explicit_baseline)
{
	static const char *specs[] = { "23:24:01..23:24:11",
		"2025-11-01T23:24:01Z..2025-11-01T23:24:11Z" };

	for (int k = 0; k < 2; k++) {
		lbt_offenders_opts op = LBT_OFFENDERS_OPTS_INIT;
		lbt_offenders *o;
		const lbt_offender *a;

		op.baseline = specs[k];
		o = run(&op);
		ck_assert_int_eq(lbt_offenders_stats_get(o)->baseline, 2);
		ck_assert_int_eq(lbt_offenders_stats_get(o)->cur_from_us, (T0 + 10) * SEC);
		a = lbt_offenders_row(o, 0);
		ck_assert_double_eq(a->base_rate, 1);
		ck_assert_double_eq_tol(a->cur_rate, 410.0 / 30, 1e-9);
		ck_assert_double_eq_tol(a->ratio, 410.0 / 30, 1e-9);
		ck_assert_int_eq(lbt_offenders_row(o, 1)->is_new, 1);
		lbt_offenders_free(o);
	}
}
END_TEST

/* Bad --baseline and thresholds are refused with the option's name. */
START_TEST(bad_opts)
{
	static const char *bad[] = { "x", "23:24", "23:24..", "..23:24", "25:00..26:00",
		"2025-11-01T23:24:11Z..2025-11-01T23:24:01Z" };
	lbt_offenders_opts op = LBT_OFFENDERS_OPTS_INIT;
	lbt_err err;
	lbt_off_by by;

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		op.baseline = bad[i];
		ck_assert_msg(lbt_offenders_new(&op, &err) == NULL, "accepted %s", bad[i]);
		ck_assert_ptr_nonnull(strstr(err.msg, "--baseline"));
	}
	op.baseline = NULL;
	op.min_share = 101;
	ck_assert_ptr_null(lbt_offenders_new(&op, &err));
	ck_assert_ptr_nonnull(strstr(err.msg, "--min-share"));
	op.min_share = 0;
	op.min_rate = -1;
	ck_assert_ptr_null(lbt_offenders_new(&op, &err));
	ck_assert_int_eq(lbt_off_by_parse("held", &by, &err), 0);
	ck_assert_int_eq(by, LBT_OFF_BY_HELD);
	ck_assert_int_eq(lbt_off_by_parse("bytes", &by, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "'bytes'"));
	lbt_offenders_free(NULL);
}
END_TEST

/* Flat traffic: no jump, so no baseline and no ratio. */
START_TEST(no_jump)
{
	lbt_offenders_opts op = LBT_OFFENDERS_OPTS_INIT;
	lbt_err err;
	lbt_offenders *o = lbt_offenders_new(&op, &err);

	for (int s = 0; s < 60; s++) {
		lbt_rec r = mk((T0 + s) * SEC, "198.51.100.1", 200, "----", 0, KA, (uint64_t)s + 1);

		lbt_offenders_add(o, &r);
	}
	lbt_offenders_finish(o, &err);
	ck_assert_int_eq(lbt_offenders_stats_get(o)->baseline, 0);
	ck_assert_int_eq(lbt_offenders_row(o, 0)->has_ratio, 0);
	ck_assert_uint_eq(lbt_offenders_row(o, 0)->ev_line, 1);
	lbt_offenders_free(o);
}
END_TEST

/* Space-saving keys: k1 x5, k2 k3 k4 once, then k5 x4: k5 takes k2's
 * counter (count 1 + 4 = 5, an upper bound), ties go to the older key. */
START_TEST(top_keys)
{
	static const char *seq[] = { "k1", "k1", "k1", "k1", "k1", "k2", "k3", "k4",
		"k5", "k5", "k5", "k5" };
	lbt_offenders_opts op = LBT_OFFENDERS_OPTS_INIT;
	lbt_err err;
	lbt_offenders *o = lbt_offenders_new(&op, &err);
	char buf[256];

	for (int i = 0; i < 12; i++) {
		lbt_rec r = mk(T0 * SEC + i, "198.51.100.1", 200, "----", 0, seq[i], 1);

		lbt_offenders_add(o, &r);
	}
	/* a record without key falls back to its path */
	lbt_rec r = mk(T0 * SEC, "198.51.100.2", 200, "----", 0, "", 1);

	r.have &= ~LBT_BIT(LBT_F_KEY);
	r.have |= LBT_BIT(LBT_F_PATH);
	r.path = lbt_str_make("/wp-login.php", 13);
	lbt_offenders_add(o, &r);
	lbt_offenders_finish(o, &err);
	ck_assert_str_eq(lbt_offender_keys_str(lbt_offenders_row(o, 0), buf, sizeof buf),
	    "k1:5 k5:~5 k3:1");
	ck_assert_str_eq(lbt_offender_keys_str(lbt_offenders_row(o, 1), buf, sizeof buf),
	    "/wp-login.php:1");
	lbt_offenders_free(o);
}
END_TEST

/* Distinct addresses: exact under the cap, capped above; "::" counts. */
START_TEST(addr_cap)
{
	lbt_offenders_opts op = LBT_OFFENDERS_OPTS_INIT;
	lbt_err err;
	lbt_offenders *o;
	char addr[64];

	op.addr_cap = 4;
	o = lbt_offenders_new(&op, &err);
	for (int i = 0; i < 12; i++) {
		snprintf(addr, sizeof addr, "2001:db8:bad:1::%x", i % 6 + 1);
		lbt_rec r = mk(T0 * SEC, addr, 200, "----", 0, KA, 1);

		lbt_offenders_add(o, &r);
	}
	for (int i = 0; i < 3; i++) {
		lbt_rec r = mk(T0 * SEC, i ? "::1" : "::", 200, "----", 0, KA, 1);

		lbt_offenders_add(o, &r);
	}
	lbt_offenders_finish(o, &err);
	ck_assert_str_eq(lbt_offenders_row(o, 0)->source, "2001:db8:bad:1::/64");
	ck_assert_uint_eq(lbt_offenders_row(o, 0)->addrs, 4);
	ck_assert_int_eq(lbt_offenders_row(o, 0)->addrs_capped, 1);
	ck_assert_str_eq(lbt_offenders_row(o, 1)->source, "::/64");
	ck_assert_uint_eq(lbt_offenders_row(o, 1)->addrs, 2);
	ck_assert_int_eq(lbt_offenders_row(o, 1)->addrs_capped, 0);
	lbt_offenders_free(o);
}
END_TEST

/* Other prefixes merge the decoys: /24 and /48. */
START_TEST(prefixes)
{
	lbt_offenders_opts op = LBT_OFFENDERS_OPTS_INIT;
	lbt_offenders *o;

	op.net.v4_bits = 24;
	op.net.v6_bits = 48;
	o = run(&op);
	ck_assert_uint_eq(lbt_offenders_nrows(o), 2);
	ck_assert_str_eq(lbt_offenders_row(o, 0)->source, "203.0.113.0/24");
	ck_assert_uint_eq(lbt_offenders_row(o, 0)->requests, 460);
	ck_assert_uint_eq(lbt_offenders_row(o, 0)->addrs, 2);
	ck_assert_str_eq(lbt_offenders_row(o, 1)->source, "2001:db8:bad::/48");
	ck_assert_uint_eq(lbt_offenders_row(o, 1)->requests, 240);
	ck_assert_uint_eq(lbt_offenders_row(o, 1)->addrs, 11);
	lbt_offenders_free(o);
}
END_TEST

/* Records without time or client are counted apart. */
START_TEST(missing)
{
	lbt_offenders_opts op = LBT_OFFENDERS_OPTS_INIT;
	lbt_err err;
	lbt_offenders *o = lbt_offenders_new(&op, &err);
	lbt_rec r = mk(T0 * SEC, "198.51.100.1", 200, "----", 0, KA, 1);

	r.have &= ~LBT_BIT(LBT_F_TIME);
	lbt_offenders_add(o, &r);
	r.have |= LBT_BIT(LBT_F_TIME);
	r.have &= ~LBT_BIT(LBT_F_CLIENT);
	lbt_offenders_add(o, &r);
	ck_assert_int_eq(lbt_offenders_finish(o, &err), 0);
	ck_assert_uint_eq(lbt_offenders_stats_get(o)->no_time, 1);
	ck_assert_uint_eq(lbt_offenders_stats_get(o)->no_client, 1);
	ck_assert_uint_eq(lbt_offenders_nrows(o), 0);
	ck_assert(lbt_offenders_fields() & LBT_BIT(LBT_F_TW));
	lbt_offenders_free(o);
}
END_TEST

/* GeoIP columns come from the test databases. */
START_TEST(geoip)
{
	static const char *const files[] = { LBT_TEST_DATA "/geoip/lbt-test-country.mmdb",
		LBT_TEST_DATA "/geoip/lbt-test-asn.mmdb" };
	lbt_offenders_opts op = LBT_OFFENDERS_OPTS_INIT;
	lbt_err err;
	lbt_offenders *o;

	op.geoip = lbt_geoip_open(files, 2, NULL, &err);
	ck_assert_ptr_nonnull(op.geoip);
	o = run(&op);
	ck_assert_str_eq(lbt_offenders_row(o, 0)->geo.country, "XA");
	ck_assert_uint_eq(lbt_offenders_row(o, 0)->geo.asn, 64496);
	ck_assert_str_eq(lbt_offenders_row(o, 1)->geo.country, "XB");
	ck_assert_uint_eq(lbt_offenders_row(o, 1)->geo.asn, 64500);
	ck_assert_str_eq(lbt_offenders_row(o, 1)->geo.org, "Example Net");
	lbt_offenders_free(o);
	lbt_geoip_free(op.geoip);
}
END_TEST

/* The offenders suite. */
static Suite *offenders_suite(void)
{
	Suite *s = suite_create("offenders");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, by_requests);
	tcase_add_test(tc, rankings);
	tcase_add_test(tc, thresholds);
	tcase_add_test(tc, explicit_baseline);
	tcase_add_test(tc, bad_opts);
	tcase_add_test(tc, no_jump);
	tcase_add_test(tc, top_keys);
	tcase_add_test(tc, addr_cap);
	tcase_add_test(tc, prefixes);
	tcase_add_test(tc, missing);
	tcase_add_test(tc, geoip);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(offenders_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
