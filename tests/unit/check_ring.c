/*
 * check_ring.c - unit tests for lib/run/ring.c and ring_watch.c: the
 * window's records (what is fed, copies that outlive the record given,
 * the byte budget and the window held), and the watched networks' mark
 * and sides, with the expected counts worked out by hand.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/ring.h"

#define S 1000000LL               /* a second in µs */

/* A request at second sec from addr, answered status by server. */
static lbt_rec req(int64_t sec, const char *addr, int status, const char *server)
{
	lbt_rec r;

	lbt_rec_clear(&r);
	r.kind = LBT_KIND_REQUEST;
	r.time_us = sec * S;
	r.have = LBT_BIT(LBT_F_TIME) | LBT_BIT(LBT_F_CLIENT) | LBT_BIT(LBT_F_STATUS) |
	    LBT_BIT(LBT_F_SERVER);
	ck_assert_int_eq(lbt_addr_parse(addr, strlen(addr), &r.client), 0);
	r.status = status;
	r.server = (lbt_str){ server, strlen(server) };
	return r;
}

struct seen {
	uint64_t n;
	int64_t min_us;
	char server[16];
};

static int see(void *ctx, const lbt_rec *rec)
{
	struct seen *s = ctx;

	if (s->n++ == 0 || rec->time_us < s->min_us)
		s->min_us = rec->time_us;
	snprintf(s->server, sizeof s->server, "%.*s", (int)rec->server.n, rec->server.p);
	return 0;
}

/* A 10 s window over 30 s of one record a second: the last 11 (10..20 s
 * before the newest, both ends in), their strings copied. */
START_TEST(window)
{
	lbt_ring *r = lbt_ring_new(10 * S, 64u << 20);
	struct seen s = { 0, 0, "" };
	lbt_ring_stats st;
	char name[8];

	for (int i = 0; i < 30; i++) {
		lbt_rec rec;

		snprintf(name, sizeof name, "app%d", i);
		rec = req(1000 + i, "198.51.100.1", 200, name);
		ck_assert_int_eq(lbt_ring_add(r, &rec), 1);
		memset(name, 'x', sizeof name - 1);       /* the ring holds a copy */
	}
	lbt_ring_each(r, see, &s);
	ck_assert_uint_eq(s.n, 11);
	ck_assert_int_eq(s.min_us, 1019 * S);
	ck_assert_str_eq(s.server, "app29");
	st = lbt_ring_stats_get(r);
	ck_assert_uint_eq(st.records, 11);
	ck_assert_int_eq(st.held_us, 10 * S);
	ck_assert_uint_eq(st.dropped, 0);
	lbt_ring_free(r);
}
END_TEST

/* A record without a time is not kept. */
START_TEST(no_time)
{
	lbt_ring *r = lbt_ring_new(S, 0);
	lbt_rec rec = req(5, "198.51.100.1", 200, "a");

	rec.have &= ~LBT_BIT(LBT_F_TIME);
	ck_assert_int_eq(lbt_ring_add(r, &rec), 0);
	ck_assert_uint_eq(lbt_ring_stats_get(r).records, 0);
	lbt_ring_free(r);
}
END_TEST

/* Over its budget (2 chunks of 1 MiB, the least) the ring drops its
 * oldest chunk though its records are in the window: memory stays at the
 * budget, the window held is shorter, the drop counted. */
START_TEST(budget)
{
	lbt_ring *r = lbt_ring_new(3600 * S, 0);
	static char ua[4000];
	lbt_ring_stats st;

	memset(ua, 'u', sizeof ua);
	for (int i = 0; i < 3000; i++) {         /* ~13 MB of records in one hour */
		lbt_rec rec = req(i, "198.51.100.1", 200, "a");

		rec.ua = (lbt_str){ ua, sizeof ua };
		ck_assert_int_eq(lbt_ring_add(r, &rec), 1);
		ck_assert_uint_le(lbt_ring_stats_get(r).bytes, 3u << 20);
	}
	st = lbt_ring_stats_get(r);
	ck_assert_uint_gt(st.dropped, 0);
	ck_assert_uint_eq(st.records + st.dropped, 3000);
	ck_assert_int_lt(st.held_us, 3000 * S);
	ck_assert_int_eq(st.held_us, 2999 * S - st.first_us);
	lbt_ring_free(r);
}
END_TEST

