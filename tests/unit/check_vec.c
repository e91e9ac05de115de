/*
 * check_vec.c - lbt_grow: doubling from the first capacity, the array kept
 * when the size overflows, nothing done when there is room.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "lbt/vec.h"

/* Capacities: first, then doubled until need fits; contents kept. */
START_TEST(test_grow_doubles)
{
	int *v = NULL;
	size_t cap = 0;

	ck_assert_int_eq(LBT_GROW(v, cap, 1, 4), 0);
	ck_assert_uint_eq(cap, 4);
	for (int i = 0; i < 4; i++)
		v[i] = i * 7;
	ck_assert_int_eq(LBT_GROW(v, cap, 4, 4), 0);      /* room: unchanged */
	ck_assert_uint_eq(cap, 4);
	ck_assert_int_eq(LBT_GROW(v, cap, 5, 4), 0);
	ck_assert_uint_eq(cap, 8);
	ck_assert_int_eq(LBT_GROW(v, cap, 33, 4), 0);     /* 8 -> 16 -> 32 -> 64 */
	ck_assert_uint_eq(cap, 64);
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(v[i], i * 7);
	free(v);
}
END_TEST

/* An element count whose byte size overflows fails and keeps the array. */
START_TEST(test_grow_overflow)
{
	double *v = NULL;
	size_t cap = 0;

	ck_assert_int_eq(LBT_GROW(v, cap, 2, 2), 0);
	v[1] = 2.5;
	ck_assert_int_eq(LBT_GROW(v, cap, SIZE_MAX / sizeof *v + 1, 2), -1);
	ck_assert_uint_eq(cap, 2);
	ck_assert(v[1] == 2.5);
	ck_assert_int_eq(lbt_grow((void **)&v, &cap, 3, 0, 2), -1);   /* size 0 */
	free(v);
}
END_TEST

/* A first capacity of 0 still grows (from 1). */
START_TEST(test_grow_first_zero)
{
	char *v = NULL;
	size_t cap = 0;

	ck_assert_int_eq(LBT_GROW(v, cap, 3, 0), 0);
	ck_assert_uint_eq(cap, 4);
	free(v);
}
END_TEST

/* The suite. */
int main(void)
{
	Suite *s = suite_create("vec");
	TCase *tc = tcase_create("grow");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_grow_doubles);
	tcase_add_test(tc, test_grow_overflow);
	tcase_add_test(tc, test_grow_first_zero);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
