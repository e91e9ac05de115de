/*
 * check_netgroup.c - unit tests for lib/base/netgroup.c: the default /32 and /64
 * grouping, decoys sharing a /24 or /48 kept apart, other prefixes, option
 * errors.  Expected groups are written by hand.
 */
#include <check.h>
#include <string.h>

#include "lbt/netgroup.h"

/* Group of the address text s, formatted. */
static const char *group(const lbt_netgroup *g, const char *s, lbt_addr *net)
{
	static char buf[LBT_ADDR_STRLEN];
	lbt_addr a;

	ck_assert_int_eq(lbt_addr_parse(s, strlen(s), &a), 0);
	ck_assert_int_eq(lbt_netgroup_of(g, &a, net, NULL), 0);
	return lbt_netgroup_format(g, net, buf, sizeof buf);
}

/* Defaults: IPv4 alone, IPv6 by /64. */
START_TEST(defaults)
{
	lbt_netgroup g = LBT_NETGROUP_INIT;
	lbt_addr n1, n2;

	ck_assert_str_eq(group(&g, "203.0.113.7", &n1), "203.0.113.7");
	ck_assert_str_eq(group(&g, "::ffff:203.0.113.7", &n2), "203.0.113.7");
	ck_assert_mem_eq(&n1, &n2, sizeof n1);
	ck_assert_str_eq(group(&g, "2001:db8:bad:1::5", &n1), "2001:db8:bad:1::/64");
	ck_assert_str_eq(group(&g, "2001:db8:bad:1:ffff:ee:dd:1", &n2), "2001:db8:bad:1::/64");
	ck_assert_mem_eq(&n1, &n2, sizeof n1);
}
END_TEST

/* Decoys in the same /24 and the same /48 are other groups. */
START_TEST(decoys)
{
	lbt_netgroup g = LBT_NETGROUP_INIT;
	lbt_addr n1, n2;

	group(&g, "203.0.113.7", &n1);
	ck_assert_str_eq(group(&g, "203.0.113.8", &n2), "203.0.113.8");
	ck_assert(memcmp(&n1, &n2, sizeof n1) != 0);
	group(&g, "2001:db8:bad:1::5", &n1);
	ck_assert_str_eq(group(&g, "2001:db8:bad:2::5", &n2), "2001:db8:bad:2::/64");
	ck_assert(memcmp(&n1, &n2, sizeof n1) != 0);
}
END_TEST

/* --v4-prefix 24 --v6-prefix 48 merge the decoys; text has the length. */
START_TEST(prefixes)
{
	lbt_netgroup g = LBT_NETGROUP_INIT;
	lbt_addr n1, n2;
	int bits;
	lbt_addr a;

	ck_assert_int_eq(lbt_netgroup_set(&g, "24", "/48", NULL), 0);
	ck_assert_int_eq(g.v4_bits, 24);
	ck_assert_int_eq(g.v6_bits, 48);
	ck_assert_str_eq(group(&g, "203.0.113.7", &n1), "203.0.113.0/24");
	group(&g, "203.0.113.8", &n2);
	ck_assert_mem_eq(&n1, &n2, sizeof n1);
	ck_assert_str_eq(group(&g, "2001:db8:bad:2::5", &n1), "2001:db8:bad::/48");
	group(&g, "2001:db8:bad:1::5", &n2);
	ck_assert_mem_eq(&n1, &n2, sizeof n1);
	/* full length v6, /0 v4 */
	ck_assert_int_eq(lbt_netgroup_set(&g, "0", "128", NULL), 0);
	ck_assert_str_eq(group(&g, "2001:db8::1", &n1), "2001:db8::1");
	ck_assert_str_eq(group(&g, "198.51.100.1", &n1), "0.0.0.0/0");
	lbt_addr_parse("2001:db8::1", 11, &a);
	lbt_netgroup_of(&g, &a, &n1, &bits);
	ck_assert_int_eq(bits, 128);
	ck_assert_int_eq(lbt_netgroup_bits(&g, 4), 0);
	/* NULL leaves a prefix alone */
	ck_assert_int_eq(lbt_netgroup_set(&g, NULL, "56", NULL), 0);
	ck_assert_int_eq(g.v4_bits, 0);
	ck_assert_int_eq(g.v6_bits, 56);
}
END_TEST

/* Bad option values name the option and the range. */
START_TEST(bad_options)
{
	lbt_netgroup g = LBT_NETGROUP_INIT;
	lbt_err err;

	ck_assert_int_eq(lbt_netgroup_set(&g, "33", NULL, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "--v4-prefix"));
	ck_assert_ptr_nonnull(strstr(err.msg, "33"));
	ck_assert_int_eq(lbt_netgroup_set(&g, NULL, "129", &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "--v6-prefix"));
	ck_assert_int_eq(lbt_netgroup_set(&g, "x", NULL, &err), -1);
	ck_assert_int_eq(lbt_netgroup_set(&g, NULL, "-1", &err), -1);
	ck_assert_int_eq(lbt_netgroup_set(&g, "", NULL, &err), -1);
	ck_assert_int_eq(g.v4_bits, 32);
	ck_assert_int_eq(g.v6_bits, 64);
}
END_TEST

/* A record without a client address has no group. */
START_TEST(no_family)
{
	lbt_netgroup g = LBT_NETGROUP_INIT;
	lbt_addr a, net;
	char buf[LBT_ADDR_STRLEN];
	int bits = 7;

	memset(&a, 0, sizeof a);
	memset(&net, 0xaa, sizeof net);
	ck_assert_int_eq(lbt_netgroup_of(&g, &a, &net, &bits), -1);
	ck_assert_int_eq(net.family, 0);
	ck_assert_int_eq(bits, 0);
	ck_assert_str_eq(lbt_netgroup_format(&g, &net, buf, sizeof buf), "-");
}
END_TEST

/* The netgroup suite. */
static Suite *netgroup_suite(void)
{
	Suite *s = suite_create("netgroup");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, defaults);
	tcase_add_test(tc, decoys);
	tcase_add_test(tc, prefixes);
	tcase_add_test(tc, bad_options);
	tcase_add_test(tc, no_family);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(netgroup_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
