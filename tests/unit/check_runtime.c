/*
 * check_runtime.c - unit tests for lib/rule/runtime.c: reading HAProxy's
 * answers to `show acl` and `show acl FILE`, and a socket that is not
 * there.  The answers are HAProxy 2.6.12's, copied from a run of
 * `show acl` on its stats socket (a frontend with `src -f /tmp/d.lst`
 * and an inline `src` ACL).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/runtime.h"

static const char show_acl[] =
    "# id (file) description\n"
    "0 (/tmp/rt/d.lst) pattern loaded from file '/tmp/rt/d.lst' used by acl at file "
    "'h.cfg' line 10. curr_ver=0 next_ver=0 entry_cnt=1\n"
    "1 () acl 'src' file 'h.cfg' line 10. curr_ver=0 next_ver=0 entry_cnt=0\n"
    "2 () acl 'src' file 'h.cfg' line 11. curr_ver=0 next_ver=0 entry_cnt=1\n"
    "3 (/etc/haproxy/b.lst) pattern loaded from file '/etc/haproxy/b.lst' used by acl at "
    "file 'h.cfg' line 12. curr_ver=0 next_ver=0 entry_cnt=0\n"
    "\n";

static const char entries[] =
    "0x555ad9109500 203.0.113.9\n"
    "0x555ad92e1630 2001:db8:bad:1::/64\n"
    "0x7fcce80468b0 203.0.113.7\n"
    "\n";

/* The loaded files: the ones in parentheses, never the inline ACLs. */
START_TEST(loaded_files)
{
	char buf[256];

	ck_assert_int_eq(lbt_runtime_loaded(show_acl, "/tmp/rt/d.lst", buf, sizeof buf), 1);
	ck_assert_int_eq(lbt_runtime_loaded(show_acl, "/etc/haproxy/b.lst", buf, sizeof buf), 1);
	ck_assert_int_eq(lbt_runtime_loaded(show_acl, "/tmp/rt/x.lst", buf, sizeof buf), 0);
	ck_assert_str_eq(buf, "/tmp/rt/d.lst, /etc/haproxy/b.lst");
	ck_assert_int_eq(lbt_runtime_loaded(show_acl, "/tmp/rt/d", buf, sizeof buf), 0);
	ck_assert_int_eq(lbt_runtime_loaded(show_acl, "", buf, sizeof buf), 0);
	ck_assert_int_eq(lbt_runtime_loaded("# id (file) description\n\n", "/a", buf,
	    sizeof buf), 0);
	ck_assert_str_eq(buf, "none");
}
END_TEST

/* An entry is the whole pattern after the address, never a prefix of it. */
START_TEST(has_entry)
{
	ck_assert_int_eq(lbt_runtime_has(entries, "203.0.113.7"), 1);
	ck_assert_int_eq(lbt_runtime_has(entries, "2001:db8:bad:1::/64"), 1);
	ck_assert_int_eq(lbt_runtime_has(entries, "203.0.113"), 0);
	ck_assert_int_eq(lbt_runtime_has(entries, "2001:db8:bad:1::"), 0);
	ck_assert_int_eq(lbt_runtime_has(entries, "203.0.113.8"), 0);
	ck_assert_int_eq(lbt_runtime_has("", "203.0.113.7"), 0);
}
END_TEST

/* No socket there: an error naming it, never a hang. */
START_TEST(no_socket)
{
	lbt_err err;

	ck_assert_ptr_null(lbt_runtime_ask("/nonexistent/haproxy.sock", "show acl", &err));
	ck_assert_ptr_nonnull(strstr(err.msg, "/nonexistent/haproxy.sock: connect: "));
	ck_assert_int_eq(lbt_runtime_acl("/nonexistent/haproxy.sock", "/a.lst", "203.0.113.7",
	    1, &err), -1);
	/* a second command cannot ride on the path */
	ck_assert_int_eq(lbt_runtime_acl("/nonexistent/haproxy.sock", "/a.lst;shutdown",
	    "203.0.113.7", 1, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "not one word each for the runtime API"));
}
END_TEST

/* The runtime suite. */
static Suite *runtime_suite(void)
{
	Suite *s = suite_create("runtime");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, loaded_files);
	tcase_add_test(tc, has_entry);
	tcase_add_test(tc, no_socket);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(runtime_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
