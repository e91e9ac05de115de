/*
 * check_addr.c - unit tests for lib/base/addr.c (parse, prefix, mask, in, format, cmp).
 * Expected bytes are written out by hand; inet_pton is the second method for v6.
 */
#include <arpa/inet.h>
#include <check.h>
#include <string.h>

#include "lbt/addr.h"

/* Parse the NUL-terminated s; @return lbt_addr_parse's status. */
static int parse(const char *s, lbt_addr *a)
{
	return lbt_addr_parse(s, strlen(s), a);
}

/* Format a into a static buffer. */
static const char *fmt(const lbt_addr *a)
{
	static char buf[LBT_ADDR_STRLEN];

	return lbt_addr_format(a, buf, sizeof buf);
}

/* IPv4 is stored mapped with family 4. */
START_TEST(v4)
{
	lbt_addr a;
	static const uint8_t want[16] = { [10] = 0xff, [11] = 0xff, 203, 0, 113, 7 };

	ck_assert_int_eq(parse("203.0.113.7", &a), 0);
	ck_assert_int_eq(a.family, 4);
	ck_assert_mem_eq(a.b, want, 16);
	ck_assert_str_eq(fmt(&a), "203.0.113.7");
	ck_assert_int_eq(parse("0.0.0.0", &a), 0);
	ck_assert_int_eq(parse("255.255.255.255", &a), 0);
	ck_assert_str_eq(fmt(&a), "255.255.255.255");
	/* a view inside a longer line: only [0..len) is read */
	ck_assert_int_eq(lbt_addr_parse("10.1.2.3:51234", 8, &a), 0);
	ck_assert_str_eq(fmt(&a), "10.1.2.3");
}
END_TEST

/* Malformed IPv4 and IPv6 texts are rejected. */
START_TEST(bad)
{
	static const char *const bad[] = {
		"", "1.2.3", "1.2.3.4.5", "256.1.1.1", "1.2.3.04", "1..2.3", "1.2.3.",
		".1.2.3", "1.2.3.4 ", "a.b.c.d", "1.2.3.1000", "2001:db8::g", "2001:db8:::1",
		"fe80::1%eth0", "[2001:db8::1]", "1:2:3:4:5:6:7:8:9", "-", "1.2.3.-4",
	};
	lbt_addr a;

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(parse(bad[i], &a) == -1, "accepted '%s'", bad[i]);
	ck_assert_int_eq(lbt_addr_parse("1.2.3.4", 0, &a), -1);
}
END_TEST

/* IPv6, with RFC 5952 output; a v4-mapped text becomes IPv4. */
START_TEST(v6)
{
	lbt_addr a;
	uint8_t want[16];

	ck_assert_int_eq(parse("2001:DB8:0:0::1", &a), 0);
	ck_assert_int_eq(a.family, 6);
	ck_assert_int_eq(inet_pton(AF_INET6, "2001:db8::1", want), 1);
	ck_assert_mem_eq(a.b, want, 16);
	ck_assert_str_eq(fmt(&a), "2001:db8::1");
	ck_assert_int_eq(parse("::1", &a), 0);
	ck_assert_str_eq(fmt(&a), "::1");
	ck_assert_int_eq(parse("::ffff:203.0.113.7", &a), 0);
	ck_assert_int_eq(a.family, 4);
	ck_assert_str_eq(fmt(&a), "203.0.113.7");
	ck_assert_int_eq(parse("::FFFF:cb00:7107", &a), 0);
	ck_assert_int_eq(a.family, 4);
	ck_assert_str_eq(fmt(&a), "203.0.113.7");
	/* ::203.0.113.7 (deprecated v4-compatible) stays IPv6 */
	ck_assert_int_eq(parse("::203.0.113.7", &a), 0);
	ck_assert_int_eq(a.family, 6);
	a.family = 0;
	ck_assert_str_eq(fmt(&a), "");
}
END_TEST

/* Prefix parsing: defaults, bounds, junk. */
START_TEST(prefix)
{
	lbt_addr a;
	int bits = -7;

	ck_assert_int_eq(lbt_addr_parse_prefix("2001:db8::/64", &a, &bits), 0);
	ck_assert_int_eq(a.family, 6);
	ck_assert_int_eq(bits, 64);
	ck_assert_int_eq(lbt_addr_parse_prefix("203.0.113.0/24", &a, &bits), 0);
	ck_assert_int_eq(a.family, 4);
	ck_assert_int_eq(bits, 24);
	ck_assert_int_eq(lbt_addr_parse_prefix("203.0.113.7", &a, &bits), 0);
	ck_assert_int_eq(bits, 32);
	ck_assert_int_eq(lbt_addr_parse_prefix("2001:db8::1", &a, &bits), 0);
	ck_assert_int_eq(bits, 128);
	ck_assert_int_eq(lbt_addr_parse_prefix("0.0.0.0/0", &a, &bits), 0);
	ck_assert_int_eq(bits, 0);
	ck_assert_int_eq(lbt_addr_parse_prefix("203.0.113.0/33", &a, &bits), -1);
	ck_assert_int_eq(lbt_addr_parse_prefix("2001:db8::/129", &a, &bits), -1);
	ck_assert_int_eq(lbt_addr_parse_prefix("2001:db8::/", &a, &bits), -1);
	ck_assert_int_eq(lbt_addr_parse_prefix("2001:db8::/6x", &a, &bits), -1);
	ck_assert_int_eq(lbt_addr_parse_prefix("2001:db8::/-1", &a, &bits), -1);
	ck_assert_int_eq(lbt_addr_parse_prefix("2001:db8::/0064", &a, &bits), -1);
	ck_assert_int_eq(lbt_addr_parse_prefix("host/24", &a, &bits), -1);
}
END_TEST

