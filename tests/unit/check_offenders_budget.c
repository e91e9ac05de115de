/*
 * check_offenders_budget.c - the bounded state of lbt-offenders: the top N
 * by selection (topn.h) against a full sort, maps of fixed-size keys
 * (hmap.h), the distinct addresses (exact up to 256, a HyperLogLog
 * after, the same merged), and the memory budget (offenders.h, "Memory budget"): counts
 * within the bound they print, checked against counts kept here by a
 * plain array, alone and through a merge of two halves.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/offenders.h"
#include "lbt/topn.h"

#define SEC 1000000LL
#define T0 1762039441LL

/* ---- top N ---------------------------------------------------------------- */

/* Values descending, then key bytes: a total order. */
static int by_value(const lbt_hmap_entry *a, const lbt_hmap_entry *b, void *ctx)
{
	int x = *(const int *)a->val, y = *(const int *)b->val;

	(void)ctx;
	if (x != y)
		return x > y ? -1 : 1;
	return strcmp(a->key, b->key);
}

/* Keeps even values. */
static int even(const lbt_hmap_entry *e, void *ctx)
{
	(void)ctx;
	return *(const int *)e->val % 2 == 0;
}

START_TEST(top_equals_sort)
{
	static const size_t ks[] = { 0, 1, 2, 7, 100, 2999, 3000, 5000 };
	lbt_hmap *m = lbt_hmap_new(sizeof(int));
	uint64_t x = 42;
	char key[32];

	for (int i = 0; i < 3000; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		snprintf(key, sizeof key, "k%d", i);
		*(int *)lbt_hmap_put(m, key, strlen(key), NULL) = (int)(x >> 54);   /* many ties */
	}
	for (int f = 0; f < 2; f++) {
		size_t n_all, n_sorted, passing, want;
		lbt_hmap_entry *all = lbt_hmap_sorted(m, by_value, NULL, &n_all), *sorted;

		ck_assert_ptr_nonnull(all);
		sorted = all;
		n_sorted = 0;
		for (size_t i = 0; i < n_all; i++)      /* the filtered full sort */
			if (!f || even(&all[i], NULL))
				sorted[n_sorted++] = all[i];
		for (size_t j = 0; j < sizeof ks / sizeof ks[0]; j++) {
			size_t n;
			lbt_hmap_entry *top = lbt_hmap_top(m, ks[j], by_value, f ? even : NULL, NULL,
			    &n, &passing);

			ck_assert_ptr_nonnull(top);
			want = ks[j] == 0 || ks[j] > n_sorted ? n_sorted : ks[j];
			ck_assert_uint_eq(n, want);
			ck_assert_uint_eq(passing, n_sorted);
			for (size_t i = 0; i < n; i++)
				ck_assert_ptr_eq(top[i].val, sorted[i].val);
			free(top);
		}
		free(all);
	}
	lbt_hmap_free(m);
}
END_TEST

/* ---- fixed-size keys ------------------------------------------------------ */

START_TEST(fixed_keys)
{
	lbt_hmap *m = lbt_hmap_new_fixed(17, sizeof(uint64_t));
	unsigned char k[17] = { 6 };
	lbt_hmap_entry e;
	int created;

	ck_assert_ptr_nonnull(m);
	for (uint32_t i = 0; i < 100000; i++) {
		uint64_t *v;

		memcpy(k + 9, &i, 4);
		ck_assert_ptr_nonnull(v = lbt_hmap_put(m, k, 17, &created));
		ck_assert_int_eq(created, 1);
		*v = (uint64_t)i * 3;
	}
	ck_assert_uint_eq(lbt_hmap_count(m), 100000);
	for (uint32_t i = 0; i < 100000; i += 7) {
		memcpy(k + 9, &i, 4);
		ck_assert_uint_eq(*(uint64_t *)lbt_hmap_get(m, k, 17), (uint64_t)i * 3);
		ck_assert_ptr_eq(lbt_hmap_put(m, k, 17, &created), lbt_hmap_get(m, k, 17));
		ck_assert_int_eq(created, 0);
		lbt_hmap_at(m, i, &e);
		ck_assert_uint_eq(e.klen, 17);
		ck_assert_int_eq(memcmp(e.key, k, 17), 0);
		ck_assert_uint_eq(*(uint64_t *)e.val, (uint64_t)i * 3);
	}
	ck_assert_ptr_null(lbt_hmap_put(m, k, 16, NULL));   /* another length: refused */
	ck_assert_ptr_null(lbt_hmap_get(m, k, 16));
	ck_assert_ptr_null(lbt_hmap_new_fixed(0, 8));
	lbt_hmap_free(m);
}
END_TEST

