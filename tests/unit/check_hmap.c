/*
 * check_hmap.c - unit tests for lib/base/hmap.c: find-or-add, zeroed values,
 * stable pointers across growth, binary keys, insertion order, stable sort.
 * The second method for counts is a plain array indexed by the key number.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/hmap.h"

struct cnt {
	long n;
	int tag;
};

/* Put a NUL-terminated key. */
static struct cnt *put(lbt_hmap *m, const char *k, int *created)
{
	return lbt_hmap_put(m, k, strlen(k), created);
}

/* A new key gets a zeroed value; the same key finds it again. */
START_TEST(put_get)
{
	lbt_hmap *m = lbt_hmap_new(sizeof(struct cnt));
	struct cnt *a, *b;
	int created = -1;

	ck_assert_ptr_nonnull(m);
	ck_assert_ptr_null(lbt_hmap_get(m, "x", 1));
	a = put(m, "5bf66975-d4c7-4bf5-bcc8-b8d8a82ea278", &created);
	ck_assert_int_eq(created, 1);
	ck_assert_int_eq(a->n, 0);
	ck_assert_int_eq(a->tag, 0);
	a->n = 7;
	b = put(m, "5bf66975-d4c7-4bf5-bcc8-b8d8a82ea278", &created);
	ck_assert_int_eq(created, 0);
	ck_assert_ptr_eq(a, b);
	ck_assert_int_eq(b->n, 7);
	ck_assert_ptr_eq(lbt_hmap_get(m, "5bf66975-d4c7-4bf5-bcc8-b8d8a82ea278", 36), a);
	/* a prefix of the key is another key */
	ck_assert_ptr_null(lbt_hmap_get(m, "5bf66975", 8));
	ck_assert_uint_eq(lbt_hmap_count(m), 1);
	lbt_hmap_free(m);
	lbt_hmap_free(NULL);
}
END_TEST

/* Empty keys and keys with NUL bytes are keys like any other. */
START_TEST(binary_keys)
{
	lbt_hmap *m = lbt_hmap_new(sizeof(int));
	static const char k1[] = { 'a', 0, 'b' }, k2[] = { 'a', 0, 'c' };
	int *e, *x, *y;
	lbt_hmap_entry ent;

	e = lbt_hmap_put(m, "", 0, NULL);
	x = lbt_hmap_put(m, k1, 3, NULL);
	y = lbt_hmap_put(m, k2, 3, NULL);
	*e = 1, *x = 2, *y = 3;
	ck_assert_uint_eq(lbt_hmap_count(m), 3);
	ck_assert_int_eq(*(int *)lbt_hmap_get(m, "", 0), 1);
	ck_assert_int_eq(*(int *)lbt_hmap_get(m, k1, 3), 2);
	ck_assert_int_eq(*(int *)lbt_hmap_get(m, k2, 3), 3);
	lbt_hmap_at(m, 1, &ent);
	ck_assert_uint_eq(ent.klen, 3);
	ck_assert_mem_eq(ent.key, k1, 3);
	ck_assert_int_eq(((const char *)ent.key)[3], '\0');
	lbt_hmap_free(m);
}
END_TEST

/* 200000 keys: pointers taken early survive growth; counts match an array. */
START_TEST(many_stable)
{
	enum { N = 200000 };
	lbt_hmap *m = lbt_hmap_new(sizeof(struct cnt));
	struct cnt *first[64];
	long *want = calloc(N, sizeof(*want));
	char k[32];

	for (long r = 0; r < 3 * N; r++) {
		long i = (r * 7919) % N;
		struct cnt *c;

		snprintf(k, sizeof k, "key-%ld", i);
		c = put(m, k, NULL);
		ck_assert_ptr_nonnull(c);
		c->n++;
		want[i]++;
		if (r < 64)
			first[r] = c;
	}
	ck_assert_uint_eq(lbt_hmap_count(m), N);
	for (long r = 0; r < 64; r++) {
		snprintf(k, sizeof k, "key-%ld", (r * 7919) % N);
		ck_assert_ptr_eq(lbt_hmap_get(m, k, strlen(k)), first[r]);
	}
	for (long i = 0; i < N; i += 997) {
		snprintf(k, sizeof k, "key-%ld", i);
		ck_assert_int_eq(((struct cnt *)lbt_hmap_get(m, k, strlen(k)))->n, want[i]);
	}
	ck_assert_uint_gt(lbt_hmap_bytes(m), N * sizeof(struct cnt));
	free(want);
	lbt_hmap_free(m);
}
END_TEST

