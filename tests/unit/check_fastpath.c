/*
 * check_fastpath.c - the hand-written fast paths of the record-reading path
 * against the slow, obvious methods they replaced, on many generated inputs:
 *
 *   lbt_addr_format                    glibc inet_ntop (snprintf for IPv4)
 *   lbt_addr_parse (IPv6)              glibc inet_pton
 *   default key (UUID)                 the PCRE2 patterns key.c used before
 *   lbt_time_parse_clf_cached          lbt_time_parse_clf_local / _zoned
 *   lbt_time_format                    snprintf of gmtime_r's fields
 *   lbt_rate (per-key bucket window)   counts kept by the test
 *
 * Inputs come from a fixed-seed generator, so a failure is repeatable; the
 * first differing input is printed by the failing assertion.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <arpa/inet.h>
#include <check.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lbt/addr.h"
#include "lbt/key.h"
#include "lbt/rate.h"
#include "lbt/timeparse.h"

/* xorshift64*: the tests' own generator (no global rand state). */
static uint64_t next(uint64_t *st)
{
	*st ^= *st >> 12;
	*st ^= *st << 25;
	*st ^= *st >> 27;
	return *st * 0x2545F4914F6CDD1Dull;
}

/* A random integer in [0, n). */
static unsigned pick(uint64_t *st, unsigned n)
{
	return (unsigned)(next(st) >> 33) % n;
}

/* An IPv6 address shaped to hit every case of RFC 5952 text: zero runs of
 * every length, 0xffff, IPv4-compatible and -mapped prefixes. */
static void gen_addr(uint64_t *st, uint8_t b[16])
{
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	for (int i = 0; i < 16; i += 2) {
		unsigned r = pick(st, 5), v = r < 2 ? 0 : r == 2 ? 0xffff : r == 3 ?
		    pick(st, 16) : pick(st, 65536);

		b[i] = (uint8_t)(v >> 8);
		b[i + 1] = (uint8_t)v;
	}
	if (pick(st, 8) == 0)
		memset(b, 0, 10 + pick(st, 3));
	if (pick(st, 8) == 0)
		memcpy(b, mapped, 12);
}

START_TEST(addr_format_as_inet_ntop)
{
	uint64_t st = 1;

	for (int it = 0; it < 200000; it++) {
		lbt_addr a;
		char got[64], want[64];
		size_t size = pick(&st, 4) == 0 ? 1 + pick(&st, 47) : sizeof got;

		gen_addr(&st, a.b);
		a.family = 6;
		lbt_addr_format(&a, got, size);
		if (inet_ntop(AF_INET6, a.b, want, (socklen_t)size) == NULL)
			want[0] = '\0';
		ck_assert_msg(strcmp(got, want) == 0, "'%s' for '%s' (size %zu)", got, want, size);
		a.family = 4;
		lbt_addr_format(&a, got, size);
		snprintf(want, size, "%u.%u.%u.%u", a.b[12], a.b[13], a.b[14], a.b[15]);
		ck_assert_msg(strcmp(got, want) == 0, "'%s' for '%s' (size %zu)", got, want, size);
	}
}
END_TEST

/*
 * Text shaped like IPv6 (and near misses) into buf: groups of 0 to 5 hex
 * digits of either case, colons single, double or triple, sometimes a
 * dotted quad of valid, leading-zero or too large octets, sometimes a
 * stray byte.  @return its length
 */
static size_t gen_v6_text(uint64_t *st, char *buf, size_t cap)
{
	static const char hex[] = "0123456789abcdefABCDEF";
	size_t n = 0, groups = pick(st, 10);

	if (pick(st, 4) == 0)
		n += (size_t)snprintf(buf + n, cap - n, "%s", pick(st, 2) ? "::" : ":");
	for (size_t g = 0; g < groups && n + 12 < cap; g++) {
		for (unsigned d = pick(st, 6); d > 0; d--)
			buf[n++] = hex[pick(st, sizeof hex - 1)];
		if (g + 1 < groups || pick(st, 6) == 0)
			n += (size_t)snprintf(buf + n, cap - n, "%s", pick(st, 8) == 0 ? "::" :
			    pick(st, 40) == 0 ? ":::" : ":");
	}
	if ((groups == 0 || pick(st, 5) == 0) && n + 20 < cap)
		n += (size_t)snprintf(buf + n, cap - n, "%u.%u.%u.%u%s", pick(st, 300),
		    pick(st, 256), pick(st, 2) ? pick(st, 256) : pick(st, 10) * 10, pick(st, 256),
		    pick(st, 20) == 0 ? "." : "");
	if (pick(st, 10) == 0 && n > 0)
		buf[pick(st, (unsigned)n)] = "g. x0:"[pick(st, 6)];
	if (pick(st, 30) == 0 && n + 3 < cap) {      /* a leading zero in the quad */
		memmove(buf + 1, buf, n);
		buf[0] = '0';
		n++;
	}
	buf[n] = '\0';
	return n;
}

