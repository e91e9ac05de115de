/*
 * check_key.c - lib/read/key.c: the default ping key and --key-regex.
 * Expected keys are read off the inputs by hand.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/key.h"

#define UUID "5bf66975-d4c7-4bf5-bcc8-b8d8a82ea278"

/* Extract with k from the NUL-terminated s; "" when nothing was found. */
static const char *extract(lbt_key *k, const char *s)
{
	static char buf[32768];
	lbt_str out = LBT_STR_NULL;

	if (!lbt_key_extract(k, s, strlen(s), &out))
		return "";
	ck_assert_uint_lt(out.n, sizeof buf);
	memcpy(buf, out.p, out.n);
	buf[out.n] = '\0';
	return buf;
}

START_TEST(default_uuid_shapes)
{
	lbt_err err;
	lbt_key *k = lbt_key_new(NULL, &err);

	ck_assert_ptr_nonnull(k);
	ck_assert_str_eq(extract(k, "/" UUID), UUID);
	ck_assert_str_eq(extract(k, "/ping/" UUID), UUID);
	ck_assert_str_eq(extract(k, "/ping/" UUID "/start"), UUID);
	ck_assert_str_eq(extract(k, "/" UUID "/0"), UUID);
	ck_assert_str_eq(extract(k, "https://hc-ping.com/" UUID "/fail"), UUID);
	ck_assert_str_eq(extract(k, "/api/v1/checks/" UUID "/pings/"), UUID);
	/* Upper case is reported lower case. */
	ck_assert_str_eq(extract(k, "/ping/5BF66975-D4C7-4BF5-BCC8-B8D8A82EA278"), UUID);
	/* The first of two. */
	ck_assert_str_eq(extract(k, "/00000000-0000-0000-0000-00000000000a/" UUID),
	    "00000000-0000-0000-0000-00000000000a");
	lbt_key_free(k);
}
END_TEST

START_TEST(default_uuid_rejects)
{
	lbt_err err;
	lbt_key *k = lbt_key_new(NULL, &err);

	ck_assert_ptr_nonnull(k);
	ck_assert_str_eq(extract(k, "/ping/5bf66975-d4c7-4bf5-bcc8-b8d8a82ea27"), "");   /* 11 */
	ck_assert_str_eq(extract(k, "/ping/5bf66975-d4c7-4bf5-bcc8-b8d8a82ea278f"), ""); /* 13 */
	ck_assert_str_eq(extract(k, "/x" UUID), "");          /* glued to a letter */
	ck_assert_str_eq(extract(k, "/ping/5bf66975-d4c7-4bf5-bcc8-b8d8a82ea27g"), "");
	ck_assert_str_eq(extract(k, "/wp-login.php"), "");
	ck_assert_str_eq(extract(k, ""), "");
	/* '-' and '.' are boundaries, not part of a word. */
	ck_assert_str_eq(extract(k, "/a-" UUID ".json"), UUID);
	lbt_key_free(k);
}
END_TEST

START_TEST(default_slug)
{
	lbt_err err;
	lbt_key *k = lbt_key_new(NULL, &err);

	ck_assert_ptr_nonnull(k);
	/* 22-character ping keys: new lower-case and old base64 shapes. */
	ck_assert_str_eq(extract(k, "/k3v9q2x7m1p8r4t6w0y5za/db-backup"),
	    "k3v9q2x7m1p8r4t6w0y5za/db-backup");
	ck_assert_str_eq(extract(k, "/ping/fqOOd6-F4MMNuCEnzTU01w/db_backup/start"),
	    "fqOOd6-F4MMNuCEnzTU01w/db_backup");
	ck_assert_str_eq(extract(k, "https://hc-ping.com/ping/fqOOd6-F4MMNuCEnzTU01w/nightly/1"),
	    "fqOOd6-F4MMNuCEnzTU01w/nightly");
	ck_assert_str_eq(extract(k, "http://[2001:db8::1]:8000/k3v9q2x7m1p8r4t6w0y5za/a1?create=1"),
	    "k3v9q2x7m1p8r4t6w0y5za/a1");
	/* Upper-case slug (Healthchecks answers 400), 21 and 23 chars, not at start. */
	ck_assert_str_eq(extract(k, "/k3v9q2x7m1p8r4t6w0y5za/DbBackup"), "");
	ck_assert_str_eq(extract(k, "/k3v9q2x7m1p8r4t6w0y5z/db"), "");
	ck_assert_str_eq(extract(k, "/k3v9q2x7m1p8r4t6w0y5zab/db"), "");
	ck_assert_str_eq(extract(k, "/api/k3v9q2x7m1p8r4t6w0y5za/db"), "");
	ck_assert_str_eq(extract(k, "/k3v9q2x7m1p8r4t6w0y5za/"), "");
	lbt_key_free(k);
}
END_TEST