/* Entries come back in insertion order. */
START_TEST(order)
{
	lbt_hmap *m = lbt_hmap_new(sizeof(int));
	static const char *keys[] = { "delta", "alpha", "charlie", "bravo" };
	lbt_hmap_entry e;

	for (int i = 0; i < 4; i++)
		*(int *)put(m, keys[i], NULL) = i;
	put(m, "alpha", NULL);
	ck_assert_uint_eq(lbt_hmap_count(m), 4);
	for (int i = 0; i < 4; i++) {
		lbt_hmap_at(m, (size_t)i, &e);
		ck_assert_str_eq(e.key, keys[i]);
		ck_assert_int_eq(*(int *)e.val, i);
	}
	lbt_hmap_free(m);
}
END_TEST

/* Sort by count, descending. */
static int by_n_desc(const lbt_hmap_entry *a, const lbt_hmap_entry *b, void *ctx)
{
	long x = ((const struct cnt *)a->val)->n, y = ((const struct cnt *)b->val)->n;

	(void)ctx;
	return (x < y) - (x > y);
}

/* Sorting: by the comparison, ties in insertion order; empty map works. */
START_TEST(sorted)
{
	lbt_hmap *m = lbt_hmap_new(sizeof(struct cnt));
	static const char *keys[] = { "a", "b", "c", "d", "e" };
	static const long n[] = { 3, 9, 3, 1, 9 };
	static const char *want[] = { "b", "e", "a", "c", "d" };
	lbt_hmap_entry *s;
	size_t cnt = 99;

	s = lbt_hmap_sorted(m, by_n_desc, NULL, &cnt);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(cnt, 0);
	free(s);
	for (int i = 0; i < 5; i++)
		put(m, keys[i], NULL)->n = n[i];
	s = lbt_hmap_sorted(m, by_n_desc, NULL, &cnt);
	ck_assert_uint_eq(cnt, 5);
	for (int i = 0; i < 5; i++)
		ck_assert_str_eq(s[i].key, want[i]);
	ck_assert_int_eq(((struct cnt *)s[0].val)->n, 9);
	free(s);
	lbt_hmap_free(m);
}
END_TEST

/* A set (value size 0) still returns non-NULL on success. */
START_TEST(set)
{
	lbt_hmap *m = lbt_hmap_new(0);
	int created;

	ck_assert_ptr_nonnull(lbt_hmap_put(m, "x", 1, &created));
	ck_assert_int_eq(created, 1);
	ck_assert_ptr_nonnull(lbt_hmap_put(m, "x", 1, &created));
	ck_assert_int_eq(created, 0);
	ck_assert_ptr_nonnull(lbt_hmap_get(m, "x", 1));
	ck_assert_ptr_null(lbt_hmap_get(m, "y", 1));
	lbt_hmap_free(m);
}
END_TEST

/* The hash depends on every byte and on the length; it is deterministic. */
START_TEST(hash)
{
	char a[40], b[40];

	memset(a, 'x', sizeof a);
	memcpy(b, a, sizeof b);
	ck_assert(lbt_hash_bytes(a, 40) == lbt_hash_bytes(b, 40));
	for (size_t i = 0; i < sizeof b; i++) {
		b[i] ^= 1;
		ck_assert(lbt_hash_bytes(a, 40) != lbt_hash_bytes(b, 40));
		b[i] ^= 1;
	}
	ck_assert(lbt_hash_bytes(a, 16) != lbt_hash_bytes(a, 17));
	ck_assert(lbt_hash_bytes("", 0) != lbt_hash_bytes("\0", 1));
}
END_TEST

/* A key too large for the arena's chunks still works. */
START_TEST(big_key)
{
	lbt_hmap *m = lbt_hmap_new(sizeof(int));
	size_t n = 100000;
	char *k = malloc(n);

	memset(k, 'k', n);
	*(int *)lbt_hmap_put(m, k, n, NULL) = 5;
	put(m, "small", NULL);
	k[n - 1] = 'j';
	ck_assert_ptr_null(lbt_hmap_get(m, k, n));
	k[n - 1] = 'k';
	ck_assert_int_eq(*(int *)lbt_hmap_get(m, k, n), 5);
	ck_assert_ptr_nonnull(lbt_hmap_get(m, "small", 5));
	free(k);
	lbt_hmap_free(m);
}
END_TEST

/* The hmap suite. */
static Suite *hmap_suite(void)
{
	Suite *s = suite_create("hmap");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, put_get);
	tcase_add_test(tc, binary_keys);
	tcase_add_test(tc, many_stable);
	tcase_add_test(tc, order);
	tcase_add_test(tc, sorted);
	tcase_add_test(tc, set);
	tcase_add_test(tc, hash);
	tcase_add_test(tc, big_key);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(hmap_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
