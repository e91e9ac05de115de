/*
 * check_rate.c - unit tests for lib/analysis/rate.c on hand-built records.
 *
 * The main case: over 60 s starting at T0, key A runs at 2/s for 30 s,
 * 30/s for 20 s, then 2/s for 10 s; B, C and D stay flat at 3, 2 and 1/s.
 * By hand: A total 2*30 + 30*20 + 2*10 = 680, peak 30 at T0+30, baseline
 * 60 requests in the 30 s before the change = 2/s, one episode, a rise
 * T0+30 .. T0+50 at 30/s, ratio 15 (the change points themselves are
 * tested in check_changepoint.c; here, that the rows carry them, in
 * buckets).  Records are fed second-half first, as two files read in the
 * wrong order would be.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/rate.h"

#define SEC 1000000LL
#define T0 1762039441LL

#define KA "aaaaaaaa-0000-4000-8000-000000000001"
#define KB "bbbbbbbb-0000-4000-8000-000000000002"
#define KC "cccccccc-0000-4000-8000-000000000003"
#define KD "dddddddd-0000-4000-8000-000000000004"

/* A record with a time and a key. */
static lbt_rec keyed(int64_t t_us, const char *key)
{
	lbt_rec r;

	lbt_rec_clear(&r);
	r.have = LBT_BIT(LBT_F_TIME) | LBT_BIT(LBT_F_KEY);
	r.time_us = t_us;
	r.key = lbt_str_make(key, strlen(key));
	return r;
}

/* Requests per second of each key at second s of the main case. */
static int rate_of(int k, int s)
{
	static const int flat[] = { 0, 3, 2, 1 };

	if (k > 0)
		return flat[k];
	return s >= 30 && s < 50 ? 30 : 2;
}

/* Feed seconds [from, to) of the main case, spread inside each second. */
static void feed(lbt_rate *r, int from, int to)
{
	static const char *keys[] = { KA, KB, KC, KD };

	for (int s = from; s < to; s++)
		for (int k = 0; k < 4; k++)
			for (int i = 0; i < rate_of(k, s); i++) {
				lbt_rec rec = keyed((T0 + s) * SEC + i * 30000, keys[k]);

				ck_assert_int_eq(lbt_rate_add(r, &rec), 0);
			}
}

/* The main case, built with opts o. */
static lbt_rate *main_case(const lbt_rate_opts *o)
{
	lbt_err err;
	lbt_rate *r = lbt_rate_new(o, &err);

	ck_assert_ptr_nonnull(r);
	feed(r, 30, 60);
	feed(r, 0, 30);
	ck_assert_int_eq(lbt_rate_finish(r, &err), 0);
	return r;
}

/* Ranked by peak: A first with its jump; the flat keys have none. */
START_TEST(jump_first)
{
	lbt_rate_opts o = LBT_RATE_OPTS_INIT;
	lbt_rate *r = main_case(&o);
	const lbt_rate_row *a, *b;
	const lbt_rate_stats *st = lbt_rate_stats_get(r);

	ck_assert_uint_eq(lbt_rate_nrows(r), 4);
	a = lbt_rate_row_at(r, 0);
	ck_assert_str_eq(a->key, KA);
	ck_assert_int_eq(a->total, 680);
	ck_assert_int_eq(a->peak_count, 30);
	ck_assert_int_eq(a->peak_bucket, T0 + 30);
	ck_assert_double_eq(a->peak_rate, 30);
	ck_assert_int_eq(a->first, T0);
	ck_assert_int_eq(a->last, T0 + 59);
	ck_assert_int_eq(a->cp.is_new, 0);
	ck_assert_double_eq(a->cp.baseline, 2);
	ck_assert_uint_eq(a->cp.episodes, 1);
	ck_assert_int_eq(a->cp.has_main, 1);
	ck_assert(a->cp.kind == LBT_CP_RISE);
	ck_assert_int_eq(a->cp.ongoing, 0);
	ck_assert_int_eq(a->cp.start, T0 + 30);
	ck_assert_int_eq(a->cp.end, T0 + 50);
	ck_assert_double_eq(a->cp.mean_rate, 30);
	ck_assert_double_eq(a->cp.peak_rate, 30);
	ck_assert_int_eq(a->cp.has_ratio, 1);
	ck_assert_double_eq(a->cp.ratio, 15);
	b = lbt_rate_row_at(r, 1);
	ck_assert_str_eq(b->key, KB);
	ck_assert_int_eq(b->total, 180);
	ck_assert_int_eq(b->peak_bucket, T0);
	ck_assert_int_eq(b->cp.has_main, 0);
	ck_assert_uint_eq(b->cp.episodes, 0);
	ck_assert_double_eq(b->cp.baseline, 3);
	ck_assert_str_eq(lbt_rate_row_at(r, 2)->key, KC);
	ck_assert_str_eq(lbt_rate_row_at(r, 3)->key, KD);
	ck_assert_ptr_null(lbt_rate_row_at(r, 4));
	ck_assert_uint_eq(st->records, 680 + 180 + 120 + 60);
	ck_assert_uint_eq(st->counted, 1040);
	ck_assert_uint_eq(st->keys, 4);
	ck_assert_uint_eq(st->buckets, 240);
	ck_assert_int_eq(lbt_rate_count(r, 0, T0 + 35), 30);
	ck_assert_int_eq(lbt_rate_count(r, 3, T0 + 35), 1);
	ck_assert_int_eq(lbt_rate_total_count(r, T0 + 35), 36);
	ck_assert_int_eq(lbt_rate_total_count(r, T0 + 60), 0);
	lbt_rate_free(r);
}
END_TEST

