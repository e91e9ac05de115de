/*
 * check_offenders.c - unit tests for lib/analysis/offenders.c on hand-built records.
 *
 * The flood (seconds s = 0..39 from T0 = 23:24:01Z, records in time order,
 * in each second: A, D1, B, D2; line numbers count from 1 in "a.log"):
 *   A  = 203.0.113.7        1/s for s < 20 (200, key KA), then 20/s (429, KA)
 *   D1 = 203.0.113.8        1/s throughout (200, KB)   -- same /24 as A
 *   B  = 2001:db8:bad:1::N  10/s from s = 20, N = 1..10 within each second,
 *                           PT-- with Tw 1500 ms, status 500, key KA
 *   D2 = 2001:db8:bad:2::5  1/s throughout (200, KB)   -- same /48 as B
 * By hand: requests A 20 + 400 = 420, B 200, D1 40, D2 40, total 700.
 * Each source's own change points (changepoint.h, over the input's span
 * s = 0..39): A's baseline is its 20 requests before the change over 20 s
 * = 1/s, then a rise from s = 20 at 20/s to the end (ongoing), ratio 20;
 * B is new (absent for 20 s at a rate that would have shown 200), first
 * seen at s = 20, a rise at 10/s, no ratio; D1, D2: baseline 1/s, no
 * episode, no ratio.  (The old single window before the jump of the total
 * gave D1 and D2 a ratio of 1: the ratio of a source that did not change.)
 * Peaks: A 20 at s=20, B 10 at s=20, D1 and D2 1 at s=0 (the earliest).
 * Evidence, each source's first request: A line 1, D1 line 2, D2 line 3;
 * B's first is at s=20, after the 60 lines of s < 20 (3 a second), A's 20
 * there (61..80) and D1's (81): a.log:82.
 * B holds 200 x 1.5 s = 300 s of tarpit, from 10 distinct addresses.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/offenders.h"
#include "lbt/offenders_report.h"

#define SEC 1000000LL
#define T0 1762039441LL
#define KA "aaaaaaaa-0000-4000-8000-000000000001"
#define KB "bbbbbbbb-0000-4000-8000-000000000002"
#define KC "cccccccc-0000-4000-8000-000000000003"

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

#define NFLOOD 700

/* The flood described above into v[0..NFLOOD), in time order (line i + 1
 * is v[i]).  @return the number of records, NFLOOD. */
static size_t flood_recs(lbt_rec *v)
{
	size_t n = 0;
	char addr[64];

	for (int s = 0; s < 40; s++) {
		int64_t t = (T0 + s) * SEC;

		for (int i = 0; i < (s < 20 ? 1 : 20); i++, n++)
			v[n] = mk(t + i * 1000, "203.0.113.7", s < 20 ? 200 : 429, "----", 0, KA,
			    n + 1);
		v[n] = mk(t + 100000, "203.0.113.8", 200, "----", 0, KB, n + 1), n++;
		for (int i = 0; s >= 20 && i < 10; i++, n++) {
			snprintf(addr, sizeof addr, "2001:db8:bad:1::%d", i + 1);
			v[n] = mk(t + 200000 + i, addr, 500, "PT--", 1500, KA, n + 1);
		}
		v[n] = mk(t + 300000, "2001:db8:bad:2::5", 200, "----", 0, KB, n + 1), n++;
	}
	ck_assert_uint_eq(n, NFLOOD);
	return n;
}

