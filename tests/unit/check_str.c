/*
 * check_str.c - lbt_str views and lbt_str_next_item, the list walker.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/str.h"

/* Join every item of list with '|' between them, as seen by the walker. */
static void walk(const char *list, char sep, char *buf)
{
	const char *cur = list;
	lbt_str it;
	size_t n = 0;
	int first = 1;

	while (lbt_str_next_item(&cur, sep, &it)) {
		if (!first)
			buf[n++] = '|';
		memcpy(buf + n, it.p, it.n);
		n += it.n;
		first = 0;
	}
	buf[n] = '\0';
	ck_assert_ptr_null(cur);
}

/* Items, empty ones included; one empty item for "". */
START_TEST(items)
{
	char buf[128];

	walk("host,ua,-", ',', buf);
	ck_assert_str_eq(buf, "host|ua|-");
	walk("a,,b,", ',', buf);
	ck_assert_str_eq(buf, "a||b|");
	walk("", ',', buf);
	ck_assert_str_eq(buf, "");
	walk("x;y", ';', buf);
	ck_assert_str_eq(buf, "x|y");
}
END_TEST

/* Counting: "a,,b," has four items, "" one, NULL none. */
START_TEST(counts)
{
	const char *cur = "a,,b,";
	const char *none = NULL;
	lbt_str it;
	int n = 0;

	while (lbt_str_next_item(&cur, ',', &it))
		n++;
	ck_assert_int_eq(n, 4);
	cur = "";
	n = 0;
	while (lbt_str_next_item(&cur, ',', &it))
		n++;
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(lbt_str_next_item(&none, ',', &it), 0);
	ck_assert(lbt_str_eq(lbt_str_make("ab", 2), "ab"));
	ck_assert(!lbt_str_eq(lbt_str_make("ab", 1), "ab"));
}
END_TEST

/* The suite. */
int main(void)
{
	Suite *s = suite_create("str");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, items);
	tcase_add_test(tc, counts);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
