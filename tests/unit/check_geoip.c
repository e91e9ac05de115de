/*
 * check_geoip.c - unit tests for lib/analysis/geoip.c against the two tiny
 * databases of tests/data/geoip (made by make-mmdb.pl; the expected
 * answers are the ones that script inserts).
 */
#include <check.h>
#include <string.h>

#include "lbt/geoip.h"

#define DIR LBT_TEST_DATA "/geoip"
#define CDB DIR "/lbt-test-country.mmdb"
#define ADB DIR "/lbt-test-asn.mmdb"

/* Look up the address text s. */
static int look(lbt_geoip *g, const char *s, lbt_geoip_info *out)
{
	lbt_addr a;

	ck_assert_int_eq(lbt_addr_parse(s, strlen(s), &a), 0);
	return lbt_geoip_lookup(g, &a, out);
}

/* Both databases: country and AS of the documentation ranges. */
START_TEST(both)
{
	static const char *const files[] = { CDB, ADB };
	lbt_err err;
	lbt_geoip *g = lbt_geoip_open(files, 2, NULL, &err);
	lbt_geoip_info i;

	ck_assert_ptr_nonnull(g);
	ck_assert_uint_eq(lbt_geoip_count(g), 2);
	ck_assert_str_eq(lbt_geoip_path(g, 1), ADB);
	ck_assert_ptr_null(lbt_geoip_path(g, 2));
	ck_assert_int_eq(lbt_geoip_has_country(g), 1);
	ck_assert_int_eq(lbt_geoip_has_asn(g), 1);
	ck_assert_int_eq(look(g, "203.0.113.7", &i), 1);
	ck_assert_str_eq(i.country, "XA");
	ck_assert_int_eq(i.has_asn, 1);
	ck_assert_uint_eq(i.asn, 64496);
	ck_assert_str_eq(i.org, "Documentation Net A");
	ck_assert_int_eq(look(g, "2001:db8:bad:1::", &i), 1);
	ck_assert_str_eq(i.country, "XB");
	ck_assert_uint_eq(i.asn, 64500);
	ck_assert_str_eq(i.org, "Example Net");
	/* cached: the same answer again */
	ck_assert_int_eq(look(g, "2001:db8:bad:1::", &i), 1);
	ck_assert_uint_eq(i.asn, 64500);
	ck_assert_int_eq(look(g, "198.51.100.1", &i), 1);
	ck_assert_str_eq(i.country, "XC");
	ck_assert_int_eq(i.has_asn, 0);
	ck_assert_int_eq(look(g, "192.0.2.1", &i), 0);
	ck_assert_int_eq(i.has_country, 0);
	ck_assert_int_eq(look(g, "2001:db8:bae::1", &i), 0);
	lbt_geoip_free(g);
}
END_TEST

/* Only the ASN database: no country column. */
START_TEST(asn_only)
{
	static const char *const files[] = { ADB };
	lbt_err err;
	lbt_geoip *g = lbt_geoip_open(files, 1, NULL, &err);
	lbt_geoip_info i;

	ck_assert_int_eq(lbt_geoip_has_country(g), 0);
	ck_assert_int_eq(lbt_geoip_has_asn(g), 1);
	look(g, "203.0.113.200", &i);
	ck_assert_int_eq(i.has_country, 0);
	ck_assert_uint_eq(i.asn, 64496);
	lbt_geoip_free(g);
}
END_TEST

/* Found in a directory, sorted by name: asn before country. */
START_TEST(scan)
{
	static const char *const dirs[] = { "/nonexistent", DIR, NULL };
	lbt_err err;
	lbt_geoip *g = lbt_geoip_open(NULL, 0, dirs, &err);

	ck_assert_uint_eq(lbt_geoip_count(g), 2);
	ck_assert_str_eq(lbt_geoip_path(g, 0), ADB);
	ck_assert_str_eq(lbt_geoip_path(g, 1), CDB);
	lbt_geoip_free(g);
}
END_TEST

/* No database anywhere: not an error, nothing found. */
START_TEST(none)
{
	static const char *const dirs[] = { LBT_TEST_DATA "/nonexistent", NULL };
	lbt_err err;
	lbt_geoip *g = lbt_geoip_open(NULL, 0, dirs, &err);
	lbt_geoip_info i;

	ck_assert_ptr_nonnull(g);
	ck_assert_uint_eq(lbt_geoip_count(g), 0);
	ck_assert_int_eq(lbt_geoip_has_country(g), 0);
	ck_assert_int_eq(lbt_geoip_has_asn(g), 0);
	ck_assert_int_eq(look(g, "203.0.113.7", &i), 0);
	lbt_geoip_free(g);
	lbt_geoip_free(NULL);
	ck_assert_int_eq(lbt_geoip_has_asn(NULL), 0);
}
END_TEST

/* A named file that is missing or not a database is an error naming it. */
START_TEST(bad_file)
{
	static const char *const missing[] = { CDB, DIR "/missing.mmdb" };
	static const char *const notdb[] = { DIR "/make-mmdb.pl" };
	lbt_err err;

	ck_assert_ptr_null(lbt_geoip_open(missing, 2, NULL, &err));
	ck_assert_str_eq(err.file, DIR "/missing.mmdb");
	ck_assert_ptr_nonnull(strstr(err.msg, "No such file"));
	ck_assert_ptr_null(lbt_geoip_open(notdb, 1, NULL, &err));
	ck_assert_str_eq(err.file, DIR "/make-mmdb.pl");
	ck_assert_ptr_nonnull(strstr(err.msg, "cannot open GeoIP database"));
}
END_TEST

/* The geoip suite. */
static Suite *geoip_suite(void)
{
	Suite *s = suite_create("geoip");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, both);
	tcase_add_test(tc, asn_only);
	tcase_add_test(tc, scan);
	tcase_add_test(tc, none);
	tcase_add_test(tc, bad_file);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(geoip_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