/* Feed the flood described above, in time order. */
static void flood(lbt_offenders *o)
{
	lbt_rec *v = malloc(NFLOOD * sizeof *v);
	size_t n;

	ck_assert_ptr_nonnull(v);
	n = flood_recs(v);
	for (size_t i = 0; i < n; i++)
		lbt_offenders_add(o, &v[i]);
	free(v);
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
	ck_assert_uint_eq(st->changes, 4);
	ck_assert_uint_eq(lbt_offenders_nrows(o), 4);
	a = lbt_offenders_row_at(o, 0);
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
	ck_assert_int_eq(a->cp.is_new, 0);
	ck_assert_double_eq(a->cp.baseline, 1);
	ck_assert_uint_eq(a->cp.episodes, 1);
	ck_assert_int_eq(a->cp.has_main, 1);
	ck_assert_int_eq(a->cp.start, T0 + 20);
	ck_assert_int_eq(a->cp.ongoing, 1);
	ck_assert_double_eq(a->cp.mean_rate, 20);
	ck_assert_int_eq(a->cp.has_ratio, 1);
	ck_assert_double_eq(a->cp.ratio, 20);
	ck_assert_str_eq(a->ev_file, "a.log");
	ck_assert_uint_eq(a->ev_line, 1);
	b = lbt_offenders_row_at(o, 1);
	ck_assert_str_eq(b->source, "2001:db8:bad:1::/64");
	ck_assert_uint_eq(b->requests, 200);
	ck_assert_double_eq_tol(b->share, 200.0 * 100 / 700, 1e-9);
	ck_assert_int_eq(b->peak_count, 10);
	ck_assert_uint_eq(b->addrs, 10);
	ck_assert_uint_eq(b->tarpitted, 200);
	ck_assert_double_eq(b->held_s, 300);
	ck_assert_str_eq(lbt_offender_status_str(b, buf, sizeof buf), "5xx:200");
	ck_assert_int_eq(b->cp.is_new, 1);
	ck_assert_int_eq(b->cp.has_ratio, 0);
	ck_assert_int_eq(b->cp.start, T0 + 20);
	ck_assert_double_eq(b->cp.mean_rate, 10);
	ck_assert_uint_eq(b->ev_line, 82);
	/* the decoys stay apart: v4 sorts before v6 on equal requests */
	ck_assert_str_eq(lbt_offenders_row_at(o, 2)->source, "203.0.113.8");
	ck_assert_uint_eq(lbt_offenders_row_at(o, 2)->requests, 40);
	ck_assert_uint_eq(lbt_offenders_row_at(o, 2)->ev_line, 2);
	ck_assert_double_eq(lbt_offenders_row_at(o, 2)->cp.baseline, 1);
	ck_assert_int_eq(lbt_offenders_row_at(o, 2)->cp.has_main, 0);
	ck_assert_int_eq(lbt_offenders_row_at(o, 2)->cp.has_ratio, 0);
	ck_assert_str_eq(lbt_offenders_row_at(o, 3)->source, "2001:db8:bad:2::/64");
	ck_assert_uint_eq(lbt_offenders_row_at(o, 3)->ev_line, 3);
	ck_assert_ptr_null(lbt_offenders_row_at(o, 4));
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
			ck_assert_str_eq(lbt_offenders_row_at(o, i)->source, cases[c].order[i]);
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
	ck_assert_str_eq(lbt_offenders_row_at(o, 0)->source, "203.0.113.7");
	ck_assert_uint_eq(lbt_offenders_stats_get(o)->kept, 4);
	lbt_offenders_free(o);
}
END_TEST

/* --baseline 23:24:01..23:24:11 (and the same in ISO 8601): one window,
 * s = 0..9, for every source.  A: 10 requests there = 1/s, its rise at
 * 20/s from s = 20, ratio 20 (the old comparison window, s = 10..39, gave
 * (10 + 400) / 30 / 1 = 13.7: a mean over the flood and 10 s of calm);
 * B sent nothing there: new. */
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
		ck_assert_int_eq(lbt_offenders_stats_get(o)->base_from_us, T0 * SEC);
		ck_assert_int_eq(lbt_offenders_stats_get(o)->base_to_us, (T0 + 10) * SEC);
		a = lbt_offenders_row_at(o, 0);
		ck_assert_double_eq(a->cp.baseline, 1);
		ck_assert_int_eq(a->cp.start, T0 + 20);
		ck_assert_double_eq(a->cp.ratio, 20);
		ck_assert_int_eq(lbt_offenders_row_at(o, 1)->cp.is_new, 1);
		lbt_offenders_free(o);
	}
}
END_TEST