START_TEST(default_uuid_before_slug)
{
	lbt_err err;
	lbt_key *k = lbt_key_new(NULL, &err);

	ck_assert_ptr_nonnull(k);
	ck_assert_str_eq(extract(k, "/k3v9q2x7m1p8r4t6w0y5za/x/" UUID), UUID);
	lbt_key_free(k);
}
END_TEST

START_TEST(user_regex)
{
	lbt_err err;
	lbt_key *k = lbt_key_new("^/api/v[0-9]+/([a-z]+)", &err);

	ck_assert_ptr_nonnull(k);
	ck_assert_str_eq(extract(k, "/api/v3/checks/abc"), "checks");
	ck_assert_str_eq(extract(k, "/api/vX/checks"), "");
	lbt_key_free(k);

	/* Case is kept; an optional group that did not take part is no key. */
	k = lbt_key_new("/(?:u/(AB[a-z]*))?", &err);
	ck_assert_ptr_nonnull(k);
	ck_assert_str_eq(extract(k, "/u/ABcd"), "ABcd");
	ck_assert_str_eq(extract(k, "/v/x"), "");
	lbt_key_free(k);

	/* Non-capturing and lookaround groups do not count. */
	k = lbt_key_new("(?i)(?:host|h)=(?=\\w)([^&]+)", &err);
	ck_assert_ptr_nonnull(k);
	ck_assert_str_eq(extract(k, "a=1&HOST=lb1&b=2"), "lb1");
	lbt_key_free(k);
}
END_TEST

START_TEST(user_regex_errors)
{
	lbt_err err;

	ck_assert_ptr_null(lbt_key_new("(abcd", &err));
	ck_assert_str_eq(err.msg, "--key-regex: missing closing parenthesis at offset 5");
	ck_assert_ptr_null(lbt_key_new("/ping/[a-f", &err));
	ck_assert_str_eq(err.msg,
	    "--key-regex: missing terminating ] for character class at offset 10");
	ck_assert_ptr_null(lbt_key_new("/ping/[a-f]+", &err));
	ck_assert_str_eq(err.msg, "--key-regex: pattern must have exactly one capture group (has 0)");
	ck_assert_ptr_null(lbt_key_new("/(a)(b)", &err));
	ck_assert_str_eq(err.msg, "--key-regex: pattern must have exactly one capture group (has 2)");
	ck_assert_ptr_null(lbt_key_new("/(?<k>a)(b)", &err));
	ck_assert_str_eq(err.msg, "--key-regex: pattern must have exactly one capture group (has 2)");
}
END_TEST

/* A pattern with heavy backtracking must not fail on a long input. */
START_TEST(user_regex_long_input)
{
	lbt_err err;
	lbt_key *k = lbt_key_new("^/((?:a|aa)+)$", &err);
	char *s = malloc(20002);

	ck_assert_ptr_nonnull(k);
	s[0] = '/';
	memset(s + 1, 'a', 20000);
	s[20001] = '\0';
	ck_assert_int_eq(strlen(extract(k, s)), 20000);
	free(s);
	lbt_key_free(k);
	lbt_key_free(NULL);
}
END_TEST

/* Build the suite. */
static Suite *key_suite(void)
{
	Suite *s = suite_create("key");
	TCase *tc = tcase_create("key");

	tcase_add_test(tc, default_uuid_shapes);
	tcase_add_test(tc, default_uuid_rejects);
	tcase_add_test(tc, default_slug);
	tcase_add_test(tc, default_uuid_before_slug);
	tcase_add_test(tc, user_regex);
	tcase_add_test(tc, user_regex_errors);
	tcase_add_test(tc, user_regex_long_input);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite; exit status 0 when every test passed. */
int main(void)
{
	SRunner *sr = srunner_create(key_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