/* lbt_addr_parse accepts exactly the text inet_pton accepts, to the same bytes. */
START_TEST(addr_parse_as_inet_pton)
{
	uint64_t st = 0x243f6a8885a308d3ull;
	char buf[96];
	size_t valid = 0, v4 = 0;

	for (int i = 0; i < 150000; i++) {
		uint8_t want[16], b[16];
		lbt_addr a;
		size_t n;
		int ok;

		if (pick(&st, 3) == 0) {        /* a real address as inet_ntop writes it */
			gen_addr(&st, b);
			inet_ntop(AF_INET6, b, buf, sizeof buf);
			n = strlen(buf);
		} else {
			n = gen_v6_text(&st, buf, sizeof buf);
		}
		if (memchr(buf, ':', n) == NULL) {    /* IPv4 text: as inet_pton(AF_INET) */
			ok = inet_pton(AF_INET, buf, want) == 1;
			ck_assert_msg((lbt_addr_parse(buf, n, &a) == 0) == ok, "'%s': %d", buf, ok);
			ck_assert(!ok || (a.family == 4 && memcmp(a.b + 12, want, 4) == 0));
			v4 += ok;
			continue;
		}
		ok = inet_pton(AF_INET6, buf, want) == 1;
		ck_assert_msg((lbt_addr_parse(buf, n, &a) == 0) == ok, "'%s': inet_pton %d", buf, ok);
		valid += ok;
		if (!ok)
			continue;
		ck_assert_msg(memcmp(a.b, want, 16) == 0, "'%s'", buf);
		ck_assert_int_eq(a.family, memcmp(want, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12) ? 6 : 4);
	}
	ck_assert_uint_gt(valid, 30000);
	ck_assert_uint_gt(v4, 2000);
}
END_TEST

/* The default key as key.c found it with PCRE2 before: the UUID pattern,
 * lower-cased, then the slug.  @return 1 with out, or 0 */
static int key_by_regex(pcre2_code *uuid, pcre2_code *slug, pcre2_match_data *md, const char *s,
    size_t n, char *out)
{
	PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);

	if (pcre2_match(uuid, (PCRE2_SPTR)s, n, 0, 0, md, NULL) >= 2) {
		for (size_t i = ov[2]; i < ov[3]; i++)
			out[i - ov[2]] = (char)(s[i] >= 'A' && s[i] <= 'F' ? s[i] + 32 : s[i]);
		out[ov[3] - ov[2]] = '\0';
		return 1;
	}
	if (pcre2_match(slug, (PCRE2_SPTR)s, n, 0, 0, md, NULL) >= 2 && ov[3] > ov[2]) {
		memcpy(out, s + ov[2], ov[3] - ov[2]);
		out[ov[3] - ov[2]] = '\0';
		return 1;
	}
	return 0;
}

/* Compile a pattern for the reference.  @return it (the test fails otherwise) */
static pcre2_code *compile(const char *re)
{
	int code;
	PCRE2_SIZE off;
	pcre2_code *c = pcre2_compile((PCRE2_SPTR)re, PCRE2_ZERO_TERMINATED, 0, &code, &off, NULL);

	ck_assert_ptr_nonnull(c);
	return c;
}