/* --by ratio runs the engine on the sources that can rise only: the
 * flood's four (D1 and D2 hold 10 requests in 10 s, floor x 10 s / 2) and
 * not 30 sources of one request; then once more on the 3 rows shown.
 * Those with a rise first (B new, A by ratio), then by requests. */
START_TEST(ratio_skips)
{
	lbt_offenders_opts op = LBT_OFFENDERS_OPTS_INIT;
	lbt_err err;
	lbt_offenders *o;
	char addr[64];

	op.by = LBT_OFF_BY_RATIO;
	op.top = 3;
	o = lbt_offenders_new(&op, &err);
	flood(o);
	for (int i = 0; i < 30; i++) {
		snprintf(addr, sizeof addr, "198.51.100.%d", i + 1);
		lbt_rec r = mk((T0 + 5) * SEC, addr, 200, "----", 0, KC, 1000 + (uint64_t)i);

		lbt_offenders_add(o, &r);
	}
	ck_assert_int_eq(lbt_offenders_finish(o, &err), 0);
	ck_assert_uint_eq(lbt_offenders_stats_get(o)->changes, 4 + 3);
	ck_assert_str_eq(lbt_offenders_row_at(o, 0)->source, "2001:db8:bad:1::/64");
	ck_assert_str_eq(lbt_offenders_row_at(o, 1)->source, "203.0.113.7");
	ck_assert_str_eq(lbt_offenders_row_at(o, 2)->source, "203.0.113.8");
	lbt_offenders_free(o);
}
END_TEST

/* A --baseline window that misses the input is an error, with the span. */
START_TEST(window_outside)
{
	lbt_offenders_opts op = LBT_OFFENDERS_OPTS_INIT;
	lbt_err err;
	lbt_offenders *o;

	op.baseline = "2025-11-01T22:00:00Z..2025-11-01T22:10:00Z";
	o = lbt_offenders_new(&op, &err);
	ck_assert_ptr_nonnull(o);
	flood(o);
	ck_assert_int_eq(lbt_offenders_finish(o, &err), -1);
	ck_assert_str_eq(err.msg, "--baseline: the window is outside the input "
	    "(2025-11-01T23:24:01.000Z .. 2025-11-01T23:24:41.000Z)");
	lbt_offenders_free(o);
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

/* Flat traffic: a baseline (1/s), no episode, so no ratio. */
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
	ck_assert_int_eq(lbt_offenders_stats_get(o)->baseline, 1);
	ck_assert_double_eq(lbt_offenders_row_at(o, 0)->cp.baseline, 1);
	ck_assert_int_eq(lbt_offenders_row_at(o, 0)->cp.has_main, 0);
	ck_assert_int_eq(lbt_offenders_row_at(o, 0)->cp.has_ratio, 0);
	ck_assert_uint_eq(lbt_offenders_row_at(o, 0)->ev_line, 1);
	lbt_offenders_free(o);
}
END_TEST