/* ---- the budget ----------------------------------------------------------- */

#define NLINES 120000
#define NHEAVY 3

/*
 * Record l of the input: 203.0.113.7 every 10th line, 2001:db8:bad:1::N
 * every 25th (one /64), 198.51.100.9 every 20th from line 60000 on (after
 * the first drops), every other line a /64 of its own.  *who gets the
 * source's number: 0..2 for the heavy ones, 3 + l for the others.
 */
static lbt_rec rec_at(uint32_t l, char *addr, size_t size, uint32_t *who)
{
	lbt_rec r;

	if (l % 10 == 0)
		snprintf(addr, size, "203.0.113.7"), *who = 0;
	else if (l % 25 == 1)
		snprintf(addr, size, "2001:db8:bad:1::%x", l & 0xffff), *who = 1;
	else if (l >= NLINES / 2 && l % 20 == 3)
		snprintf(addr, size, "198.51.100.9"), *who = 2;
	else
		snprintf(addr, size, "2001:db8:%x:%x::1", l >> 16 | 0x100, l & 0xffff), *who = 3 + l;
	lbt_rec_clear(&r);
	r.have = LBT_BIT(LBT_F_TIME) | LBT_BIT(LBT_F_CLIENT) | LBT_BIT(LBT_F_STATUS) |
	    LBT_BIT(LBT_F_LINE);
	r.time_us = (T0 + l / 100) * SEC;
	ck_assert_int_eq(lbt_addr_parse(addr, strlen(addr), &r.client), 0);
	r.status = 200;
	r.line = l + 1;
	return r;
}

/* A new accumulator over budget `mem` (0: the default), every row kept. */
static lbt_offenders *new_acc(size_t mem)
{
	lbt_offenders_opts op = LBT_OFFENDERS_OPTS_INIT;
	lbt_err err;
	lbt_offenders *o;

	op.top = 0;
	if (mem)
		op.max_memory = mem;
	ck_assert_ptr_nonnull(o = lbt_offenders_new(&op, &err));
	return o;
}

/* Feed the lines l with l % parts == part to o; count them in truth[]. */
static void feed(lbt_offenders *o, int parts, int part, uint32_t *truth)
{
	char addr[64];
	uint32_t who;

	for (uint32_t l = 0; l < NLINES; l++) {
		lbt_rec r = rec_at(l, addr, sizeof addr, &who);

		if ((int)(l % (uint32_t)parts) != part)
			continue;
		ck_assert_int_eq(lbt_offenders_add(o, &r), 0);
		truth[who]++;
	}
}

/* The true count of a row's source, from truth[] (computed by feed). */
static uint32_t true_count(const lbt_offender *r, const uint32_t *truth)
{
	unsigned a, b;

	if (strcmp(r->source, "203.0.113.7") == 0)
		return truth[0];
	if (strcmp(r->source, "2001:db8:bad:1::/64") == 0)
		return truth[1];
	if (strcmp(r->source, "198.51.100.9") == 0)
		return truth[2];
	ck_assert_int_eq(sscanf(r->source, "2001:db8:%x:%x::/64", &a, &b), 2);
	return truth[3 + ((a & 0xff) << 16 | b)];
}

/* Every row of finished o within its bound; the heavy ones shown first
 * and, when `exact`, the first one (there before any drop) without error.
 * (After a merge it has the other part's floor as its error: that part
 * cannot tell it never saw the source.) */