START_TEST(uuid_key_as_regex)
{
	static const char al[] = "0123456789abcdefABCDEF-----gGzZ/._?\x80\xff ";
	static const char *const u[] = { "5bf66975-d4c7-4bf5-bcc8-b8d8a82ea278",
		"5BF66975-D4C7-4BF5-BCC8-B8D8A82EA278" };
	pcre2_code *uuid = compile("(?<![0-9A-Za-z])([0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-"
	    "[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12})(?![0-9A-Za-z])");
	pcre2_code *slug = compile("^(?:[A-Za-z][A-Za-z0-9+.-]*://[^/]*)?(?:/ping)?"
	    "/([A-Za-z0-9_-]{22}/[a-z0-9_-]+)(?=[/?#]|\\z)");
	pcre2_match_data *md = pcre2_match_data_create(4, NULL);
	lbt_err err;
	lbt_key *k = lbt_key_new(NULL, &err);
	uint64_t st = 3;
	int found = 0;

	ck_assert_ptr_nonnull(k);
	for (int it = 0; it < 300000; it++) {
		char s[128], want[128];
		size_t n = pick(&st, 120);
		lbt_str got;
		int r;

		for (size_t i = 0; i < n; i++)
			s[i] = al[pick(&st, sizeof al - 1)];
		if (n > 40 && pick(&st, 2) == 0) {
			size_t at = pick(&st, (unsigned)(n - 36));

			memcpy(s + at, u[pick(&st, 2)], 36);
			if (pick(&st, 2) == 0)
				s[at + pick(&st, 36)] = al[pick(&st, sizeof al - 1)];
		}
		r = lbt_key_extract(k, s, n, &got);
		ck_assert_int_eq(r, key_by_regex(uuid, slug, md, s, n, want));
		if (r) {
			ck_assert_msg(got.n == strlen(want) && memcmp(got.p, want, got.n) == 0,
			    "'%.*s': '%.*s', not '%s'", (int)n, s, (int)got.n, got.p, want);
			found++;
		}
	}
	ck_assert_int_gt(found, 5000);
	lbt_key_free(k);
	pcre2_match_data_free(md);
	pcre2_code_free(uuid);
	pcre2_code_free(slug);
}
END_TEST

/* One CLF stamp, mostly near the last one (the cache hits), sometimes odd. */
static size_t gen_stamp(uint64_t *st, int zoned, char *buf, size_t size)
{
	static const char *const days[] = { "26/Oct/2025:00", "26/Oct/2025:01", "26/Oct/2025:02",
		"30/Mar/2025:01", "30/Mar/2025:02", "31/Dec/2024:23", "29/Feb/2024:23",
		"29/Feb/2025:23" };
	static const char *const secs[] = { "00", "01", "58", "59", "60", "61", "5x", "9" };
	static const char *const fracs[] = { "", ".000", ".5", ".123", ".123456", ".1234567890",
		".", ".12a" };
	static const char *const zones[] = { " +0100", " -0930", " +0000", " +01:00" };
	int n = snprintf(buf, size, "%s:%02u:%s%s%s", days[pick(st, 8)], 57 + pick(st, 4),
	    secs[pick(st, 8)], fracs[pick(st, 8)], zoned ? zones[pick(st, 4)] : "");

	return (size_t)n;
}

START_TEST(clf_cache_as_full_parse)
{
	lbt_err err;
	lbt_tz *zones[] = { NULL, lbt_tz_new("+05:30", &err), lbt_tz_new("Europe/Paris", &err) };
	uint64_t st = 4;
	lbt_time_cache c;
	int ok = 0;

	ck_assert_ptr_nonnull(zones[2]);
	memset(&c, 0, sizeof c);
	for (int it = 0; it < 200000; it++) {
		char s[64];
		int zoned = pick(&st, 4) == 0;
		lbt_tz *tz = zones[(it / 1000) % 3];      /* the zone changes now and then */
		size_t n = gen_stamp(&st, zoned, s, sizeof s);
		int64_t got = 0, want = 0;
		int r1 = lbt_time_parse_clf_cached(&c, s, n, tz, zoned, &got);
		int r2 = zoned ? lbt_time_parse_clf_zoned(s, n, &want) :
		    lbt_time_parse_clf_local(s, n, tz, &want);

		ck_assert_msg(r1 == r2, "'%s': %d, not %d", s, r1, r2);
		if (r1 == 0) {
			ck_assert_msg(got == want, "'%s': %lld, not %lld", s, (long long)got,
			    (long long)want);
			ok++;
		}
	}
	ck_assert_int_gt(ok, 30000);
	for (int i = 0; i < 3; i++)
		lbt_tz_free(zones[i]);
}
END_TEST