/* Space-saving keys: k1 x5, k2 k3 k4 once, then k5 x4: k5 takes k2's
 * counter (the first of the smallest; count 1 + 4 = 5, an upper bound).
 * Equal counts are listed in key order: k1 before k5, k3 before k4. */
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
	ck_assert_str_eq(lbt_offender_keys_str(lbt_offenders_row_at(o, 0), buf, sizeof buf),
	    "k1:5 k5:~5 k3:1");
	ck_assert_str_eq(lbt_offender_keys_str(lbt_offenders_row_at(o, 1), buf, sizeof buf),
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
	ck_assert_str_eq(lbt_offenders_row_at(o, 0)->source, "2001:db8:bad:1::/64");
	ck_assert_uint_eq(lbt_offenders_row_at(o, 0)->addrs, 4);
	ck_assert_int_eq(lbt_offenders_row_at(o, 0)->addrs_capped, 1);
	ck_assert_str_eq(lbt_offenders_row_at(o, 1)->source, "::/64");
	ck_assert_uint_eq(lbt_offenders_row_at(o, 1)->addrs, 2);
	ck_assert_int_eq(lbt_offenders_row_at(o, 1)->addrs_capped, 0);
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
	ck_assert_str_eq(lbt_offenders_row_at(o, 0)->source, "203.0.113.0/24");
	ck_assert_uint_eq(lbt_offenders_row_at(o, 0)->requests, 460);
	ck_assert_uint_eq(lbt_offenders_row_at(o, 0)->addrs, 2);
	ck_assert_str_eq(lbt_offenders_row_at(o, 1)->source, "2001:db8:bad::/48");
	ck_assert_uint_eq(lbt_offenders_row_at(o, 1)->requests, 240);
	ck_assert_uint_eq(lbt_offenders_row_at(o, 1)->addrs, 11);
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
	ck_assert(lbt_offenders_fields(o) & LBT_BIT(LBT_F_TW));
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
	ck_assert_str_eq(lbt_offenders_row_at(o, 0)->geo.country, "XA");
	ck_assert_uint_eq(lbt_offenders_row_at(o, 0)->geo.asn, 64496);
	ck_assert_str_eq(lbt_offenders_row_at(o, 1)->geo.country, "XB");
	ck_assert_uint_eq(lbt_offenders_row_at(o, 1)->geo.asn, 64500);
	ck_assert_str_eq(lbt_offenders_row_at(o, 1)->geo.org, "Example Net");
	lbt_offenders_free(o);
	lbt_geoip_free(op.geoip);
}
END_TEST

/* Every column of every row of a finished accumulator as text, to compare
 * two runs.  @return a malloc'd string. */
static char *rows_text(const lbt_offenders *o)
{
	char *buf = NULL, keys[512], st[256];
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(fp);
	for (size_t i = 0; i < lbt_offenders_nrows(o); i++) {
		const lbt_offender *r = lbt_offenders_row_at(o, i);

		fprintf(fp, "%s %llu %.9f %lld@%lld %llu/%d [%s] [%s] %llu %.3f %lld..%lld "
		    "%d%d%d %.9f %.9f %zu %lld..%lld %.9f %s:%llu\n", r->source,
		    (unsigned long long)r->requests,
		    r->share, (long long)r->peak_count, (long long)r->peak_second,
		    (unsigned long long)r->addrs, r->addrs_capped,
		    lbt_offender_keys_str(r, keys, sizeof keys),
		    lbt_offender_status_str(r, st, sizeof st), (unsigned long long)r->tarpitted,
		    r->held_s, (long long)r->first_us, (long long)r->last_us, r->cp.is_new,
		    r->cp.has_main, r->cp.has_ratio, r->cp.ratio, r->cp.baseline, r->cp.episodes,
		    (long long)r->cp.start, (long long)r->cp.end, r->cp.mean_rate,
		    r->ev_file ? r->ev_file : "-", (unsigned long long)r->ev_line);
	}
	ck_assert_int_eq(fclose(fp), 0);
	return buf;
}

/* Records v[perm[0]], v[perm[1]] ... v[perm[n-1]] through a new
 * accumulator with default options, top 0.  @return rows_text of it. */
static char *run_order(const lbt_rec *v, const size_t *perm, size_t n)
{
	lbt_offenders_opts op = LBT_OFFENDERS_OPTS_INIT;
	lbt_err err;
	lbt_offenders *o;
	char *text;

	op.top = 0;
	o = lbt_offenders_new(&op, &err);
	ck_assert_ptr_nonnull(o);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(lbt_offenders_add(o, &v[perm[i]]), 0);
	ck_assert_int_eq(lbt_offenders_finish(o, &err), 0);
	text = rows_text(o);
	lbt_offenders_free(o);
	return text;
}

