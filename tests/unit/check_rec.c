/*
 * check_rec.c - unit tests for lib/base/rec.c (field vocabulary, clear, format).
 */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "lbt/rec.h"

/* The names, in enum order, as the brief and TSV header spell them. */
static const char *const names[] = {
	"time", "lb", "client", "port", "frontend", "backend", "server", "method",
	"path", "query", "host", "version", "status", "bytes", "Th", "Ti", "Tq",
	"TR", "Tw", "Tc", "Tr", "Ta", "Tt", "term", "ac", "fc", "bc", "sc", "rc",
	"sq", "bq", "ua", "key", "msg", "event", "level", "request", "clock", "tier",
	"client_from", "conn", "file", "line",
};

/* Every field has its name and looks itself up. */
START_TEST(names_roundtrip)
{
	ck_assert_int_eq(sizeof names / sizeof names[0], LBT_F_COUNT);
	for (int f = 0; f < LBT_F_COUNT; f++) {
		ck_assert_str_eq(lbt_field_name((lbt_field)f), names[f]);
		ck_assert_int_eq(lbt_field_lookup(names[f], strlen(names[f])), f);
	}
	ck_assert_str_eq(lbt_field_name(LBT_F_COUNT), "?");
}
END_TEST

/* Lookup is exact and case-sensitive. */
START_TEST(lookup_exact)
{
	ck_assert_int_eq(lbt_field_lookup("TR", 2), LBT_F_TR);
	ck_assert_int_eq(lbt_field_lookup("Tr", 2), LBT_F_TRESP);
	ck_assert_int_eq(lbt_field_lookup("tr", 2), -1);
	ck_assert_int_eq(lbt_field_lookup("Time", 4), -1);
	ck_assert_int_eq(lbt_field_lookup("timex", 5), -1);
	ck_assert_int_eq(lbt_field_lookup("timex", 4), LBT_F_TIME);
	ck_assert_int_eq(lbt_field_lookup("tim", 3), -1);
	ck_assert_int_eq(lbt_field_lookup("", 0), -1);
}
END_TEST

/* Clear: nothing present, numbers -1, strings empty, kind and clock reset. */
START_TEST(clear)
{
	lbt_rec r;

	memset(&r, 0x5a, sizeof r);
	lbt_rec_clear(&r);
	ck_assert(r.have == 0);
	ck_assert_int_eq(r.kind, LBT_KIND_REQUEST);
	ck_assert_int_eq(r.clock, LBT_CLOCK_NONE);
	ck_assert_int_eq(r.status, -1);
	ck_assert_int_eq(r.port, -1);
	ck_assert_int_eq(r.tresp, -1);
	ck_assert_int_eq(r.bq, -1);
	ck_assert_int_eq(r.bytes, -1);
	ck_assert_int_eq(r.client.family, 0);
	ck_assert_uint_eq(r.path.n, 0);
	ck_assert_ptr_nonnull(r.path.p);
	ck_assert_uint_eq(r.msg.n, 0);
	ck_assert_ptr_null(r.file);
	ck_assert_uint_eq(r.event.n + r.level.n + r.request.n, 0);
}
END_TEST

/* Numeric fields and accessors point at the right members. */
START_TEST(accessors)
{
	lbt_rec r;

	lbt_rec_clear(&r);
	ck_assert(lbt_rec_i32(&r, LBT_F_STATUS) == &r.status);
	ck_assert(lbt_rec_i32(&r, LBT_F_TR) == &r.tr);
	ck_assert(lbt_rec_i32(&r, LBT_F_TRESP) == &r.tresp);
	ck_assert(lbt_rec_i32(&r, LBT_F_PORT) == &r.port);
	ck_assert(lbt_rec_i32(&r, LBT_F_SQ) == &r.sq);
	ck_assert_ptr_null(lbt_rec_i32(&r, LBT_F_BYTES));
	ck_assert_ptr_null(lbt_rec_i32(&r, LBT_F_PATH));
	ck_assert(lbt_rec_str(&r, LBT_F_PATH) == &r.path);
	ck_assert(lbt_rec_str(&r, LBT_F_LB) == &r.lb);
	ck_assert(lbt_rec_str(&r, LBT_F_TERM) == &r.term);
	ck_assert(lbt_rec_str(&r, LBT_F_MSG) == &r.msg);
	ck_assert_ptr_null(lbt_rec_str(&r, LBT_F_FILE));
	ck_assert_ptr_null(lbt_rec_str(&r, LBT_F_STATUS));
	ck_assert(lbt_field_is_numeric(LBT_F_STATUS));
	ck_assert(lbt_field_is_numeric(LBT_F_BYTES));
	ck_assert(lbt_field_is_numeric(LBT_F_LINE));
	ck_assert(lbt_field_is_numeric(LBT_F_TT));
	ck_assert(!lbt_field_is_numeric(LBT_F_TIME));
	ck_assert(!lbt_field_is_numeric(LBT_F_CLIENT));
	ck_assert(!lbt_field_is_numeric(LBT_F_TERM));
	ck_assert(!lbt_field_is_numeric(LBT_F_COUNT));
}
END_TEST

/* Format one field of r into a fresh buffer and compare. */
static void expect(const lbt_rec *r, lbt_field f, const char *want)
{
	char buf[128];
	size_t n = lbt_rec_format_field(r, f, buf, sizeof buf);

	ck_assert_str_eq(buf, want);
	ck_assert_uint_eq(n, strlen(want));
}

