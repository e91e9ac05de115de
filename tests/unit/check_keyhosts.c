/*
 * check_keyhosts.c - unit tests for lib/analysis/keyhosts.c: the Host
 * headers each (frontend, key) arrived with, what the proxy limited, the
 * ranking, the evidence whatever the record order, and merges equal to one
 * accumulator given every record.  The records are written by hand; every
 * expected count is counted by hand from them.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/keyhosts.h"

/* One hand-made request. */
struct req {
	const char *fe, *key, *host, *term;
	int status;
	int64_t t_s;              /* time, seconds */
	const char *file;
	uint64_t line;
};

#define KA "f768064f-9585-47ad-a39e-ed24c2c063fe"
#define KB "e66c0e98-1942-4e8a-b4c6-049fa9998118"

/* fe_api: KA 3 x api (2 limited: PT, 429), 2 x www (0 limited), KB 1 x api;
 * fe_www~ (an SSL listener's %ft): KA 1 x api, PR (limited).  One request
 * without a key, one without a Host field. */
static const struct req reqs[] = {
	{ "fe_api", KA, "api.example.com", "----", 200, 100, "a.log", 1 },
	{ "fe_api", KA, "api.example.com", "PT--", 500, 101, "a.log", 2 },
	{ "fe_api", KA, "www.example.com", "----", 200, 103, "a.log", 3 },
	{ "fe_api", KA, "api.example.com", "----", 429, 102, "a.log", 4 },
	{ "fe_api", KB, "api.example.com", "----", 200, 104, "a.log", 5 },
	{ "fe_www~", KA, "api.example.com", "PR--", 403, 105, "b.log", 1 },
	{ "fe_api", KA, "www.example.com", "----", 200, 99, "b.log", 2 },
	{ "fe_api", NULL, "api.example.com", "----", 200, 106, "b.log", 3 },
	{ "fe_api", KA, NULL, "----", 200, 107, "b.log", 4 },
};

#define NREQ (sizeof reqs / sizeof reqs[0])

/* The record of request q. */
static lbt_rec rec_of(const struct req *q)
{
	lbt_rec r;

	lbt_rec_clear(&r);
	r.kind = LBT_KIND_REQUEST;
	r.have = LBT_BIT(LBT_F_TIME) | LBT_BIT(LBT_F_FRONTEND) | LBT_BIT(LBT_F_TERM) |
	    LBT_BIT(LBT_F_STATUS) | LBT_BIT(LBT_F_PATH);
	r.time_us = q->t_s * 1000000;
	r.frontend = lbt_str_make(q->fe, strlen(q->fe));
	r.term = lbt_str_make(q->term, strlen(q->term));
	r.status = q->status;
	r.path = lbt_str_make("/ping/x", 7);
	if (q->key != NULL) {
		r.have |= LBT_BIT(LBT_F_KEY);
		r.key = lbt_str_make(q->key, strlen(q->key));
	}
	if (q->host != NULL) {
		r.have |= LBT_BIT(LBT_F_HOST);
		r.host = lbt_str_make(q->host, strlen(q->host));
	}
	r.file = q->file;
	r.line = q->line;
	return r;
}

/* An accumulator given requests order[from..to). */
static lbt_keyhosts *fed(const size_t *order, size_t from, size_t to)
{
	lbt_err err;
	lbt_keyhosts *k = lbt_keyhosts_new(&err);

	ck_assert_ptr_nonnull(k);
	for (size_t i = from; i < to; i++) {
		lbt_rec r = rec_of(&reqs[order[i]]);

		ck_assert_int_eq(lbt_keyhosts_add(k, &r), 0);
	}
	return k;
}

/* The results of k as one line per host: "fe key host req lim path ev". */
static char *dump(const lbt_keyhosts *k)
{
	static char out[4096];
	size_t n = 0;

	out[0] = '\0';
	for (size_t i = 0; i < lbt_keyhosts_nrows(k); i++) {
		const lbt_keyhosts_row *r = lbt_keyhosts_row_at(k, i);

		n += (size_t)snprintf(out + n, sizeof out - n, "%s %.8s %llu/%llu:", r->frontend,
		    r->key, (unsigned long long)r->requests, (unsigned long long)r->limited);
		for (size_t h = 0; h < r->nhosts; h++)
			n += (size_t)snprintf(out + n, sizeof out - n, " %s %llu/%llu %s:%llu",
			    r->hosts[h].host, (unsigned long long)r->hosts[h].requests,
			    (unsigned long long)r->hosts[h].limited, r->hosts[h].ev_file,
			    (unsigned long long)r->hosts[h].ev_line);
		n += (size_t)snprintf(out + n, sizeof out - n, "\n");
	}
	return out;
}