/* --top 2 keeps two rows; --rank total orders by total. */
START_TEST(top_rank)
{
	lbt_rate_opts o = LBT_RATE_OPTS_INIT;
	lbt_rate *r;
	int64_t first, last;

	o.top = 2;
	o.rank = LBT_RATE_RANK_TOTAL;
	r = main_case(&o);
	ck_assert_uint_eq(lbt_rate_nrows(r), 2);
	ck_assert_str_eq(lbt_rate_row_at(r, 0)->key, KA);
	ck_assert_str_eq(lbt_rate_row_at(r, 1)->key, KB);
	ck_assert_int_eq(lbt_rate_span(r, &first, &last), 0);
	ck_assert_int_eq(first, T0);
	ck_assert_int_eq(last, T0 + 59);
	lbt_rate_free(r);
}
END_TEST

/* 10 s buckets.  T0 ends in 1, so bucket edges fall at T0+9, T0+19...:
 * A's buckets hold 18 20 20 272 300 48 2 (s=0..8 at 2/s; s=29 at 2/s plus
 * s=30..38 at 30/s; s=39..48 at 30/s; s=49 at 30/s plus s=50..58 at 2/s;
 * s=59).  Peak 300 = 30 req/s in bucket (T0+39)/10.  An episode needs one
 * bucket (10 s); the baseline is the 58 requests of the three buckets
 * before the change over their 30 s, and the rise starts at (T0+30)/10. */
START_TEST(step10)
{
	lbt_rate_opts o = LBT_RATE_OPTS_INIT;
	lbt_rate *r;
	const lbt_rate_row *a;

	o.step_us = 10 * SEC;
	r = main_case(&o);
	a = lbt_rate_row_at(r, 0);
	ck_assert_str_eq(a->key, KA);
	ck_assert_int_eq(a->peak_count, 300);
	ck_assert_double_eq(a->peak_rate, 30);
	ck_assert_int_eq(a->peak_bucket, (T0 + 39) / 10);
	ck_assert_double_eq_tol(a->cp.baseline, 58.0 / 30, 1e-12);
	ck_assert_int_eq(a->cp.has_main, 1);
	ck_assert_int_eq(a->cp.start, (T0 + 30) / 10);
	lbt_rate_free(r);
}
END_TEST

/* Binary keys: status, src and net have text forms; decoys in one /24 and
 * one /48 stay apart, two addresses of one /64 merge. */