/* Masking, membership and network text. */
START_TEST(mask_in)
{
	lbt_addr a, net, m;
	int bits;
	char buf[LBT_ADDR_STRLEN];

	ck_assert_int_eq(parse("2001:db8:bad:1:aaaa:bbbb:cccc:dddd", &a), 0);
	m = a;
	lbt_addr_mask(&m, 64);
	ck_assert_str_eq(fmt(&m), "2001:db8:bad:1::");
	ck_assert_str_eq(lbt_addr_format_net(&a, 64, buf, sizeof buf), "2001:db8:bad:1::/64");
	ck_assert_str_eq(lbt_addr_format_net(&a, 128, buf, sizeof buf), "2001:db8:bad:1:aaaa:bbbb:cccc:dddd");
	ck_assert_str_eq(lbt_addr_format_net(&a, 60, buf, sizeof buf), "2001:db8:bad::/60");
	ck_assert_int_eq(lbt_addr_parse_prefix("2001:db8:bad::/48", &net, &bits), 0);
	ck_assert(lbt_addr_in(&a, &net, bits));
	ck_assert(!lbt_addr_in(&a, &net, 128));
	ck_assert_int_eq(parse("203.0.113.7", &a), 0);
	ck_assert_str_eq(lbt_addr_format_net(&a, 32, buf, sizeof buf), "203.0.113.7");
	ck_assert_str_eq(lbt_addr_format_net(&a, 24, buf, sizeof buf), "203.0.113.0/24");
	ck_assert_str_eq(lbt_addr_format_net(&a, 25, buf, sizeof buf), "203.0.113.0/25");
	ck_assert_str_eq(lbt_addr_format_net(&a, 30, buf, sizeof buf), "203.0.113.4/30");
	ck_assert_int_eq(lbt_addr_parse_prefix("203.0.113.0/29", &net, &bits), 0);
	ck_assert(lbt_addr_in(&a, &net, bits));
	ck_assert_int_eq(lbt_addr_parse_prefix("203.0.113.8/29", &net, &bits), 0);
	ck_assert(!lbt_addr_in(&a, &net, bits));
	ck_assert_int_eq(lbt_addr_parse_prefix("0.0.0.0/0", &net, &bits), 0);
	ck_assert(lbt_addr_in(&a, &net, bits));
	/* families never mix, even ::/0 does not hold IPv4 */
	ck_assert_int_eq(lbt_addr_parse_prefix("::/0", &net, &bits), 0);
	ck_assert(!lbt_addr_in(&a, &net, bits));
	ck_assert_int_eq(parse("203.0.113.255", &m), 0);
	lbt_addr_mask(&m, 0);
	ck_assert_str_eq(fmt(&m), "0.0.0.0");
	ck_assert_int_eq(m.family, 4);
}
END_TEST

/* Ordering: family first, then bytes. */
START_TEST(cmp)
{
	lbt_addr a, b;

	ck_assert_int_eq(parse("10.0.0.2", &a), 0);
	ck_assert_int_eq(parse("10.0.0.10", &b), 0);
	ck_assert_int_lt(lbt_addr_cmp(&a, &b), 0);
	ck_assert_int_gt(lbt_addr_cmp(&b, &a), 0);
	ck_assert_int_eq(lbt_addr_cmp(&a, &a), 0);
	ck_assert_int_eq(parse("::1", &b), 0);
	ck_assert_int_lt(lbt_addr_cmp(&a, &b), 0);
}
END_TEST

/* The addr suite. */
static Suite *addr_suite(void)
{
	Suite *s = suite_create("addr");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, v4);
	tcase_add_test(tc, bad);
	tcase_add_test(tc, v6);
	tcase_add_test(tc, prefix);
	tcase_add_test(tc, mask_in);
	tcase_add_test(tc, cmp);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite; exit status 1 when a check failed. */
int main(void)
{
	SRunner *sr = srunner_create(addr_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
