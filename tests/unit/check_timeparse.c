/*
 * check_timeparse.c - unit tests for lib/base/timeparse.c.
 * Expected epochs were computed with Python's calendar.timegm() and
 * `TZ=... date -d ... +%s`; days_from_civil is also checked against timegm().
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lbt/timeparse.h"

#define S(x) (x), strlen(x)
#define US(s) ((int64_t)(s) * 1000000)

/* days_from_civil against hand values and timegm() over 500 years. */
START_TEST(days)
{
	ck_assert_int_eq(lbt_days_from_civil(1970, 1, 1), 0);
	ck_assert_int_eq(lbt_days_from_civil(2000, 2, 29), 11016);
	ck_assert_int_eq(lbt_days_from_civil(1969, 12, 31), -1);
	for (int y = 1800; y < 2300; y += 3)
		for (int m = 1; m <= 12; m++) {
			struct tm tm = { .tm_year = y - 1900, .tm_mon = m - 1, .tm_mday = 28 };

			ck_assert_int_eq(lbt_days_from_civil(y, m, 28) * 86400, (int64_t)timegm(&tm));
		}
}
END_TEST

/* Month abbreviations are exact 3-letter English, case-sensitive. */
START_TEST(months)
{
	ck_assert_int_eq(lbt_month_from_abbr("Jan"), 1);
	ck_assert_int_eq(lbt_month_from_abbr("Nov/2025"), 11);
	ck_assert_int_eq(lbt_month_from_abbr("Dec"), 12);
	ck_assert_int_eq(lbt_month_from_abbr("nov"), 0);
	ck_assert_int_eq(lbt_month_from_abbr("Nox"), 0);
	ck_assert_int_eq(lbt_month_from_abbr(""), 0);
}
END_TEST

/* HAProxy %t/%tr in UTC and with a fixed offset. */
START_TEST(clf_local)
{
	int64_t us = 0;
	lbt_tz *tz;

	ck_assert_int_eq(lbt_time_parse_clf_local(S("01/Nov/2025:23:24:01.123"), NULL, &us), 0);
	ck_assert_int_eq(us, US(1762039441) + 123000);
	ck_assert_int_eq(lbt_time_parse_clf_local(S("01/Nov/2025:23:24:01"), NULL, &us), 0);
	ck_assert_int_eq(us, US(1762039441));
	tz = lbt_tz_new("+01:00", NULL);
	ck_assert_ptr_nonnull(tz);
	ck_assert_int_eq(lbt_time_parse_clf_local(S("01/Nov/2025:23:24:01.123"), tz, &us), 0);
	ck_assert_int_eq(us, US(1762035841) + 123000);
	lbt_tz_free(tz);
}
END_TEST

/* Strict shapes: bad day, month, hour, separators, trailing junk. */
START_TEST(clf_bad)
{
	static const char *const bad[] = {
		"32/Nov/2025:23:24:01.123", "31/Nov/2025:23:24:01", "00/Nov/2025:23:24:01",
		"29/Feb/2025:00:00:00", "01/Nox/2025:23:24:01", "01/nov/2025:23:24:01",
		"01/Nov/2025:24:00:00", "01/Nov/2025:23:60:00", "01/Nov/2025:23:24:61",
		"01/Nov/2025 23:24:01", "01/Nov/2025:23:24:01.", "01/Nov/2025:23:24:01.12x",
		"01/Nov/2025:23:24:01.123 ", "1/Nov/2025:23:24:01", "01/Nov/2025:23:24:0",
		"01/Nov/25:23:24:01.123", "",
	};
	int64_t us;

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(lbt_time_parse_clf_local(S(bad[i]), NULL, &us) == -1, "accepted '%s'", bad[i]);
	ck_assert_int_eq(lbt_time_parse_clf_local(S("29/Feb/2024:00:00:00"), NULL, &us), 0);
	ck_assert_int_eq(us, US(1709164800));
}
END_TEST