/* By hand: rows ranked by limited (fe_api KA 2, fe_www KA 1, fe_api KB 0);
 * hosts by requests; evidence the earliest request (www: b.log:2 at 99 s,
 * before a.log:3 at 103 s). */
static const char *const expected =
	"fe_api f768064f 5/2: api.example.com 3/2 a.log:1 www.example.com 2/0 b.log:2\n"
	"fe_www f768064f 1/1: api.example.com 1/1 b.log:1\n"
	"fe_api e66c0e98 1/0: api.example.com 1/0 a.log:5\n";

START_TEST(counts_and_ranking)
{
	size_t order[NREQ];
	lbt_keyhosts *k;
	lbt_err err;

	for (size_t i = 0; i < NREQ; i++)
		order[i] = i;
	k = fed(order, 0, NREQ);
	ck_assert_int_eq(lbt_keyhosts_finish(k, &err), 0);
	ck_assert_str_eq(dump(k), expected);
	ck_assert_uint_eq(lbt_keyhosts_stats_get(k)->counted, 7);
	ck_assert_uint_eq(lbt_keyhosts_stats_get(k)->no_key, 1);
	ck_assert_uint_eq(lbt_keyhosts_stats_get(k)->no_host, 1);
	ck_assert_uint_eq(lbt_keyhosts_stats_get(k)->pairs, 4);
	ck_assert_str_eq(lbt_keyhosts_row_at(k, 0)->hosts[0].path, "/ping/x");
	ck_assert_ptr_null(lbt_keyhosts_row_at(k, 3));
	lbt_keyhosts_free(k);
}
END_TEST

START_TEST(order_free)
{
	size_t order[NREQ];
	lbt_keyhosts *k;
	lbt_err err;

	for (size_t i = 0; i < NREQ; i++)
		order[i] = NREQ - 1 - i;
	k = fed(order, 0, NREQ);
	ck_assert_int_eq(lbt_keyhosts_finish(k, &err), 0);
	ck_assert_str_eq(dump(k), expected);
	lbt_keyhosts_free(k);
}
END_TEST

START_TEST(merge_exact)
{
	size_t order[NREQ];
	lbt_err err;

	for (size_t i = 0; i < NREQ; i++)
		order[i] = i;
	for (size_t cut = 0; cut <= NREQ; cut++) {
		lbt_keyhosts *a = fed(order, 0, cut), *b = fed(order, cut, NREQ);
		lbt_analysis x = lbt_keyhosts_analysis(a), y = lbt_keyhosts_analysis(b);

		ck_assert_int_eq(lbt_analysis_merge(&x, &y, &err), 0);
		ck_assert_int_eq(lbt_keyhosts_finish(a, &err), 0);
		ck_assert_str_eq(dump(a), expected);
		ck_assert_uint_eq(lbt_keyhosts_stats_get(a)->records, NREQ);
		lbt_keyhosts_free(a);
	}
}
END_TEST

START_TEST(events_and_errors)
{
	lbt_err err;
	lbt_keyhosts *k = lbt_keyhosts_new(&err);
	lbt_rec r = rec_of(&reqs[0]);

	r.kind = LBT_KIND_EVENT;
	ck_assert_int_eq(lbt_keyhosts_add(k, &r), 0);
	ck_assert_uint_eq(lbt_keyhosts_stats_get(k)->counted, 0);
	ck_assert_int_eq(lbt_keyhosts_finish(k, &err), 0);
	ck_assert_uint_eq(lbt_keyhosts_nrows(k), 0);
	ck_assert_int_eq(lbt_keyhosts_finish(k, &err), -1);
	ck_assert_int_eq(lbt_keyhosts_add(k, &r), -1);
	lbt_keyhosts_free(k);
	lbt_keyhosts_free(NULL);
}
END_TEST

/* The keyhosts suite. */
static Suite *keyhosts_suite(void)
{
	Suite *s = suite_create("keyhosts");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, counts_and_ranking);
	tcase_add_test(tc, order_free);
	tcase_add_test(tc, merge_exact);
	tcase_add_test(tc, events_and_errors);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(keyhosts_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
