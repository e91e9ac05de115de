/*
 * check_addrset.c - unit tests for lib/base/addrset.c: distinct addresses
 * of one network, exact (lower halves, or pairs once an address of another
 * upper half comes), counted up to a cap, then a sketch; counts checked
 * against a plain list kept by the test, the sketch against one built
 * from the same addresses in another order.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/addrset.h"

#define NET 0x0db8012001000000ull  /* some upper half */

/* By hand: duplicates, "::" (both halves 0), the inline first address. */
START_TEST(by_hand)
{
	lbt_addrset s = LBT_ADDRSET_INIT;
	int approx;

	ck_assert_uint_eq(lbt_addrset_count(&s, &approx), 0);
	ck_assert_int_eq(approx, 0);
	ck_assert_int_eq(lbt_addrset_add(&s, NET, NET, 5, SIZE_MAX), 0);
	ck_assert_int_eq(lbt_addrset_add(&s, NET, NET, 5, SIZE_MAX), 0);
	ck_assert_uint_eq(lbt_addrset_count(&s, &approx), 1);
	ck_assert_uint_eq(lbt_addrset_bytes(&s), 0);       /* inline */
	ck_assert_int_eq(lbt_addrset_add(&s, NET, NET, 1, SIZE_MAX), 0);
	ck_assert_int_eq(lbt_addrset_add(&s, NET, NET, 0, SIZE_MAX), 0);
	ck_assert_int_eq(lbt_addrset_add(&s, NET, NET, 5, SIZE_MAX), 0);
	ck_assert_int_eq(lbt_addrset_add(&s, NET, NET, 1, SIZE_MAX), 0);
	ck_assert_uint_eq(lbt_addrset_count(&s, &approx), 3);
	ck_assert_int_eq(s.form, LBT_ADDRSET_LO);
	ck_assert_uint_eq(lbt_addrset_bytes(&s), 4 * 8);   /* room for 4 lower halves */
	lbt_addrset_free(&s);

	memset(&s, 0, sizeof(s));                          /* zero bytes: empty */
	ck_assert_int_eq(lbt_addrset_add(&s, 0, 0, 0, SIZE_MAX), 0);   /* "::" */
	ck_assert_int_eq(lbt_addrset_add(&s, 0, 0, 7, SIZE_MAX), 0);
	ck_assert_int_eq(lbt_addrset_add(&s, 0, 0, 0, SIZE_MAX), 0);
	ck_assert_uint_eq(lbt_addrset_count(&s, &approx), 2);
	lbt_addrset_free(&s);
}
END_TEST

/* Another upper half: pairs, with the addresses held before. */
START_TEST(pairs)
{
	lbt_addrset s = LBT_ADDRSET_INIT;
	int approx;

	lbt_addrset_add(&s, NET, NET, 9, SIZE_MAX);
	lbt_addrset_add(&s, NET, NET + 1, 9, SIZE_MAX);    /* same lower half */
	ck_assert_int_eq(s.form, LBT_ADDRSET_PAIRS);
	lbt_addrset_add(&s, NET, NET, 9, SIZE_MAX);
	lbt_addrset_add(&s, NET, NET - 1, 2, SIZE_MAX);
	lbt_addrset_add(&s, NET, NET + 1, 9, SIZE_MAX);
	lbt_addrset_add(&s, NET, NET, 3, SIZE_MAX);
	ck_assert_uint_eq(lbt_addrset_count(&s, &approx), 4);
	ck_assert_int_eq(approx, 0);
	lbt_addrset_free(&s);

	lbt_addrset_add(&s, NET, NET + 2, 1, SIZE_MAX);    /* the very first: pairs */
	ck_assert_int_eq(s.form, LBT_ADDRSET_PAIRS);
	lbt_addrset_add(&s, NET, NET, 1, SIZE_MAX);
	lbt_addrset_add(&s, NET, NET + 2, 1, SIZE_MAX);
	ck_assert_uint_eq(lbt_addrset_count(&s, &approx), 2);
	lbt_addrset_free(&s);
}
END_TEST

/* Counted up to the cap: the rest flagged, not counted. */
START_TEST(cap)
{
	lbt_addrset s = LBT_ADDRSET_INIT;
	int approx;

	for (uint64_t i = 1; i <= 5; i++)
		lbt_addrset_add(&s, NET, NET, i, 3);
	lbt_addrset_add(&s, NET, NET, 2, 3);
	ck_assert_uint_eq(lbt_addrset_count(&s, &approx), 3);
	ck_assert_int_eq(s.capped, 1);
	lbt_addrset_free(&s);
}
END_TEST

/* xorshift64: the test's own draws. */
static uint64_t next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* @return the distinct (hi, lo) pairs among the first n of h, l: a linear
 * scan, the plain way. */
static size_t distinct(const uint64_t *h, const uint64_t *l, size_t n)
{
	size_t d = 0;

	for (size_t i = 0; i < n; i++) {
		size_t j = 0;

		while (j < i && !(h[j] == h[i] && l[j] == l[i]))
			j++;
		d += j == i;
	}
	return d;
}