/* %T %Tl %trg, NGINX $time_local. */
START_TEST(clf_zoned)
{
	int64_t us;

	ck_assert_int_eq(lbt_time_parse_clf_zoned(S("01/Nov/2025:22:24:01 +0000"), &us), 0);
	ck_assert_int_eq(us, US(1762035841));
	ck_assert_int_eq(lbt_time_parse_clf_zoned(S("01/Nov/2025:23:24:01 +0100"), &us), 0);
	ck_assert_int_eq(us, US(1762035841));
	ck_assert_int_eq(lbt_time_parse_clf_zoned(S("01/Nov/2025:17:24:01 -0500"), &us), 0);
	ck_assert_int_eq(us, US(1762035841));
	ck_assert_int_eq(lbt_time_parse_clf_zoned(S("01/Nov/2025:23:24:01.500 +0100"), &us), 0);
	ck_assert_int_eq(us, US(1762035841) + 500000);
	ck_assert_int_eq(lbt_time_parse_clf_zoned(S("01/Nov/2025:23:24:01"), &us), -1);
	ck_assert_int_eq(lbt_time_parse_clf_zoned(S("01/Nov/2025:23:24:01 +01:00"), &us), -1);
	ck_assert_int_eq(lbt_time_parse_clf_zoned(S("01/Nov/2025:23:24:01  +0100"), &us), -1);
	ck_assert_int_eq(lbt_time_parse_clf_zoned(S("01/Nov/2025:23:24:01 +0160"), &us), -1);
	ck_assert_int_eq(lbt_time_parse_clf_zoned(S("32/Nov/2025:23:24:01 +0100"), &us), -1);
	ck_assert_int_eq(lbt_time_parse_clf_zoned(S("01/Nov/2025:23:24:01 +0100]"), &us), -1);
}
END_TEST

/* ISO 8601 / RFC 3339 variants. */
START_TEST(iso)
{
	int64_t us;

	ck_assert_int_eq(lbt_time_parse_iso(S("2025-11-01T22:24:01Z"), NULL, &us), 0);
	ck_assert_int_eq(us, US(1762035841));
	ck_assert_int_eq(lbt_time_parse_iso(S("2025-11-01T23:24:01.123456+01:00"), NULL, &us), 0);
	ck_assert_int_eq(us, US(1762035841) + 123456);
	ck_assert_int_eq(lbt_time_parse_iso(S("2025-11-01T22:24:01+0000"), NULL, &us), 0);
	ck_assert_int_eq(us, US(1762035841));
	ck_assert_int_eq(lbt_time_parse_iso(S("2025-11-01T17:24:01.5-05:00"), NULL, &us), 0);
	ck_assert_int_eq(us, US(1762035841) + 500000);
	ck_assert_int_eq(lbt_time_parse_iso(S("2025-11-01T22:24:01.123456789Z"), NULL, &us), 0);
	ck_assert_int_eq(us, US(1762035841) + 123456);
	ck_assert_int_eq(lbt_time_parse_iso(S("2025-11-01 22:24:01"), NULL, &us), 0);
	ck_assert_int_eq(us, US(1762035841));
	ck_assert_int_eq(lbt_time_parse_iso(S("2025-11-01T22:24:01"), NULL, &us), 0);
	ck_assert_int_eq(us, US(1762035841));
	ck_assert_int_eq(lbt_time_parse_iso(S("2025-11-01T22:24:01+01"), NULL, &us), 0);
	ck_assert_int_eq(us, US(1762035841 - 3600));
	ck_assert_int_eq(lbt_time_parse_iso(S("2025-11-01T22:24:01.Z"), NULL, &us), -1);
	ck_assert_int_eq(lbt_time_parse_iso(S("2025-11-01T22:24:01 Z"), NULL, &us), -1);
	ck_assert_int_eq(lbt_time_parse_iso(S("2025-11-01T22:24:01Zx"), NULL, &us), -1);
	ck_assert_int_eq(lbt_time_parse_iso(S("2025-13-01T22:24:01Z"), NULL, &us), -1);
	ck_assert_int_eq(lbt_time_parse_iso(S("2025-11-31T22:24:01Z"), NULL, &us), -1);
	ck_assert_int_eq(lbt_time_parse_iso(S("2025-11-01X22:24:01Z"), NULL, &us), -1);
	ck_assert_int_eq(lbt_time_parse_iso(S("2025-11-01T22:24"), NULL, &us), -1);
	ck_assert_int_eq(lbt_time_parse_iso(S("2025-11-01T22:24:01+1:00"), NULL, &us), -1);
}
END_TEST