/* perm[0..n) = 0..n-1, then shuffled (Fisher-Yates over a 64-bit LCG) when
 * seed is not 0, reversed when seed is 1. */
static void make_perm(size_t *perm, size_t n, uint64_t seed)
{
	for (size_t i = 0; i < n; i++)
		perm[i] = seed == 1 ? n - 1 - i : i;
	for (size_t i = n; seed > 1 && i > 1; i--) {
		size_t j, t;

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		j = (size_t)((seed >> 33) % i);
		t = perm[i - 1], perm[i - 1] = perm[j], perm[j] = t;
	}
}

/*
 * The flood read in other orders gives the same rows, evidence included:
 * reversed, and shuffled with three seeds.  Then the same records split
 * into two files, as "a.log" (records 0, 2, 4 ... of the time order, lines
 * 1, 2, 3 ...) and "b.log" (records 1, 3, 5 ..., lines 1, 2, 3 ...), read
 * b.log first then a.log (the order of a command line "b.log a.log"), a.log
 * then b.log, and shuffled: the same rows again, and by hand the first
 * requests are A record 0 = a.log:1, D1 record 1 = b.log:1, D2 record 2 =
 * a.log:2, B record 81 = b.log:41.
 */
START_TEST(order_flood)
{
	lbt_rec *v = malloc(NFLOOD * sizeof *v);
	size_t *perm = malloc(NFLOOD * sizeof *perm), n = flood_recs(v), k = 0;
	char *ref, *got;

	make_perm(perm, n, 0);
	ref = run_order(v, perm, n);
	ck_assert_ptr_nonnull(strstr(ref, "\n2001:db8:bad:1::/64 200 "));
	for (uint64_t seed = 1; seed < 5; seed++) {
		make_perm(perm, n, seed);
		got = run_order(v, perm, n);
		ck_assert_str_eq(got, ref);
		free(got);
	}
	free(ref);
	for (size_t i = 0; i < n; i++) {
		v[i].file = i % 2 ? "b.log" : "a.log";
		v[i].line = i / 2 + 1;
	}
	for (size_t i = 1; i < n; i += 2)          /* b.log, then a.log */
		perm[k++] = i;
	for (size_t i = 0; i < n; i += 2)
		perm[k++] = i;
	ref = run_order(v, perm, n);
	ck_assert_ptr_nonnull(strstr(ref, "\n2001:db8:bad:1::/64 200 "));
	ck_assert_ptr_nonnull(strstr(ref, " b.log:41\n203.0.113.8 "));
	ck_assert_ptr_nonnull(strstr(ref, " b.log:1\n2001:db8:bad:2::/64 "));
	ck_assert_int_eq(strncmp(ref, "203.0.113.7 420 ", 16), 0);
	ck_assert_ptr_nonnull(strstr(ref, " a.log:1\n2001:db8:bad:1::/64 "));
	ck_assert_str_eq(ref + strlen(ref) - 9, " a.log:2\n");      /* D2, the last row */
	for (uint64_t seed = 0; seed < 4; seed++) {
		make_perm(perm, n, seed);
		got = run_order(v, perm, n);
		ck_assert_str_eq(got, ref);
		free(got);
	}
	free(ref);
	free(perm);
	free(v);
}
END_TEST

/* Next permutation of p[0..n) in lexicographic order.  @return 0 after the
 * last one. */
static int next_perm(size_t *p, size_t n)
{
	size_t i = n - 1, j = n - 1, t;

	while (i > 0 && p[i - 1] >= p[i])
		i--;
	if (i == 0)
		return 0;
	while (p[j] <= p[i - 1])
		j--;
	t = p[i - 1], p[i - 1] = p[j], p[j] = t;
	for (j = n - 1; i < j; i++, j--)
		t = p[i], p[i] = p[j], p[j] = t;
	return 1;
}