/* 203.0.113.7 answered 200 by a server for 3 s (4 a second), then 429 by
 * the LB for 2 s: mark at the first 429 second, 12 before (all to the
 * backend), 8 after (none); another network and 198.51.100.1 not counted. */
START_TEST(watch_mark)
{
	lbt_watch *w = lbt_watch_new();
	lbt_watch_net n;
	lbt_err err;

	ck_assert_int_eq(lbt_watch_add(w, "203.0.113.0/24,2001:db8::/32", &err), 0);
	ck_assert_uint_eq(lbt_watch_count_nets(w), 2);
	for (int sec = 100; sec < 105; sec++)
		for (int k = 0; k < 4; k++) {
			lbt_rec a = sec < 103 ? req(sec, "203.0.113.7", 200, "app1") :
			    req(sec, "203.0.113.7", 429, "<NOSRV>");
			lbt_rec b = req(sec, "198.51.100.1", 200, "app1");

			lbt_watch_count(w, &a);
			lbt_watch_count(w, &b);
		}
	ck_assert_int_eq(lbt_watch_at(w, 0, &n), 1);
	ck_assert_str_eq(n.name, "203.0.113.0/24");
	ck_assert_int_eq(n.mark_us, 103 * S);
	ck_assert_uint_eq(n.before.requests, 12);
	ck_assert_uint_eq(n.before.s429, 0);
	ck_assert_uint_eq(n.before.backend, 12);
	ck_assert_uint_eq(n.after.requests, 8);     /* the open second 104 included */
	ck_assert_uint_eq(n.after.s429, 8);
	ck_assert_uint_eq(n.after.backend, 0);
	ck_assert_int_eq(lbt_watch_at(w, 1, &n), 1);
	ck_assert_uint_eq(n.before.requests + n.after.requests, 0);
	ck_assert_int_eq(lbt_watch_at(w, 2, &n), 0);
	lbt_watch_free(w);
}
END_TEST

/* 429 from the first second on is no mark (no second with fewer came
 * first: the rule was there before the run); a tarpitted request (PT)
 * does not reach the backend; a bad network is refused. */
START_TEST(watch_edges)
{
	lbt_watch *w = lbt_watch_new();
	lbt_watch_net n;
	lbt_err err;
	lbt_rec a = req(10, "203.0.113.9", 429, "<NOSRV>");
	lbt_rec t = req(11, "203.0.113.9", 200, "app1");

	ck_assert_int_eq(lbt_watch_add(w, "203.0.113.9", &err), 0);
	lbt_watch_count(w, &a);
	t.have |= LBT_BIT(LBT_F_TERM);
	t.term = (lbt_str){ "PT--", 4 };
	lbt_watch_count(w, &t);
	ck_assert_int_eq(lbt_watch_at(w, 0, &n), 1);
	ck_assert_int_eq(n.mark_us, 0);
	ck_assert_uint_eq(n.before.requests, 2);
	ck_assert_uint_eq(n.before.s429, 1);
	ck_assert_uint_eq(n.before.backend, 0);
	ck_assert_int_eq(lbt_watch_add(w, "203.0.113.0/33", &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "203.0.113.0/33"));
	lbt_watch_free(w);
}
END_TEST

static Suite *ring_suite(void)
{
	Suite *s = suite_create("ring");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, window);
	tcase_add_test(tc, no_time);
	tcase_add_test(tc, budget);
	tcase_add_test(tc, watch_mark);
	tcase_add_test(tc, watch_edges);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(ring_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