/* Unix seconds with optional fraction. */
START_TEST(epoch)
{
	int64_t us;

	ck_assert_int_eq(lbt_time_parse_epoch(S("1762035841"), &us), 0);
	ck_assert_int_eq(us, US(1762035841));
	ck_assert_int_eq(lbt_time_parse_epoch(S("1762035841.123"), &us), 0);
	ck_assert_int_eq(us, US(1762035841) + 123000);
	ck_assert_int_eq(lbt_time_parse_epoch(S("1762035841.123456"), &us), 0);
	ck_assert_int_eq(us, US(1762035841) + 123456);
	ck_assert_int_eq(lbt_time_parse_epoch(S("0"), &us), 0);
	ck_assert_int_eq(us, 0);
	ck_assert_int_eq(lbt_time_parse_epoch(S(""), &us), -1);
	ck_assert_int_eq(lbt_time_parse_epoch(S(".5"), &us), -1);
	ck_assert_int_eq(lbt_time_parse_epoch(S("-1"), &us), -1);
	ck_assert_int_eq(lbt_time_parse_epoch(S("17620358x1"), &us), -1);
	ck_assert_int_eq(lbt_time_parse_epoch(S("1762035841."), &us), -1);
	ck_assert_int_eq(lbt_time_parse_epoch(S("1234567890123"), &us), -1);
}
END_TEST

/* RFC 3164 / journald short, with year inference. */
START_TEST(bsd)
{
	int64_t us, ref = 1762039441;   /* 2025-11-01T23:24:01Z */
	int64_t jan = 1767225600 + 86400 * 5;   /* 2026-01-06T00:00:00Z */

	ck_assert_int_eq(lbt_time_parse_bsd(S("Nov  1 23:24:01"), NULL, ref, &us), 0);
	ck_assert_int_eq(us, US(1762039441));
	ck_assert_int_eq(lbt_time_parse_bsd(S("Nov 01 23:24:01"), NULL, ref, &us), 0);
	ck_assert_int_eq(us, US(1762039441));
	ck_assert_int_eq(lbt_time_parse_bsd(S("Nov 1 23:24:01"), NULL, ref, &us), 0);
	ck_assert_int_eq(us, US(1762039441));
	/* December stamp read in January: previous year */
	ck_assert_int_eq(lbt_time_parse_bsd(S("Dec 31 23:00:00"), NULL, jan, &us), 0);
	ck_assert_int_eq(us, US(1767222000));
	/* a January stamp read in January: same year (2026-01-02T00:00:00Z) */
	ck_assert_int_eq(lbt_time_parse_bsd(S("Jan  2 00:00:00"), NULL, jan, &us), 0);
	ck_assert_int_eq(us, US(1767312000));
	/* Feb 29 read in 2025 goes back to 2024 */
	ck_assert_int_eq(lbt_time_parse_bsd(S("Feb 29 00:00:00"), NULL, ref, &us), 0);
	ck_assert_int_eq(us, US(1709164800));
	ck_assert_int_eq(lbt_time_parse_bsd(S("Nov 31 23:24:01"), NULL, ref, &us), -1);
	ck_assert_int_eq(lbt_time_parse_bsd(S("Nox  1 23:24:01"), NULL, ref, &us), -1);
	ck_assert_int_eq(lbt_time_parse_bsd(S("Nov  1 23:24:01 "), NULL, ref, &us), -1);
	ck_assert_int_eq(lbt_time_parse_bsd(S("Nov  1 24:24:01"), NULL, ref, &us), -1);
	ck_assert_int_eq(lbt_time_parse_bsd(S("Nov  0 23:24:01"), NULL, ref, &us), -1);
	ck_assert_int_eq(lbt_time_parse_bsd(S("Nov 1  23:24:01"), NULL, ref, &us), -1);
	ck_assert_int_eq(lbt_time_parse_bsd(S("Nov  1 23-24:01"), NULL, ref, &us), -1);
}
END_TEST

/* Europe/Paris around both 2025 DST changes, first occurrence when ambiguous. */
START_TEST(tz_paris)
{
	lbt_err err;
	lbt_tz *tz = lbt_tz_new("Europe/Paris", &err);
	int64_t us;

	ck_assert_ptr_nonnull(tz);
	/* winter +01:00, summer +02:00 */
	ck_assert_int_eq(lbt_tz_to_utc(tz, 2025, 11, 1, 23, 24, 1), 1762035841);
	ck_assert_int_eq(lbt_tz_to_utc(tz, 2025, 7, 1, 14, 0, 0), 1751371200);
	/* 2025-03-30: 01:30 CET = 00:30Z, 03:30 CEST = 01:30Z, 02:30 does not exist */
	ck_assert_int_eq(lbt_tz_to_utc(tz, 2025, 3, 30, 1, 30, 0), 1743294600);
	ck_assert_int_eq(lbt_tz_to_utc(tz, 2025, 3, 30, 3, 30, 0), 1743298200);
	ck_assert_int_eq(lbt_tz_to_utc(tz, 2025, 3, 30, 2, 30, 0), 1743298200);
	/* 2025-10-26: 02:30 happens twice (00:30Z and 01:30Z): the first wins */
	ck_assert_int_eq(lbt_tz_to_utc(tz, 2025, 10, 26, 2, 30, 0), 1761438600);
	ck_assert_int_eq(lbt_tz_to_utc(tz, 2025, 10, 26, 1, 30, 0), 1761438600 - 3600);
	ck_assert_int_eq(lbt_tz_to_utc(tz, 2025, 10, 26, 3, 30, 0), 1761442200 + 3600);
	/* cached second call gives the same */
	ck_assert_int_eq(lbt_tz_to_utc(tz, 2025, 10, 26, 2, 59, 59), 1761438600 + 1799);
	ck_assert_int_eq(lbt_time_parse_clf_local(S("26/Oct/2025:02:30:00.250"), tz, &us), 0);
	ck_assert_int_eq(us, US(1761438600) + 250000);
	ck_assert_int_eq(lbt_tz_offset_at(tz, 1761438600), 7200);
	ck_assert_int_eq(lbt_tz_offset_at(tz, 1761442200), 3600);
	lbt_tz_free(tz);
}
END_TEST