/*
 * Ties in time across files, in all 120 orders of five records of one
 * source (T = 23:24:01Z):
 *   b.log:1 T+1 KB   b.log:2 T KA   a.log:9 T KB   a.log:7 T KC   a.log:3 T+0.5 KA
 * Three records at T: the evidence is the smallest file name, then line:
 * a.log:7, whichever file was read first.  The keys KA:2 and KB:2 tie and
 * are listed in key order, KC:1 last.  Peak: 4 in second T.  The file name
 * is handed over in one reused buffer, as an input may do: the evidence
 * must still name the right file.
 */
START_TEST(order_ties)
{
	static const struct {
		const char *file;
		uint64_t line;
		int64_t t;
		const char *key;
	} in[] = {
		{ "b.log", 1, T0 * SEC + SEC, KB }, { "b.log", 2, T0 * SEC, KA },
		{ "a.log", 9, T0 * SEC, KB }, { "a.log", 7, T0 * SEC, KC },
		{ "a.log", 3, T0 * SEC + SEC / 2, KA },
	};
	size_t p[5] = { 0, 1, 2, 3, 4 }, count = 0;
	lbt_offenders_opts op = LBT_OFFENDERS_OPTS_INIT;
	char fbuf[16], buf[256];

	do {
		lbt_err err;
		lbt_offenders *o = lbt_offenders_new(&op, &err);
		const lbt_offender *r;

		for (size_t i = 0; i < 5; i++) {
			lbt_rec rec = mk(in[p[i]].t, "192.0.2.1", 200, "----", 0, in[p[i]].key,
			    in[p[i]].line);

			snprintf(fbuf, sizeof fbuf, "%s", in[p[i]].file);
			rec.file = fbuf;
			ck_assert_int_eq(lbt_offenders_add(o, &rec), 0);
		}
		snprintf(fbuf, sizeof fbuf, "x");
		ck_assert_int_eq(lbt_offenders_finish(o, &err), 0);
		r = lbt_offenders_row_at(o, 0);
		ck_assert_str_eq(r->ev_file, "a.log");
		ck_assert_uint_eq(r->ev_line, 7);
		ck_assert_int_eq(r->first_us, T0 * SEC);
		ck_assert_int_eq(r->last_us, T0 * SEC + SEC);
		ck_assert_int_eq(r->peak_count, 4);
		ck_assert_int_eq(r->peak_second, T0);
		ck_assert_str_eq(lbt_offender_keys_str(r, buf, sizeof buf), KA ":2 " KB ":2 " KC ":1");
		lbt_offenders_free(o);
		count++;
	} while (next_perm(p, 5));
	ck_assert_uint_eq(count, 120);
}
END_TEST

/* The offenders suite. */
/*
 * Sources of one request beside one of three, by hand (a.log):
 *   line 1  192.0.2.1     T0+5
 *   line 2  192.0.2.2     T0+1
 *   lines 3, 4, 5  198.51.100.9  T0+7, T0+7 and T0+2 (late, logged last)
 *   line 6  2001:db8::1   T0+3
 * A one-request source shows peak 1 in its own second and its one line,
 * whether it was made full to be ranked (--by ratio) or only for its row;
 * the other peaks 2 at T0+7, its evidence line 5 (the earliest time).
 * With --min-rate 2 only the other is kept, also when --by ratio made
 * the one-request sources full (a floor so low that each may rise).
 */