START_TEST(by_binary)
{
	static const char *addrs[] = { "203.0.113.7", "203.0.113.7", "203.0.113.8",
		"2001:db8:bad:1::5", "2001:db8:bad:1::6", "2001:db8:bad:1::6", "2001:db8:bad:2::5" };
	static const int32_t status[] = { 429, 429, 200, 429, 429, -1, 200 };
	lbt_rate_opts o = LBT_RATE_OPTS_INIT;
	lbt_rate *net, *src, *st;
	lbt_err err;

	o.by = LBT_RATE_BY_NET;
	net = lbt_rate_new(&o, &err);
	o.by = LBT_RATE_BY_SRC;
	src = lbt_rate_new(&o, &err);
	o.by = LBT_RATE_BY_STATUS;
	st = lbt_rate_new(&o, &err);
	for (int i = 0; i < 7; i++) {
		lbt_rec rec;

		lbt_rec_clear(&rec);
		rec.have = LBT_BIT(LBT_F_TIME) | LBT_BIT(LBT_F_CLIENT) | LBT_BIT(LBT_F_STATUS);
		rec.time_us = T0 * SEC + i;
		lbt_addr_parse(addrs[i], strlen(addrs[i]), &rec.client);
		rec.status = status[i];
		lbt_rate_add(net, &rec);
		lbt_rate_add(src, &rec);
		lbt_rate_add(st, &rec);
	}
	lbt_rate_finish(net, &err);
	lbt_rate_finish(src, &err);
	lbt_rate_finish(st, &err);
	/* net: /64 with 3, 203.0.113.7 with 2, then 1 each (v4 sorts before v6) */
	ck_assert_uint_eq(lbt_rate_nrows(net), 4);
	ck_assert_str_eq(lbt_rate_row_at(net, 0)->key, "2001:db8:bad:1::/64");
	ck_assert_int_eq(lbt_rate_row_at(net, 0)->total, 3);
	ck_assert_str_eq(lbt_rate_row_at(net, 1)->key, "203.0.113.7");
	ck_assert_str_eq(lbt_rate_row_at(net, 2)->key, "203.0.113.8");
	ck_assert_str_eq(lbt_rate_row_at(net, 3)->key, "2001:db8:bad:2::/64");
	/* src: 203.0.113.7 and ::6 with 2 each (v4 first), then the singles */
	ck_assert_uint_eq(lbt_rate_nrows(src), 5);
	ck_assert_str_eq(lbt_rate_row_at(src, 0)->key, "203.0.113.7");
	ck_assert_str_eq(lbt_rate_row_at(src, 1)->key, "2001:db8:bad:1::6");
	ck_assert_str_eq(lbt_rate_row_at(st, 0)->key, "429");
	ck_assert_int_eq(lbt_rate_row_at(st, 0)->total, 4);
	/* 200 twice, -1 once */
	ck_assert_str_eq(lbt_rate_row_at(st, 1)->key, "200");
	ck_assert_str_eq(lbt_rate_row_at(st, 2)->key, "-1");
	lbt_rate_free(net);
	lbt_rate_free(src);
	lbt_rate_free(st);
}
END_TEST

/* Records without the key or the time are counted apart, not as keys. */
START_TEST(missing_fields)
{
	lbt_rate_opts o = LBT_RATE_OPTS_INIT;
	lbt_rate *r;
	lbt_err err;
	lbt_rec rec = keyed(T0 * SEC, KA);

	o.by = LBT_RATE_BY_PATH;
	r = lbt_rate_new(&o, &err);
	lbt_rate_add(r, &rec);                  /* no path */
	rec.have = LBT_BIT(LBT_F_PATH);
	rec.path = lbt_str_make("/x", 2);
	lbt_rate_add(r, &rec);                  /* no time */
	rec.have |= LBT_BIT(LBT_F_TIME);
	lbt_rate_add(r, &rec);
	ck_assert_int_eq(lbt_rate_finish(r, &err), 0);
	ck_assert_uint_eq(lbt_rate_stats_get(r)->no_key, 1);
	ck_assert_uint_eq(lbt_rate_stats_get(r)->no_time, 1);
	ck_assert_uint_eq(lbt_rate_stats_get(r)->counted, 1);
	ck_assert_str_eq(lbt_rate_row_at(r, 0)->key, "/x");
	ck_assert(lbt_rate_fields(r) == (LBT_BIT(LBT_F_TIME) | LBT_BIT(LBT_F_PATH)));
	lbt_rate_free(r);
}
END_TEST

/* A flood running to the end of the input is ongoing. */
START_TEST(ongoing)
{
	lbt_rate_opts o = LBT_RATE_OPTS_INIT;
	lbt_rate *r;
	lbt_err err;
	const lbt_rate_row *a;

	r = lbt_rate_new(&o, &err);
	for (int s = 0; s < 40; s++)
		for (int i = 0; i < (s < 20 ? 10 : 300); i++) {
			lbt_rec rec = keyed((T0 + s) * SEC + i, KA);

			lbt_rate_add(r, &rec);
		}
	lbt_rate_finish(r, &err);
	a = lbt_rate_row_at(r, 0);
	ck_assert_int_eq(a->cp.has_main, 1);
	ck_assert_int_eq(a->cp.ongoing, 1);
	ck_assert_int_eq(a->cp.start, T0 + 20);
	ck_assert_int_eq(a->cp.end, T0 + 40);
	ck_assert_double_eq(a->cp.baseline, 10);
	ck_assert_double_eq(a->cp.mean_rate, 300);
	ck_assert_int_eq(a->total, 20 * 10 + 20 * 300);
	lbt_rate_free(r);
}
END_TEST