/* Every field type prints; absent prints "". */
START_TEST(format)
{
	lbt_rec r;
	static const uint8_t v6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };

	lbt_rec_clear(&r);
	for (int f = 0; f < LBT_F_COUNT; f++)
		expect(&r, (lbt_field)f, "");
	/* 2025-11-01T23:24:01Z = 1762039441 s (python calendar.timegm) */
	r.time_us = 1762039441LL * 1000000 + 123000;
	r.client.family = 4;
	memset(r.client.b, 0, 16);
	r.client.b[10] = r.client.b[11] = 0xff;
	r.client.b[12] = 203; r.client.b[13] = 0; r.client.b[14] = 113; r.client.b[15] = 7;
	r.port = 51234;
	r.status = -1;
	r.bytes = 1234567890123LL;
	r.path = lbt_str_make("/ping/xyz?q", 9);
	r.file = "a.log";
	r.line = 42;
	r.have = LBT_BIT(LBT_F_TIME) | LBT_BIT(LBT_F_CLIENT) | LBT_BIT(LBT_F_PORT) |
	    LBT_BIT(LBT_F_STATUS) | LBT_BIT(LBT_F_BYTES) | LBT_BIT(LBT_F_PATH) |
	    LBT_BIT(LBT_F_FILE) | LBT_BIT(LBT_F_LINE);
	expect(&r, LBT_F_TIME, "2025-11-01T23:24:01.123Z");
	expect(&r, LBT_F_CLIENT, "203.0.113.7");
	expect(&r, LBT_F_PORT, "51234");
	expect(&r, LBT_F_STATUS, "-1");
	expect(&r, LBT_F_BYTES, "1234567890123");
	expect(&r, LBT_F_PATH, "/ping/xyz");
	expect(&r, LBT_F_FILE, "a.log");
	expect(&r, LBT_F_LINE, "42");
	expect(&r, LBT_F_QUERY, "");
	r.time_us = 1762039441LL * 1000000 + 123456;
	expect(&r, LBT_F_TIME, "2025-11-01T23:24:01.123456Z");
	r.time_us = 1762039441LL * 1000000;
	expect(&r, LBT_F_TIME, "2025-11-01T23:24:01.000Z");
	r.time_us = 1762039441LL * 1000000 + 1;
	expect(&r, LBT_F_TIME, "2025-11-01T23:24:01.000001Z");
	r.client.family = 6;
	memcpy(r.client.b, v6, 16);
	expect(&r, LBT_F_CLIENT, "2001:db8::1");
}
END_TEST

/* Small buffers truncate with a NUL; size 0 writes nothing. */
START_TEST(format_truncate)
{
	lbt_rec r;
	char buf[5] = "zzzz";

	lbt_rec_clear(&r);
	r.ua = lbt_str_make("curl/8.5.0", 10);
	r.have = LBT_BIT(LBT_F_UA);
	ck_assert_uint_eq(lbt_rec_format_field(&r, LBT_F_UA, buf, sizeof buf), 4);
	ck_assert_str_eq(buf, "curl");
	ck_assert_uint_eq(lbt_rec_format_field(&r, LBT_F_UA, buf, 0), 0);
	ck_assert_str_eq(buf, "curl");
	ck_assert_uint_eq(lbt_rec_format_field(&r, LBT_F_COUNT, buf, sizeof buf), 0);
	ck_assert_str_eq(buf, "");
}
END_TEST

/* Clock names print and look themselves up; "clock" prints the name. */
START_TEST(clocks)
{
	static const char *const want[] = { "none", "accept", "request", "end", "syslog",
		"inferred" };
	lbt_rec r;

	for (int c = 0; c <= LBT_CLOCK_INFERRED; c++) {
		ck_assert_str_eq(lbt_clock_name((lbt_clock)c), want[c]);
		ck_assert_int_eq(lbt_clock_lookup(want[c], strlen(want[c])), c);
	}
	ck_assert_str_eq(lbt_clock_name((lbt_clock)(LBT_CLOCK_INFERRED + 1)), "?");
	ck_assert_int_eq(lbt_clock_lookup("Syslog", 6), -1);
	ck_assert_int_eq(lbt_clock_lookup("syslo", 5), -1);
	lbt_rec_clear(&r);
	r.clock = LBT_CLOCK_INFERRED;
	expect(&r, LBT_F_CLOCK, "");
	r.have = LBT_BIT(LBT_F_CLOCK);
	expect(&r, LBT_F_CLOCK, "inferred");
	ck_assert(!lbt_field_is_numeric(LBT_F_CLOCK));
	ck_assert_ptr_null(lbt_rec_str(&r, LBT_F_CLOCK));
	ck_assert(lbt_rec_str(&r, LBT_F_EVENT) == &r.event);
	ck_assert(lbt_rec_str(&r, LBT_F_LEVEL) == &r.level);
	ck_assert(lbt_rec_str(&r, LBT_F_REQUEST) == &r.request);
}
END_TEST

/* The rec suite. */
static Suite *rec_suite(void)
{
	Suite *s = suite_create("rec");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, names_roundtrip);
	tcase_add_test(tc, lookup_exact);
	tcase_add_test(tc, clear);
	tcase_add_test(tc, accessors);
	tcase_add_test(tc, format);
	tcase_add_test(tc, format_truncate);
	tcase_add_test(tc, clocks);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite; exit status 1 when a check failed. */
int main(void)
{
	SRunner *sr = srunner_create(rec_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