/*
 * Random addresses from a pool of `pool` lower halves (and, when `other`,
 * a second upper half for one in 8): after each add the count is the
 * plain scan's, while it stays at most LBT_ADDRSET_EXACT.
 */
static void random_exact(int pool, int other, uint64_t seed)
{
	uint64_t h[600], l[600], x = seed;
	lbt_addrset s = LBT_ADDRSET_INIT;
	int approx;

	for (size_t i = 0; i < 600; i++) {
		h[i] = other && next(&x) % 8 == 0 ? NET + 1 : NET;
		l[i] = next(&x) % (uint64_t)pool * 0x9e3779b97f4a7c15ull;
		ck_assert_int_eq(lbt_addrset_add(&s, NET, h[i], l[i], SIZE_MAX), 0);
		size_t want = distinct(h, l, i + 1);

		if (want > LBT_ADDRSET_EXACT) {
			ck_assert_int_eq(s.form, LBT_ADDRSET_SKETCH);
			break;
		}
		ck_assert_uint_eq(lbt_addrset_count(&s, &approx), want);
		ck_assert_int_eq(approx, 0);
	}
	lbt_addrset_free(&s);
}

START_TEST(exact_random)
{
	random_exact(200, 0, 1);
	random_exact(200, 1, 2);
	random_exact(100000, 0, 3);                     /* past 256: the sketch */
	random_exact(100000, 1, 4);
}
END_TEST

/* The sketch: the same estimate whatever the order and the forms the
 * addresses went through (merged halves included), near the truth. */
START_TEST(sketch)
{
	lbt_addrset a = LBT_ADDRSET_INIT, b = LBT_ADDRSET_INIT, c = LBT_ADDRSET_INIT,
	    d = LBT_ADDRSET_INIT;
	int approx;
	uint64_t ea, eb, ec;

	for (uint64_t i = 0; i < 1000; i++) {
		lbt_addrset_add(&a, NET, NET, i * 7919, SIZE_MAX);
		lbt_addrset_add(&b, NET, NET, (999 - i) * 7919, SIZE_MAX);
		lbt_addrset_add(i % 2 ? &c : &d, NET, NET, i * 7919, SIZE_MAX);
	}
	ea = lbt_addrset_count(&a, &approx);
	ck_assert_int_eq(approx, 1);
	eb = lbt_addrset_count(&b, &approx);
	ck_assert_uint_eq(ea, eb);
	ck_assert_int_eq(lbt_addrset_merge(&c, &d, NET, SIZE_MAX), 0);
	ec = lbt_addrset_count(&c, &approx);
	ck_assert_int_eq(approx, 1);
	ck_assert_uint_eq(ec, ea);
	ck_assert_uint_ge(ea, 900);                     /* 3.25 % standard error */
	ck_assert_uint_le(ea, 1100);
	ck_assert_uint_eq(lbt_addrset_bytes(&a), 1024);
	lbt_addrset_free(&a);
	lbt_addrset_free(&b);
	lbt_addrset_free(&c);
	lbt_addrset_free(&d);
}
END_TEST

/* Merges of exact sets are exact unions; the cap flag carries over. */
START_TEST(merge_exact)
{
	lbt_addrset a = LBT_ADDRSET_INIT, b = LBT_ADDRSET_INIT;
	int approx;

	for (uint64_t i = 0; i < 100; i++) {
		lbt_addrset_add(&a, NET, NET, i, SIZE_MAX);          /* 0..99 */
		lbt_addrset_add(&b, NET, NET, 50 + i, SIZE_MAX);     /* 50..149 */
	}
	lbt_addrset_add(&b, NET, NET + 1, 3, SIZE_MAX);              /* pairs */
	ck_assert_int_eq(lbt_addrset_merge(&a, &b, NET, SIZE_MAX), 0);
	ck_assert_uint_eq(lbt_addrset_count(&a, &approx), 151);
	ck_assert_int_eq(approx, 0);
	ck_assert_int_eq(a.form, LBT_ADDRSET_PAIRS);
	lbt_addrset_free(&a);
	lbt_addrset_free(&b);

	lbt_addrset_add(&a, NET, NET, 1, 2);
	for (uint64_t i = 0; i < 3; i++)
		lbt_addrset_add(&b, NET, NET, 10 + i, 2);
	ck_assert_int_eq(lbt_addrset_merge(&a, &b, NET, 2), 0);
	ck_assert_uint_eq(lbt_addrset_count(&a, &approx), 2);
	ck_assert_int_eq(a.capped, 1);
	lbt_addrset_free(&a);
	lbt_addrset_free(&b);
}
END_TEST

static Suite *addrset_suite(void)
{
	Suite *s = suite_create("addrset");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, by_hand);
	tcase_add_test(tc, pairs);
	tcase_add_test(tc, cap);
	tcase_add_test(tc, exact_random);
	tcase_add_test(tc, sketch);
	tcase_add_test(tc, merge_exact);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(addrset_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