/* America/New_York across 2025 changes; the caller's TZ is left as it was. */
START_TEST(tz_newyork)
{
	lbt_tz *tz;

	setenv("TZ", "Asia/Tokyo", 1);
	tz = lbt_tz_new("America/New_York", NULL);
	ck_assert_ptr_nonnull(tz);
	/* 2025-11-02 01:30 is ambiguous: EDT first (05:30Z) */
	ck_assert_int_eq(lbt_tz_to_utc(tz, 2025, 11, 2, 1, 30, 0), 1762061400);
	ck_assert_int_eq(lbt_tz_to_utc(tz, 2025, 11, 2, 2, 30, 0), 1762068600);
	/* 2025-03-09 02:30 does not exist: read as EST, 07:30Z */
	ck_assert_int_eq(lbt_tz_to_utc(tz, 2025, 3, 9, 2, 30, 0), 1741505400);
	ck_assert_int_eq(lbt_tz_to_utc(tz, 2025, 7, 1, 8, 0, 0), 1751371200);
	ck_assert_str_eq(getenv("TZ"), "Asia/Tokyo");
	lbt_tz_free(tz);
	unsetenv("TZ");
	tz = lbt_tz_new("America/New_York", NULL);
	ck_assert_int_eq(lbt_tz_to_utc(tz, 2025, 7, 1, 8, 0, 0), 1751371200);
	ck_assert_ptr_null(getenv("TZ"));
	lbt_tz_free(tz);
}
END_TEST

/* UTC names, fixed offsets and unknown zones. */
/* The offset of zone `name` at UTC instant t as the C library says it
 * (this test is a program: it may set TZ). */
static int libc_offset(const char *name, int64_t t)
{
	char val[80];
	time_t tt = (time_t)t;
	struct tm tm;

	snprintf(val, sizeof val, ":%s", name);
	setenv("TZ", val, 1);
	tzset();
	ck_assert_ptr_nonnull(localtime_r(&tt, &tm));
	return (int)tm.tm_gmtoff;
}

/* The table read from the zoneinfo file agrees with localtime_r every 6 h
 * from 1970 to 2099 (after 2037 from the footer's rule): DST starts and
 * ends, half-hour zones, southern summers, a zone without DST. */
START_TEST(tz_table)
{
	static const char *const zones[] = { "Europe/Paris", "America/New_York",
		"Australia/Sydney", "Asia/Kolkata", "Australia/Lord_Howe", "America/Sao_Paulo" };
	const char *old = getenv("TZ");

	for (size_t z = 0; z < sizeof zones / sizeof zones[0]; z++) {
		lbt_tz *tz = lbt_tz_new(zones[z], NULL);

		ck_assert_ptr_nonnull(tz);
		for (int64_t t = 0; t < 4102444800LL; t += 6 * 3600 + 7)
			ck_assert_msg(lbt_tz_offset_at(tz, t) == libc_offset(zones[z], t),
			    "%s at %lld: %d, libc %d", zones[z], (long long)t, lbt_tz_offset_at(tz, t),
			    libc_offset(zones[z], t));
		lbt_tz_free(tz);
	}
	if (old != NULL)
		setenv("TZ", old, 1);
	else
		unsetenv("TZ");
	tzset();
}
END_TEST