static void check_bounds(const lbt_offenders *o, const uint32_t *truth, int exact)
{
	const lbt_offenders_stats *st = lbt_offenders_stats_get(o);

	ck_assert_uint_gt(st->pruned, 0);
	ck_assert_uint_gt(st->floor, 0);
	for (size_t i = 0; i < lbt_offenders_nrows(o); i++) {
		const lbt_offender *r = lbt_offenders_row_at(o, i);
		uint32_t t = true_count(r, truth);

		ck_assert_uint_le(r->requests, t);
		ck_assert_uint_ge(r->requests + r->requests_err, t);
		ck_assert_uint_le(r->requests_err, st->floor);
	}
	ck_assert_str_eq(lbt_offenders_row_at(o, 0)->source, "203.0.113.7");
	ck_assert_uint_eq(lbt_offenders_row_at(o, 0)->requests, truth[0]);
	if (exact)
		ck_assert_uint_eq(lbt_offenders_row_at(o, 0)->requests_err, 0);
	ck_assert_str_eq(lbt_offenders_row_at(o, 1)->source, "2001:db8:bad:1::/64");
	ck_assert_uint_eq(lbt_offenders_row_at(o, 1)->requests, truth[1]);
	ck_assert_str_eq(lbt_offenders_row_at(o, 2)->source, "198.51.100.9");
}

START_TEST(over_budget)
{
	uint32_t *truth = calloc(NLINES + NHEAVY, sizeof(*truth));
	lbt_offenders *o = new_acc((size_t)1 << 20);
	lbt_err err;

	feed(o, 1, 0, truth);
	ck_assert_int_eq(lbt_offenders_finish(o, &err), 0);
	check_bounds(o, truth, 1);
	ck_assert_uint_lt(lbt_offenders_nrows(o), NLINES / 2);   /* it did drop */
	lbt_offenders_free(o);
	free(truth);
}
END_TEST

START_TEST(merge_over_budget)
{
	uint32_t *truth = calloc(NLINES + NHEAVY, sizeof(*truth));
	lbt_offenders *a = new_acc((size_t)1 << 20), *b = new_acc((size_t)1 << 20);
	uint64_t fa, fb;
	lbt_err err;

	feed(a, 2, 0, truth);
	feed(b, 2, 1, truth);
	fa = lbt_offenders_stats_get(a)->floor;
	fb = lbt_offenders_stats_get(b)->floor;
	ck_assert_int_eq(lbt_offenders_merge(a, b, &err), 0);
	lbt_offenders_free(b);
	ck_assert_uint_ge(lbt_offenders_stats_get(a)->floor, fa + fb);
	ck_assert_int_eq(lbt_offenders_finish(a, &err), 0);
	check_bounds(a, truth, 0);
	lbt_offenders_free(a);
	free(truth);
}
END_TEST

/* Requests, errors, peaks and evidence of every row, one line each. */
static char *rows_text(const lbt_offenders *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(fp);
	for (size_t i = 0; i < lbt_offenders_nrows(o); i++) {
		const lbt_offender *r = lbt_offenders_row_at(o, i);

		fprintf(fp, "%s %llu+%llu %lld@%lld %llu %lld..%lld :%llu\n", r->source,
		    (unsigned long long)r->requests, (unsigned long long)r->requests_err,
		    (long long)r->peak_count, (long long)r->peak_second,
		    (unsigned long long)r->addrs, (long long)r->first_us, (long long)r->last_us,
		    (unsigned long long)r->ev_line);
	}
	ck_assert_int_eq(fclose(fp), 0);
	return buf;
}

START_TEST(merge_halves_exact)
{
	uint32_t *truth = calloc(NLINES + NHEAVY, sizeof(*truth));
	lbt_offenders *whole = new_acc(0), *a = new_acc(0), *b = new_acc(0);
	char *x, *y;
	lbt_err err;

	feed(whole, 1, 0, truth);
	feed(a, 2, 0, truth);                /* sources of one request in one half, */
	feed(b, 2, 1, truth);                /* several in the other, or in both */
	ck_assert_int_eq(lbt_offenders_merge(a, b, &err), 0);
	lbt_offenders_free(b);
	ck_assert_int_eq(lbt_offenders_finish(whole, &err), 0);
	ck_assert_int_eq(lbt_offenders_finish(a, &err), 0);
	ck_assert_uint_eq(lbt_offenders_stats_get(a)->floor, 0);
	ck_assert_uint_eq(lbt_offenders_nrows(a), NLINES - 12000 - 4800 - 3000 + NHEAVY);
	x = rows_text(whole);
	y = rows_text(a);
	ck_assert_str_eq(x, y);
	free(x);
	free(y);
	lbt_offenders_free(whole);
	lbt_offenders_free(a);
	free(truth);
}
END_TEST