/* A key seen only after the others started.  Span of the input is
 * T0..T0+59 (A), E is at 20/s over T0+40..T0+59: absent for 40 s at a rate
 * that would have shown 800 requests, so new, first seen at T0+40, one
 * rise from there, ongoing, no ratio.  (The jump search started at the
 * key's own first bucket and called it "no jump, baseline 20": a key that
 * appears with a flood had its flood rate for a baseline.) */
START_TEST(late_key)
{
	lbt_rate_opts o = LBT_RATE_OPTS_INIT;
	lbt_rate *r;
	lbt_err err;
	const lbt_rate_row *e;

	r = lbt_rate_new(&o, &err);
	feed(r, 0, 60);
	for (int s = 40; s < 60; s++)
		for (int i = 0; i < 20; i++) {
			lbt_rec rec = keyed((T0 + s) * SEC + i, "late");

			lbt_rate_add(r, &rec);
		}
	lbt_rate_finish(r, &err);
	e = lbt_rate_row_at(r, 1);
	ck_assert_str_eq(e->key, "late");
	ck_assert_int_eq(e->cp.is_new, 1);
	ck_assert_int_eq(e->first, T0 + 40);
	ck_assert_double_eq(e->cp.baseline, 0);
	ck_assert_int_eq(e->cp.has_main, 1);
	ck_assert_int_eq(e->cp.start, T0 + 40);
	ck_assert_int_eq(e->cp.ongoing, 1);
	ck_assert_double_eq(e->cp.mean_rate, 20);
	ck_assert_int_eq(e->cp.has_ratio, 0);
	lbt_rate_free(r);
}
END_TEST

/*
 * A merge of consecutive parts (the thread driver's) keeps every key's
 * series as compact as one run over the whole: one request a second for
 * 2,000 s, the first 1,000 s in r, the rest in a twin merged into it.  The
 * merge used to leave r's last window of buckets pending, flushed at
 * finish behind the twin's 1,000 buckets: too far back for the run, and
 * the series became a table (~3x the bytes).  Same rows either way.
 */
START_TEST(merge_stays_compact)
{
	lbt_rate_opts o = LBT_RATE_OPTS_INIT;
	lbt_err err;
	lbt_rate *one = lbt_rate_new(&o, &err), *r = lbt_rate_new(&o, &err), *twin;

	twin = lbt_rate_spawn(r, &err);
	for (int s = 0; s < 2000; s++) {
		lbt_rec rec = keyed((T0 + s) * SEC, KA);

		lbt_rate_add(one, &rec);
		lbt_rate_add(s < 1000 ? r : twin, &rec);
	}
	ck_assert_int_eq(lbt_rate_merge(r, twin, &err), 0);
	lbt_rate_free(twin);
	ck_assert_int_eq(lbt_rate_finish(one, &err), 0);
	ck_assert_int_eq(lbt_rate_finish(r, &err), 0);
	ck_assert_uint_eq(lbt_rate_row_at(r, 0)->total, 2000);
	ck_assert_uint_eq(lbt_rate_row_at(one, 0)->total, 2000);
	ck_assert_uint_le(lbt_rate_bytes(r), lbt_rate_bytes(one) * 3 / 2);
	ck_assert_uint_ge(lbt_rate_bytes(one), 2 * 2000 * 8);   /* key and total: 8-byte cells */
	lbt_rate_free(one);
	lbt_rate_free(r);
}
END_TEST

/* A key that stops while another goes on (an LB out of rotation): A at
 * 5/s for 40 s, B at 5/s for 80 s.  A's change points are read over the
 * input's span (T0..T0+79): a drop from T0+40, ongoing, to 0/s, ratio 0;
 * lbt_rate_changes gives the same in bucket indices from T0. */