START_TEST(one_request_rows)
{
	static const struct {
		const char *addr;
		int64_t s;
	} in[] = { { "192.0.2.1", 5 }, { "192.0.2.2", 1 }, { "198.51.100.9", 7 },
		{ "198.51.100.9", 7 }, { "198.51.100.9", 2 }, { "2001:db8::1", 3 } };
	static const struct {
		const char *source;
		int64_t peak, second;
		uint64_t line;
	} want[] = { { "198.51.100.9", 2, 7, 5 }, { "192.0.2.1", 1, 5, 1 },
		{ "192.0.2.2", 1, 1, 2 }, { "2001:db8::/64", 1, 3, 6 } };

	for (int by = 0; by < 4; by++) {
		lbt_offenders_opts op = LBT_OFFENDERS_OPTS_INIT;
		lbt_offenders *o;
		lbt_err err;

		op.by = (lbt_off_by)by;
		o = lbt_offenders_new(&op, &err);
		ck_assert_ptr_nonnull(o);
		for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
			lbt_rec r = mk((T0 + in[i].s) * SEC, in[i].addr, 200, "----", 0, KA, i + 1);

			ck_assert_int_eq(lbt_offenders_add(o, &r), 0);
		}
		ck_assert_int_eq(lbt_offenders_finish(o, &err), 0);
		ck_assert_uint_eq(lbt_offenders_nrows(o), 4);
		for (size_t i = 0; i < 4; i++) {
			const lbt_offender *r = NULL;

			for (size_t k = 0; k < 4 && r == NULL; k++)   /* any order but by requests */
				if (strcmp(lbt_offenders_row_at(o, k)->source, want[i].source) == 0)
					r = lbt_offenders_row_at(o, k);
			ck_assert_msg(r != NULL, "by %d: no row %s", by, want[i].source);
			if (by == LBT_OFF_BY_REQUESTS)
				ck_assert_ptr_eq(r, lbt_offenders_row_at(o, i));
			ck_assert_int_eq(r->peak_count, want[i].peak);
			ck_assert_int_eq(r->peak_second, T0 + want[i].second);
			ck_assert_uint_eq(r->ev_line, want[i].line);
			ck_assert_str_eq(r->ev_file, "a.log");
			ck_assert_uint_eq(r->addrs, 1);
		}
		lbt_offenders_free(o);
	}
	for (int by = 0; by < 4; by++) {                  /* --min-rate 2: one row */
		lbt_offenders_opts op = LBT_OFFENDERS_OPTS_INIT;
		lbt_offenders *o;
		lbt_err err;

		op.by = (lbt_off_by)by;
		op.min_rate = 2;
		op.cp.floor = 0.01;       /* --by ratio: every source may rise, made full */
		o = lbt_offenders_new(&op, &err);
		ck_assert_ptr_nonnull(o);
		for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
			lbt_rec r = mk((T0 + in[i].s) * SEC, in[i].addr, 200, "----", 0, KA, i + 1);

			ck_assert_int_eq(lbt_offenders_add(o, &r), 0);
		}
		ck_assert_int_eq(lbt_offenders_finish(o, &err), 0);
		ck_assert_uint_eq(lbt_offenders_nrows(o), 1);
		ck_assert_str_eq(lbt_offenders_row_at(o, 0)->source, "198.51.100.9");
		lbt_offenders_free(o);
	}
}
END_TEST

/* mk() with the client marked as where it came from (rec.h), and the
 * connecting address conn beside it (NULL: none). */
static lbt_rec mk_from(int64_t t_us, const char *addr, int from, const char *conn,
    uint64_t line)
{
	lbt_rec r = mk(t_us, addr, 200, "----", 0, KA, line);

	r.have |= LBT_BIT(LBT_F_CLIENT_FROM);
	r.client_from = (uint8_t)from;
	if (conn != NULL) {
		ck_assert_int_eq(lbt_addr_parse(conn, strlen(conn), &r.conn), 0);
		r.have |= LBT_BIT(LBT_F_CONN);
	}
	return r;
}

/* from_header and via: per source (a one-request source and a full one),
 * in the stats beside the records set aside and vouched for, and after a
 * merge (two connecting addresses: via_many). */