START_TEST(tz_names)
{
	lbt_err err;
	lbt_tz *tz;

	ck_assert_int_eq(lbt_tz_to_utc(NULL, 2025, 11, 1, 23, 24, 1), 1762039441);
	tz = lbt_tz_new("UTC", &err);
	ck_assert_int_eq(lbt_tz_to_utc(tz, 2025, 11, 1, 23, 24, 1), 1762039441);
	lbt_tz_free(tz);
	tz = lbt_tz_new(NULL, &err);
	ck_assert_ptr_nonnull(tz);
	lbt_tz_free(tz);
	tz = lbt_tz_new("Etc/UTC", &err);
	ck_assert_int_eq(lbt_tz_to_utc(tz, 2025, 11, 1, 23, 24, 1), 1762039441);
	lbt_tz_free(tz);
	tz = lbt_tz_new("-0530", &err);
	ck_assert_int_eq(lbt_tz_to_utc(tz, 2025, 11, 1, 23, 24, 1), 1762039441 + 19800);
	ck_assert_int_eq(lbt_tz_offset_at(tz, 0), -19800);
	lbt_tz_free(tz);
	ck_assert_ptr_null(lbt_tz_new("Mars/Olympus", &err));
	ck_assert_str_eq(err.msg, "unknown time zone 'Mars/Olympus'");
	ck_assert_ptr_null(lbt_tz_new("../../etc/passwd", &err));
	ck_assert_ptr_null(lbt_tz_new("/etc/passwd", &err));
	ck_assert_ptr_null(lbt_tz_new("Europe", &err));
	ck_assert_ptr_null(lbt_tz_new("+25:00", &err));
	lbt_tz_free(NULL);
}
END_TEST

/* Formatting: ms, µs, offsets, before the epoch, truncation. */
START_TEST(format)
{
	char buf[64];

	ck_assert_uint_eq(lbt_time_format(US(1762039441) + 123000, 0, buf, sizeof buf), 24);
	ck_assert_str_eq(buf, "2025-11-01T23:24:01.123Z");
	lbt_time_format(US(1762039441) + 123456, 0, buf, sizeof buf);
	ck_assert_str_eq(buf, "2025-11-01T23:24:01.123456Z");
	lbt_time_format(US(1762035841), 3600, buf, sizeof buf);
	ck_assert_str_eq(buf, "2025-11-01T23:24:01.000+01:00");
	lbt_time_format(US(1762035841), -19800, buf, sizeof buf);
	ck_assert_str_eq(buf, "2025-11-01T16:54:01.000-05:30");
	lbt_time_format(-1, 0, buf, sizeof buf);
	ck_assert_str_eq(buf, "1969-12-31T23:59:59.999999Z");
	lbt_time_format(0, 0, buf, sizeof buf);
	ck_assert_str_eq(buf, "1970-01-01T00:00:00.000Z");
	ck_assert_uint_eq(lbt_time_format(0, 0, buf, 5), 4);
	ck_assert_str_eq(buf, "1970");
}
END_TEST

/* Whole seconds without decimals; a fraction as milliseconds, truncated. */
START_TEST(format_s)
{
	char buf[64];

	ck_assert_uint_eq(lbt_time_format_s(US(1762039441), buf, sizeof buf), 20);
	ck_assert_str_eq(buf, "2025-11-01T23:24:01Z");
	lbt_time_format_s(US(1762039441) + 500000, buf, sizeof buf);
	ck_assert_str_eq(buf, "2025-11-01T23:24:01.500Z");
	lbt_time_format_s(US(1762039441) + 123456, buf, sizeof buf);
	ck_assert_str_eq(buf, "2025-11-01T23:24:01.123Z");
	lbt_time_format_s(-1000000, buf, sizeof buf);
	ck_assert_str_eq(buf, "1969-12-31T23:59:59Z");
	lbt_time_format_s(-1, buf, sizeof buf);
	ck_assert_str_eq(buf, "1969-12-31T23:59:59.999Z");
}
END_TEST

/* The timeparse suite. */
static Suite *timeparse_suite(void)
{
	Suite *s = suite_create("timeparse");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, days);
	tcase_add_test(tc, format_s);
	tcase_add_test(tc, months);
	tcase_add_test(tc, clf_local);
	tcase_add_test(tc, clf_bad);
	tcase_add_test(tc, clf_zoned);
	tcase_add_test(tc, iso);
	tcase_add_test(tc, epoch);
	tcase_add_test(tc, bsd);
	tcase_add_test(tc, tz_paris);
	tcase_add_test(tc, tz_newyork);
	tcase_add_test(tc, tz_table);
	tcase_add_test(tc, tz_names);
	tcase_add_test(tc, format);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite; exit status 1 when a check failed. */
int main(void)
{
	SRunner *sr = srunner_create(timeparse_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