/* ---- distinct addresses ---------------------------------------------------- */

/* A source 2001:db8:a::/64 of k requests from k distinct addresses, the
 * lines l with l % parts == part of them, into o. */
static void feed_addrs(lbt_offenders *o, uint32_t k, int parts, int part)
{
	char addr[64];

	for (uint32_t i = 0; i < k; i++) {
		lbt_rec r;

		if ((int)(i % (uint32_t)parts) != part)
			continue;
		snprintf(addr, sizeof addr, "2001:db8:a:0:%x:%x::", i >> 16, i & 0xffff);
		lbt_rec_clear(&r);
		r.have = LBT_BIT(LBT_F_TIME) | LBT_BIT(LBT_F_CLIENT);
		r.time_us = (T0 + i / 1000) * SEC;
		ck_assert_int_eq(lbt_addr_parse(addr, strlen(addr), &r.client), 0);
		ck_assert_int_eq(lbt_offenders_add(o, &r), 0);
	}
}

START_TEST(addrs_sketch)
{
	static const uint32_t ks[] = { 1, 2, 255, 256, 257, 5000, 100000 };
	lbt_err err;

	for (size_t j = 0; j < sizeof ks / sizeof ks[0]; j++) {
		lbt_offenders *o = new_acc(0), *a = new_acc(0), *b = new_acc(0);
		const lbt_offender *r, *m;

		feed_addrs(o, ks[j], 1, 0);
		feed_addrs(a, ks[j], 2, 0);
		feed_addrs(b, ks[j], 2, 1);
		ck_assert_int_eq(lbt_offenders_merge(a, b, &err), 0);
		lbt_offenders_free(b);
		ck_assert_int_eq(lbt_offenders_finish(o, &err), 0);
		ck_assert_int_eq(lbt_offenders_finish(a, &err), 0);
		r = lbt_offenders_row_at(o, 0);
		m = lbt_offenders_row_at(a, 0);
		if (ks[j] <= 256) {                       /* exact below the threshold */
			ck_assert_int_eq(r->addrs_approx, 0);
			ck_assert_uint_eq(r->addrs, ks[j]);
		} else {                                  /* within 4 standard errors */
			ck_assert_int_eq(r->addrs_approx, 1);
			ck_assert_double_le(fabs((double)r->addrs - ks[j]), 4 * 0.0325 * ks[j]);
		}
		ck_assert_uint_eq(m->addrs, r->addrs);    /* the union's sketch: the same */
		ck_assert_int_eq(m->addrs_approx, r->addrs_approx);
		lbt_offenders_free(o);
		lbt_offenders_free(a);
	}
}
END_TEST

START_TEST(max_memory_parse)
{
	static const struct { const char *s; size_t v; } ok[] = {
		{ "1G", (size_t)1 << 30 }, { "512M", (size_t)512 << 20 }, { "64MiB", (size_t)64 << 20 },
		{ "2048K", (size_t)2 << 20 }, { "1048576", (size_t)1 << 20 }, { "3MB", (size_t)3 << 20 },
		{ "1T", (size_t)1 << 40 },
	};
	static const char *const bad[] = { "", "G", "12X", "1.5G", "-1G", "512K", "0", "1GG",
		"99999999999999999999" };
	lbt_offenders_opts op = LBT_OFFENDERS_OPTS_INIT;
	lbt_err err;

	ck_assert_uint_eq(op.max_memory, (size_t)1 << 30);
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		ck_assert_int_eq(lbt_offenders_opt_max_memory(&op, ok[i].s, &err), 0);
		ck_assert_uint_eq(op.max_memory, ok[i].v);
	}
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_int_eq(lbt_offenders_opt_max_memory(&op, bad[i], &err), -1);
}
END_TEST

static Suite *budget_suite(void)
{
	Suite *s = suite_create("offenders_budget");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, top_equals_sort);
	tcase_add_test(tc, fixed_keys);
	tcase_add_test(tc, over_budget);
	tcase_add_test(tc, merge_over_budget);
	tcase_add_test(tc, merge_halves_exact);
	tcase_add_test(tc, addrs_sketch);
	tcase_add_test(tc, max_memory_parse);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(budget_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
