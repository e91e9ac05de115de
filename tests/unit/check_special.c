/*
 * check_special.c - unit tests for lib/base/special.c: every entry
 * parses; the documentation ranges overlap no entry (every test of
 * lbtriage relies on them); the reason given for addresses chosen by hand
 * from the IANA registries.
 */
#include <check.h>
#include <string.h>

#include "lbt/special.h"

/* The reason for text s ("ADDR[/BITS]"), NULL when none. */
static const char *why(const char *s)
{
	lbt_addr a;
	int bits;
	const lbt_special *e;

	ck_assert_int_eq(lbt_addr_parse_prefix(s, &a, &bits), 0);
	e = lbt_special_find(&a, bits);
	return e ? e->why : NULL;
}

/* Every entry parses, with its host bits already clear. */
START_TEST(entries_parse)
{
	size_t n;
	const lbt_special *t = lbt_special_table(&n);

	ck_assert_uint_ge(n, 30);
	for (size_t i = 0; i < n; i++) {
		lbt_addr a, m;
		int bits;

		ck_assert_msg(lbt_addr_parse_prefix(t[i].prefix, &a, &bits) == 0, "%s", t[i].prefix);
		m = a;
		lbt_addr_mask(&m, bits);
		ck_assert_msg(memcmp(&a, &m, sizeof a) == 0, "%s has host bits", t[i].prefix);
	}
}
END_TEST

/* No documentation range overlaps an entry: they may be denied. */
START_TEST(docs_allowed)
{
	size_t n;
	const lbt_special *d = lbt_special_docs(&n);

	ck_assert_uint_eq(n, 5);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(why(d[i].prefix) == NULL, "%s", d[i].prefix);
	ck_assert_ptr_null(why("203.0.113.7"));
	ck_assert_ptr_null(why("198.51.100.0/24"));
	ck_assert_ptr_null(why("192.0.2.255"));
	ck_assert_ptr_null(why("2001:db8:bad:1::/64"));
	ck_assert_ptr_null(why("3fff::1"));
	ck_assert_ptr_null(why("8.8.8.8"));
	ck_assert_ptr_null(why("2a00:1450::1"));
}
END_TEST

/* Reasons chosen by hand. */
START_TEST(reasons)
{
	ck_assert_str_eq(why("10.1.2.3"), "private address (RFC 1918)");
	ck_assert_str_eq(why("172.31.255.255"), "private address (RFC 1918)");
	ck_assert_ptr_null(why("172.32.0.0"));
	ck_assert_str_eq(why("192.168.0.0/16"), "private address (RFC 1918)");
	ck_assert_str_eq(why("127.0.0.1"), "loopback address (RFC 1122)");
	ck_assert_str_eq(why("0.0.0.0"), "unspecified address (RFC 1122)");
	ck_assert_str_eq(why("0.1.2.3"), "\"this network\" address (RFC 791)");
	ck_assert_str_eq(why("169.254.1.1"), "link-local address (RFC 3927)");
	ck_assert_str_eq(why("100.64.0.1"), "shared address space (RFC 6598)");
	ck_assert_ptr_null(why("100.128.0.1"));
	ck_assert_str_eq(why("192.0.0.9"), "IETF protocol assignment (RFC 6890)");
	ck_assert_str_eq(why("198.19.255.1"), "benchmarking address (RFC 2544)");
	ck_assert_str_eq(why("224.0.0.251"), "multicast address (RFC 5771)");
	ck_assert_str_eq(why("255.255.255.255"), "limited broadcast address (RFC 919)");
	ck_assert_str_eq(why("250.1.1.1"), "reserved address (RFC 1112)");
	ck_assert_str_eq(why("::1"), "loopback address (RFC 4291)");
	ck_assert_str_eq(why("::"), "unspecified address (RFC 4291)");
	ck_assert_str_eq(why("fe80::1"), "link-local address (RFC 4291)");
	ck_assert_str_eq(why("fd00::1"), "unique local address (RFC 4193)");
	ck_assert_str_eq(why("ff02::1"), "multicast address (RFC 4291)");
	ck_assert_str_eq(why("64:ff9b::203.0.113.7"), "IPv4/IPv6 translation address (RFC 6052)");
	ck_assert_str_eq(why("2001::1"), "Teredo address (RFC 4380)");
	ck_assert_str_eq(why("2001:2::1"), "benchmarking address (RFC 5180)");
	ck_assert_str_eq(why("2001:10::1"), "IETF protocol assignment (RFC 2928)");
	ck_assert_ptr_null(why("2001:200::1"));
	ck_assert_str_eq(why("2002:cb00:7107::1"), "6to4 address (RFC 3056)");
	ck_assert_str_eq(why("4000::1"), "not a global unicast address (outside 2000::/3, RFC 4291)");
	/* a wide network that holds special ones: the first inside it */
	ck_assert_str_eq(why("10.0.0.0/7"), "private address (RFC 1918)");
}
END_TEST

/* The special suite. */
static Suite *special_suite(void)
{
	Suite *s = suite_create("special");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, entries_parse);
	tcase_add_test(tc, docs_allowed);
	tcase_add_test(tc, reasons);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(special_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