/* lbt_time_format as it was: snprintf of the civil fields (gmtime_r here). */
static void format_by_snprintf(int64_t us, int off, char *buf, size_t size)
{
	int64_t local = us + (int64_t)off * 1000000;
	int64_t secs = local / 1000000 - (local % 1000000 < 0), frac = local - secs * 1000000;
	time_t t = (time_t)secs;
	struct tm tm;
	char zone[8] = "Z";
	int a = off < 0 ? -off : off;

	gmtime_r(&t, &tm);
	if (off != 0)
		snprintf(zone, sizeof zone, "%c%02d:%02d", off < 0 ? '-' : '+', a / 3600 % 100,
		    a / 60 % 60);
	if (frac % 1000 == 0)
		snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%03d%s", tm.tm_year + 1900,
		    tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(frac / 1000),
		    zone);
	else
		snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%06d%s", tm.tm_year + 1900,
		    tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)frac, zone);
}

START_TEST(time_format_as_snprintf)
{
	uint64_t st = 5;

	for (int it = 0; it < 200000; it++) {
		/* years 0001 to about 12000: the hand-written path and the snprintf one */
		int64_t us = ((int64_t)(next(&st) % 440000000000ull) - 62100000000ll) * 1000000 +
		    (pick(&st, 2) ? pick(&st, 1000) * 1000 : pick(&st, 1000000));
		int off = pick(&st, 3) == 0 ? 0 : (int)pick(&st, 28 * 3600) - 14 * 3600;
		size_t size = pick(&st, 8) == 0 ? 1 + pick(&st, 40) : 64;
		char got[64], want[64];
		size_t n = lbt_time_format(us, off, got, size);

		format_by_snprintf(us, off, want, size);
		ck_assert_msg(strcmp(got, want) == 0, "%lld %d: '%s', not '%s'", (long long)us, off,
		    got, want);
		ck_assert_uint_eq(n, strlen(want));
	}
}
END_TEST

START_TEST(rate_window_counts)
{
	static const char *const keys[] = { "k1", "k2", "k3" };
	lbt_rate_opts o = LBT_RATE_OPTS_INIT;
	lbt_err err;
	lbt_rate *r;
	int64_t want[3][200] = { { 0 } };
	uint64_t st = 6;

	o.top = 0;
	r = lbt_rate_new(&o, &err);
	ck_assert_ptr_nonnull(r);
	for (int it = 0; it < 20000; it++) {
		/* mostly forward in time, now and then back (files read out of order) */
		int k = (int)pick(&st, 3), s = it < 15000 ? it / 100 + (int)pick(&st, 30) :
		    (int)pick(&st, 200);
		lbt_rec rec;

		s = s < 200 ? s : 199;
		lbt_rec_clear(&rec);
		rec.have = LBT_BIT(LBT_F_TIME) | LBT_BIT(LBT_F_KEY);
		rec.time_us = (1762039440LL - 7 + s) * 1000000 + 1;
		rec.key = lbt_str_make(keys[k], 2);
		ck_assert_int_eq(lbt_rate_add(r, &rec), 0);
		want[k][s]++;
	}
	ck_assert_int_eq(lbt_rate_finish(r, &err), 0);
	ck_assert_uint_eq(lbt_rate_nrows(r), 3);
	for (size_t i = 0; i < 3; i++) {
		const lbt_rate_row *row = lbt_rate_row_at(r, i);
		int k = row->key[1] - '1';
		int64_t total = 0;

		for (int s = 0; s < 200; s++) {
			ck_assert_int_eq(lbt_rate_count(r, i, 1762039440LL - 7 + s), want[k][s]);
			total += want[k][s];
		}
		ck_assert_int_eq(row->total, total);
	}
	lbt_rate_free(r);
}
END_TEST

/* The fastpath suite. */
static Suite *fastpath_suite(void)
{
	Suite *s = suite_create("fastpath");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, addr_format_as_inet_ntop);
	tcase_add_test(tc, addr_parse_as_inet_pton);
	tcase_add_test(tc, uuid_key_as_regex);
	tcase_add_test(tc, clf_cache_as_full_parse);
	tcase_add_test(tc, time_format_as_snprintf);
	tcase_add_test(tc, rate_window_counts);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite; exit status 1 when a check failed. */
int main(void)
{
	SRunner *sr = srunner_create(fastpath_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