START_TEST(drop)
{
	lbt_rate_opts o = LBT_RATE_OPTS_INIT;
	lbt_err err;
	lbt_rate *r = lbt_rate_new(&o, &err);
	const lbt_rate_row *a;
	const lbt_cp_result *cp;
	int64_t origin = 0;

	for (int s = 0; s < 80; s++)
		for (int i = 0; i < 5; i++) {
			lbt_rec ra = keyed((T0 + s) * SEC + i * 1000, KA);
			lbt_rec rb = keyed((T0 + s) * SEC + i * 1000, KB);

			if (s < 40)
				lbt_rate_add(r, &ra);
			lbt_rate_add(r, &rb);
		}
	ck_assert_int_eq(lbt_rate_finish(r, &err), 0);
	a = lbt_rate_row_at(r, 1);
	ck_assert_str_eq(a->key, KA);
	ck_assert_double_eq(a->cp.baseline, 5);
	ck_assert_int_eq(a->cp.has_main, 1);
	ck_assert(a->cp.kind == LBT_CP_DROP);
	ck_assert_int_eq(a->cp.start, T0 + 40);
	ck_assert_int_eq(a->cp.ongoing, 1);
	ck_assert_double_eq(a->cp.mean_rate, 0);
	ck_assert_int_eq(a->cp.has_ratio, 1);
	ck_assert_double_eq(a->cp.ratio, 0);
	cp = lbt_rate_changes(r, 1, &origin);
	ck_assert_ptr_nonnull(cp);
	ck_assert_int_eq(origin, T0);
	ck_assert_uint_eq(cp->nep, 1);
	ck_assert_uint_eq(cp->ep[0].start, 40);
	ck_assert_uint_eq(cp->ep[0].end, 80);
	ck_assert_double_eq(cp->ep[0].from_rate, 5);
	ck_assert_int_eq(lbt_rate_row_at(r, 0)->cp.episodes, 0);
	ck_assert_ptr_null(lbt_rate_changes(r, 2, &origin));
	lbt_rate_free(r);
}
END_TEST

/* Sparkline over the whole span, 6 cells of 10 s, max per cell:
 * A: 2 2 2 30 30 2 -> levels ceil(16/30)=1, 8 -> "▁▁▁██▁". */
START_TEST(sparkline)
{
	lbt_rate_opts o = LBT_RATE_OPTS_INIT;
	lbt_rate *r = main_case(&o);
	char buf[64];

	lbt_rate_sparkline(r, 0, 6, buf, sizeof buf);
	ck_assert_str_eq(buf, "\u2581\u2581\u2581\u2588\u2588\u2581");
	lbt_rate_sparkline(r, 3, 6, buf, sizeof buf);
	ck_assert_str_eq(buf, "\u2588\u2588\u2588\u2588\u2588\u2588");
	ck_assert_uint_eq(lbt_rate_sparkline(r, 9, 6, buf, sizeof buf), 0);
	lbt_rate_free(r);
}
END_TEST

/* Bad option values are refused with the option's name. */
START_TEST(bad_opts)
{
	lbt_rate_opts o = LBT_RATE_OPTS_INIT;
	lbt_err err;
	lbt_rate_by by;
	lbt_rate_rank rank;

	o.cp.factor = 1;
	ck_assert_ptr_null(lbt_rate_new(&o, &err));
	ck_assert_ptr_nonnull(strstr(err.msg, "--jump-factor"));
	o = (lbt_rate_opts)LBT_RATE_OPTS_INIT;
	o.step_us = 0;
	ck_assert_ptr_null(lbt_rate_new(&o, &err));
	ck_assert_ptr_nonnull(strstr(err.msg, "--step"));
	ck_assert_int_eq(lbt_rate_by_parse("uuid", &by, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "'uuid'"));
	ck_assert_int_eq(lbt_rate_by_parse("net", &by, &err), 0);
	ck_assert_int_eq(by, LBT_RATE_BY_NET);
	ck_assert_str_eq(lbt_rate_by_name(LBT_RATE_BY_FRONTEND), "frontend");
	ck_assert_int_eq(lbt_rate_rank_parse("total", &rank, &err), 0);
	ck_assert_int_eq(rank, LBT_RATE_RANK_TOTAL);
	ck_assert_int_eq(lbt_rate_rank_parse("max", &rank, &err), -1);
	lbt_rate_free(NULL);
}
END_TEST

/* Nothing counted: no rows, no span. */
START_TEST(empty)
{
	lbt_rate_opts o = LBT_RATE_OPTS_INIT;
	lbt_err err;
	lbt_rate *r = lbt_rate_new(&o, &err);
	int64_t a, b;

	ck_assert_int_eq(lbt_rate_finish(r, &err), 0);
	ck_assert_uint_eq(lbt_rate_nrows(r), 0);
	ck_assert_int_eq(lbt_rate_span(r, &a, &b), -1);
	lbt_rate_free(r);
}
END_TEST

/* The rate suite. */
static Suite *rate_suite(void)
{
	Suite *s = suite_create("rate");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, jump_first);
	tcase_add_test(tc, top_rank);
	tcase_add_test(tc, step10);
	tcase_add_test(tc, by_binary);
	tcase_add_test(tc, missing_fields);
	tcase_add_test(tc, ongoing);
	tcase_add_test(tc, late_key);
	tcase_add_test(tc, drop);
	tcase_add_test(tc, merge_stays_compact);
	tcase_add_test(tc, sparkline);
	tcase_add_test(tc, bad_opts);
	tcase_add_test(tc, empty);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(rate_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