START_TEST(from_header)
{
	lbt_offenders_opts op = LBT_OFFENDERS_OPTS_INIT;
	const lbt_offenders_stats *st;
	lbt_offenders *a, *b;
	lbt_err err;

	ck_assert_ptr_nonnull(a = lbt_offenders_new(&op, &err));
	ck_assert_ptr_nonnull(b = lbt_offenders_spawn(a, &err));
	for (int i = 0; i < 3; i++) {      /* 198.51.100.7: 3 + 2 from the header, 1 not */
		lbt_rec r = mk_from((T0 + i) * SEC, "198.51.100.7", LBT_FROM_HEADER, "203.0.113.66",
		    1 + (uint64_t)i);

		ck_assert_int_eq(lbt_offenders_add(a, &r), 0);
	}
	for (int i = 0; i < 2; i++) {
		lbt_rec r = mk_from((T0 + 5 + i) * SEC, "198.51.100.7", LBT_FROM_HEADER,
		    "203.0.113.70", 10 + (uint64_t)i);

		ck_assert_int_eq(lbt_offenders_add(b, &r), 0);
	}
	lbt_rec v[] = {
		mk((T0 + 8) * SEC, "198.51.100.7", 200, "----", 0, KA, 20),
		mk_from((T0 + 9) * SEC, "192.0.2.9", LBT_FROM_HEADER, "203.0.113.68", 21),
		mk_from((T0 + 9) * SEC, "203.0.113.66", LBT_FROM_CONN, NULL, 22),
		mk_from((T0 + 9) * SEC, "203.0.113.67", LBT_FROM_TRUSTED, NULL, 23),
	};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		ck_assert_int_eq(lbt_offenders_add(b, &v[i]), 0);
	ck_assert_int_eq(lbt_offenders_merge(a, b, &err), 0);
	lbt_offenders_free(b);
	ck_assert_int_eq(lbt_offenders_finish(a, &err), 0);
	st = lbt_offenders_stats_get(a);
	ck_assert_uint_eq(st->from_header, 6);
	ck_assert_uint_eq(st->header_aside, 1);
	ck_assert_uint_eq(st->from_trusted, 1);
	ck_assert_uint_eq(lbt_offenders_nrows(a), 4);
	for (size_t k = 0; k < lbt_offenders_nrows(a); k++) {
		const lbt_offender *r = lbt_offenders_row_at(a, k);
		uint64_t want = strcmp(r->source, "198.51.100.7") == 0 ? 5 :
		    strcmp(r->source, "192.0.2.9") == 0 ? 1 : 0;

		char via[LBT_ADDR_STRLEN + 2];

		ck_assert_msg(r->from_header == want, "%s: %llu", r->source,
		    (unsigned long long)r->from_header);
		lbt_offender_via_str(r, via, sizeof via);
		ck_assert_str_eq(via, strcmp(r->source, "198.51.100.7") == 0 ? "203.0.113.66+" :
		    strcmp(r->source, "192.0.2.9") == 0 ? "203.0.113.68" : "");
	}
	lbt_offenders_free(a);
}
END_TEST

static Suite *offenders_suite(void)
{
	Suite *s = suite_create("offenders");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, by_requests);
	tcase_add_test(tc, rankings);
	tcase_add_test(tc, thresholds);
	tcase_add_test(tc, explicit_baseline);
	tcase_add_test(tc, ratio_skips);
	tcase_add_test(tc, window_outside);
	tcase_add_test(tc, bad_opts);
	tcase_add_test(tc, no_jump);
	tcase_add_test(tc, top_keys);
	tcase_add_test(tc, addr_cap);
	tcase_add_test(tc, prefixes);
	tcase_add_test(tc, missing);
	tcase_add_test(tc, geoip);
	tcase_add_test(tc, order_flood);
	tcase_add_test(tc, order_ties);
	tcase_add_test(tc, one_request_rows);
	tcase_add_test(tc, from_header);
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
