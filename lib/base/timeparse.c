/*
 * timeparse.c - date and time shapes of access logs, to UTC µs.
 * See include/lbt/timeparse.h.
 *
 * Civil dates become days since the epoch by Howard Hinnant's
 * days_from_civil arithmetic, never by mktime() per line.  A named zone
 * (lbt_tz) is read once, by lbt_tz_new, from its TZif file (RFC 8536) into
 * a table of its transitions, the footer's POSIX rule unrolled to 2100;
 * converting is a bisection of that table.  No global state: the C
 * library's zone (TZ, tzset, localtime) is never asked or set, so the
 * parse threads share one lbt_tz, read only (docs/threads.md).
 */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

#include "lbt/timeparse.h"

#define TZ_DIR "/usr/share/zoneinfo"
#define ZONE_MAX (256 * 1024)  /* bytes of a zoneinfo file read (the largest is ~4 KiB) */
#define ZONE_LAST_YEAR 2100    /* the footer's rule is unrolled up to this year */

/* From `at` (UTC seconds) on, the offset `off` (seconds east of UTC). */
struct tz_trans {
	int64_t at;
	int32_t off;
};

/* A POSIX TZ rule "Mm.w.d/time": day d (0 Sunday) of week w (5: the last)
 * of month m, at `time` seconds of local time. */
struct tz_rule {
	int mon, week, wday;
	int32_t time;
};

/* A TZif footer: the standard and DST offsets, when DST starts and ends. */
struct tz_posix {
	int32_t std, dst;
	struct tz_rule start, end;
};

/* Filled once by lbt_tz_new and only read after: one zone serves every
 * parse thread, with no global state (no TZ, no tzset, no localtime). */
struct lbt_tz {
	int kind;             /* 0 UTC, 1 fixed offset, 2 named zone */
	int32_t fixed;        /* offset of a fixed zone, seconds east of UTC */
	int32_t off0;         /* a named zone's offset before its first transition */
	struct tz_trans *tr;  /* its transitions, in time order */
	size_t n, cap;
};

static const char months[12][4] = {
	"Jan", "Feb", "Mar", "Apr", "May", "Jun",
	"Jul", "Aug", "Sep", "Oct", "Nov", "Dec"
};

/* Days since 1970-01-01 of y-m-d (proleptic Gregorian, m 1..12). */
int64_t lbt_days_from_civil(int year, int mon, int day)
{
	int64_t y = (int64_t)year - (mon <= 2);
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t mp = (mon + 9) % 12;
	int64_t doy = (153 * mp + 2) / 5 + day - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;

	return era * 146097 + doe - 719468;
}

/* Inverse of lbt_days_from_civil(): fill *y, *m (1..12), *d from days z. */
static void civil_from_days(int64_t z, int *y, int *m, int *d)
{
	z += 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	int64_t doe = z - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64_t mp = (5 * doy + 2) / 153;

	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = (int)(yoe + era * 400 + (*m <= 2));
}

/* Floor division, for instants before the epoch. */
static int64_t floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;

	return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* True for a Gregorian leap year. */
static int is_leap(int y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* Number of days in month m (1..12) of year y. */
static int month_days(int y, int m)
{
	static const unsigned char n[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

	return m == 2 && is_leap(y) ? 29 : n[m - 1];
}

/* Month 1..12 of the 3-letter English abbreviation at s (exact case), or 0. */
int lbt_month_from_abbr(const char *s)
{
	for (int i = 0; i < 12; i++)
		if (s[0] == months[i][0] && s[1] == months[i][1] && s[2] == months[i][2])
			return i + 1;
	return 0;
}

/* Value of n decimal digits at s, or -1 when one is not a digit. */
static int digits(const char *s, int n)
{
	int v = 0;

	for (int i = 0; i < n; i++) {
		unsigned d = (unsigned char)s[i] - '0';

		if (d > 9)
			return -1;
		v = v * 10 + (int)d;
	}
	return v;
}

/* True when the civil date and time fields are in range. */
static int civil_ok(int y, int mo, int d, int h, int mi, int s)
{
	return y >= 0 && mo >= 1 && mo <= 12 && d >= 1 && d <= month_days(y, mo) &&
	    h >= 0 && h <= 23 && mi >= 0 && mi <= 59 && s >= 0 && s <= 60;
}

/* Seconds since the epoch of a civil time taken as UTC. */
static int64_t civil_secs(int y, int mo, int d, int h, int mi, int s)
{
	return lbt_days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s;
}

/*
 * Parse a UTC offset "Z", "z", "+hh:mm", "+hhmm" or "+hh" (or '-') that is
 * exactly s[0..len).  @return 0 with *off in seconds east of UTC, or -1.
 */
static int parse_offset(const char *s, size_t len, int32_t *off)
{
	int h, m = 0;

	if (len == 1 && (s[0] == 'Z' || s[0] == 'z')) {
		*off = 0;
		return 0;
	}
	if (len < 3 || (s[0] != '+' && s[0] != '-') || (h = digits(s + 1, 2)) < 0)
		return -1;
	if (len == 6 && s[3] == ':')
		m = digits(s + 4, 2);
	else if (len == 5)
		m = digits(s + 3, 2);
	else if (len != 3)
		return -1;
	if (m < 0 || m > 59 || h > 23)
		return -1;
	*off = (int32_t)((h * 3600 + m * 60) * (s[0] == '-' ? -1 : 1));
	return 0;
}

/* True when name may name a file under the zoneinfo directory. */
static int zone_name_ok(const char *name)
{
	return name[0] != '/' && strstr(name, "..") == NULL;
}

/* The big-endian signed integer of n bytes at p. */
static int64_t be_int(const unsigned char *p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	if (n < 8 && (v >> (8 * n - 1)) & 1)
		v |= ~(uint64_t)0 << (8 * n);
	return (int64_t)v;
}

/* Read the zoneinfo file of name, whole (at most ZONE_MAX bytes), into
 * buf.  @return its length, or -1. */
static ssize_t zone_read(const char *name, unsigned char *buf, size_t size)
{
	const char *dir = getenv("TZDIR");
	char path[512];
	ssize_t n, len = 0;
	int fd;

	if (!zone_name_ok(name))
		return -1;
	snprintf(path, sizeof path, "%s/%s", dir && *dir ? dir : TZ_DIR, name);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	while ((size_t)len < size && (n = read(fd, buf + len, size - (size_t)len)) > 0)
		len += n;
	close(fd);
	return len >= 44 && memcmp(buf, "TZif", 4) == 0 ? len : -1;
}

/* Append transition (at, off) to tz.  @return 0 or -1 (no memory). */
static int zone_push(lbt_tz *tz, int64_t at, int32_t off)
{
	if (tz->n == tz->cap) {
		size_t cap = tz->cap ? tz->cap * 2 : 256;
		struct tz_trans *t = realloc(tz->tr, cap * sizeof *t);

		if (t == NULL)
			return -1;
		tz->tr = t;
		tz->cap = cap;
	}
	tz->tr[tz->n].at = at;
	tz->tr[tz->n++].off = off;
	return 0;
}

/*
 * The transitions of one TZif data block at p (times of tsize bytes, counts
 * from the header at h): each transition with the offset of its type; the
 * offset before the first is that of type 0 (RFC 8536).  @return the bytes
 * of the block, or -1 (truncated, no memory).
 */
static ssize_t zone_block(lbt_tz *tz, const unsigned char *h, const unsigned char *p,
    size_t avail, int tsize)
{
	int64_t isut = be_int(h + 20, 4), isstd = be_int(h + 24, 4), leap = be_int(h + 28, 4);
	int64_t timecnt = be_int(h + 32, 4), typecnt = be_int(h + 36, 4), chars = be_int(h + 40, 4);
	int64_t len = timecnt * tsize + timecnt + typecnt * 6 + chars + leap * (tsize + 4) + isstd +
	    isut;
	const unsigned char *types = p + timecnt * tsize, *info = types + timecnt;

	if (timecnt < 0 || typecnt < 1 || typecnt > 256 || chars < 0 || leap < 0 || isstd < 0 ||
	    isut < 0 || len > (int64_t)avail)
		return -1;
	tz->n = 0;
	tz->off0 = (int32_t)be_int(info, 4);
	for (int64_t i = 0; i < timecnt; i++) {
		if (types[i] >= typecnt ||
		    zone_push(tz, be_int(p + i * tsize, tsize), (int32_t)be_int(info + 6 * types[i], 4)) < 0)
			return -1;
	}
	return (ssize_t)len;
}

/* An hour offset of a POSIX TZ string, "[+-]hh[:mm[:ss]]", at *s (moved
 * past it).  @return 0 with *secs, or -1. */
static int posix_hms(const char **s, int32_t *secs)
{
	int sign = 1, part[3] = { 0, 0, 0 };
	const char *p = *s;

	if (*p == '+' || *p == '-')
		sign = *p++ == '-' ? -1 : 1;
	for (int i = 0; i < 3; i++) {
		if (i > 0 && *p != ':')
			break;
		p += i > 0;
		if (*p < '0' || *p > '9')
			return -1;
		for (part[i] = 0; *p >= '0' && *p <= '9' && part[i] < 1000; p++)
			part[i] = part[i] * 10 + (*p - '0');
	}
	*secs = sign * (part[0] * 3600 + part[1] * 60 + part[2]);
	*s = p;
	return 0;
}

/* A zone abbreviation ("CET", "<+03>") at *s, skipped.  @return 0 or -1. */
static int posix_name(const char **s)
{
	const char *p = *s;

	if (*p == '<') {
		while (*p && *p != '>')
			p++;
		if (*p++ != '>')
			return -1;
	} else
		while ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z'))
			p++;
	if (p - *s < 3)
		return -1;
	*s = p;
	return 0;
}

/* A rule "Mm.w.d[/time]" at *s.  @return 0 or -1 (other forms too). */
static int posix_rule(const char **s, struct tz_rule *r)
{
	const char *p = *s;
	int v[3];

	if (*p++ != 'M')
		return -1;
	for (int i = 0; i < 3; i++) {
		if (i > 0 && *p++ != '.')
			return -1;
		if (*p < '0' || *p > '9')
			return -1;
		for (v[i] = 0; *p >= '0' && *p <= '9' && v[i] < 100; p++)
			v[i] = v[i] * 10 + (*p - '0');
	}
	if (v[0] < 1 || v[0] > 12 || v[1] < 1 || v[1] > 5 || v[2] > 6)
		return -1;
	r->mon = v[0];
	r->week = v[1];
	r->wday = v[2];
	r->time = 7200;
	if (*p == '/') {
		p++;
		if (posix_hms(&p, &r->time) < 0)
			return -1;
	}
	*s = p;
	return 0;
}

/*
 * The TZif footer, a POSIX TZ string ("CET-1CEST,M3.5.0,M10.5.0/3"): its
 * offsets (seconds east: POSIX counts west) and rules into z.
 * @return 1 with a DST rule, 0 a standard time only, -1 unreadable.
 */
static int posix_tz(const char *s, struct tz_posix *z)
{
	int32_t w;

	if (posix_name(&s) < 0 || posix_hms(&s, &w) < 0)
		return -1;
	z->std = -w;
	if (*s == '\0' || *s == '\n')
		return 0;
	if (posix_name(&s) < 0)
		return -1;
	z->dst = z->std + 3600;
	if (*s != ',' && *s != '\0' && *s != '\n') {
		if (posix_hms(&s, &w) < 0)
			return -1;
		z->dst = -w;
	}
	if (*s++ != ',' || posix_rule(&s, &z->start) < 0 || *s++ != ',' ||
	    posix_rule(&s, &z->end) < 0)
		return -1;
	return 1;
}

/* UTC seconds of rule r in year y, r's time being local at offset off. */
static int64_t rule_at(const struct tz_rule *r, int y, int32_t off)
{
	int64_t first = lbt_days_from_civil(y, r->mon, 1);
	int wd1 = (int)(((first + 4) % 7 + 7) % 7);        /* 1970-01-01 was a Thursday */
	int day = 1 + (r->wday - wd1 + 7) % 7 + (r->week - 1) * 7;

	while (day > month_days(y, r->mon))
		day -= 7;
	return (first + day - 1) * 86400 + r->time - off;
}

/* The transitions of the footer's rule after the table's last, to the
 * year ZONE_LAST_YEAR.  @return 0 or -1 (no memory). */
static int zone_extend(lbt_tz *tz, const struct tz_posix *z)
{
	int64_t last = tz->n ? tz->tr[tz->n - 1].at : INT64_MIN;
	int y0 = 1970;

	if (tz->n) {
		int y, m, d;

		civil_from_days(floor_div(last, 86400), &y, &m, &d);
		y0 = y;
	}
	for (int y = y0; y <= ZONE_LAST_YEAR; y++) {
		int64_t a = rule_at(&z->start, y, z->std), b = rule_at(&z->end, y, z->dst);
		int64_t t1 = a < b ? a : b, t2 = a < b ? b : a;
		int32_t o1 = a < b ? z->dst : z->std, o2 = a < b ? z->std : z->dst;

		if ((t1 > last && zone_push(tz, t1, o1) < 0) || (t2 > last && zone_push(tz, t2, o2) < 0))
			return -1;
	}
	return 0;
}

/*
 * Load zone name from its TZif file: the 64-bit block when the file has one
 * (version 2 and later), else the 32-bit one, then the footer's rule for
 * the years past the last transition.  @return 0, or -1 (no such file,
 * unreadable, no memory).
 */
static int zone_load(lbt_tz *tz, const char *name)
{
	unsigned char *buf = malloc(ZONE_MAX + 1);
	ssize_t len = buf ? zone_read(name, buf, ZONE_MAX) : -1, b1, b2 = -1;
	struct tz_posix z;
	int rc = -1;

	if (len < 0 || (b1 = zone_block(tz, buf, buf + 44, (size_t)len - 44, 4)) < 0)
		goto out;
	rc = 0;
	if (buf[4] >= '2' && len >= 44 + b1 + 44 && memcmp(buf + 44 + b1, "TZif", 4) == 0 &&
	    (b2 = zone_block(tz, buf + 44 + b1, buf + 88 + b1, (size_t)(len - 88 - b1), 8)) < 0)
		rc = -1;
	if (rc == 0 && b2 >= 0 && 88 + b1 + b2 < len && buf[88 + b1 + b2] == '\n') {
		buf[len] = '\0';
		if (posix_tz((const char *)buf + 89 + b1 + b2, &z) == 1)
			rc = zone_extend(tz, &z);
	}
out:
	free(buf);
	return rc;
}

/*
 * A zone for zone-less stamps: NULL, "", "UTC" or "Z" give UTC; "+01:00",
 * "-0500" a fixed offset; otherwise an IANA name that must exist as a TZif
 * file (TZDIR or /usr/share/zoneinfo), read once here into a table of its
 * transitions.  @return a zone the caller frees with lbt_tz_free(), or NULL
 * with err "unknown time zone 'X'" (or out of memory).
 */
lbt_tz *lbt_tz_new(const char *name, lbt_err *err)
{
	lbt_tz *tz = calloc(1, sizeof *tz);
	int32_t off;

	if (tz == NULL) {
		lbt_err_set(err, "out of memory");
		return NULL;
	}
	if (name == NULL || name[0] == '\0' || strcmp(name, "UTC") == 0 || strcmp(name, "Z") == 0)
		return tz;
	if (parse_offset(name, strlen(name), &off) == 0) {
		tz->kind = 1;
		tz->fixed = off;
		return tz;
	}
	tz->kind = 2;
	if (zone_load(tz, name) < 0) {
		lbt_err_set(err, "unknown time zone '%s'", name);
		lbt_tz_free(tz);
		return NULL;
	}
	return tz;
}

/* Free a zone; NULL is accepted. */
void lbt_tz_free(lbt_tz *tz)
{
	if (tz != NULL)
		free(tz->tr);
	free(tz);
}

/* UTC offset of tz at UTC instant t (seconds): the last transition at or
 * before t, by bisection of the table (read only: any thread may ask). */
static int32_t table_offset(const lbt_tz *tz, int64_t t)
{
	size_t lo = 0, hi = tz->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (tz->tr[mid].at <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo == 0 ? tz->off0 : tz->tr[lo - 1].off;
}

/* UTC offset in seconds in effect in tz at UTC instant utc_s (0 for UTC or NULL). */
int lbt_tz_offset_at(const lbt_tz *tz, int64_t utc_s)
{
	if (tz == NULL || tz->kind == 0)
		return 0;
	if (tz->kind == 1)
		return tz->fixed;
	return table_offset(tz, utc_s);
}

/*
 * Offset to subtract from local civil seconds L in a named zone.  The candidates are
 * the offsets a day before and after; a candidate o is valid when the
 * instant L - o really has offset o.  The earliest valid instant wins (DST
 * fall-back: first occurrence); in a gap (spring-forward) the offset
 * before the change is used, as mktime does.
 */
static int32_t local_offset(const lbt_tz *tz, int64_t L)
{
	int32_t oa = lbt_tz_offset_at(tz, L - 86400), ob = lbt_tz_offset_at(tz, L + 86400);
	int va = lbt_tz_offset_at(tz, L - oa) == oa, vb = lbt_tz_offset_at(tz, L - ob) == ob;

	if (va && vb)
		return L - oa <= L - ob ? oa : ob;
	if (vb)
		return ob;
	return oa;
}

/* UTC seconds of a local civil time in tz (NULL = UTC); see the header. */
int64_t lbt_tz_to_utc(const lbt_tz *tz, int year, int mon, int day, int hour, int min, int sec)
{
	int64_t L = civil_secs(year, mon, day, hour, min, sec);

	return L - (tz == NULL || tz->kind == 0 ? 0 : tz->kind == 1 ? tz->fixed :
	    local_offset(tz, L));
}

/*
 * Parse a fraction ".d[d...]" (1 to 9 digits, beyond 6 ignored) that is
 * exactly s[0..len); len 0 means no fraction.  @return 0 with *us, or -1.
 */
static int parse_frac(const char *s, size_t len, int64_t *us)
{
	int64_t v = 0;
	size_t i;

	*us = 0;
	if (len == 0)
		return 0;
	if (len == 4 && s[0] == '.') {     /* milliseconds: 68 -> 47 instructions (callgrind) */
		int ms = digits(s + 1, 3);

		if (ms < 0)
			return -1;
		*us = (int64_t)ms * 1000;
		return 0;
	}
	if (s[0] != '.' || len < 2 || len > 10)
		return -1;
	for (i = 1; i < len; i++) {
		unsigned d = (unsigned char)s[i] - '0';

		if (d > 9)
			return -1;
		if (i <= 6)
			v = v * 10 + d;
	}
	for (; i <= 6; i++)
		v *= 10;
	*us = v;
	return 0;
}

/* Civil fields of a stamp. */
struct civil {
	int y, mo, d, h, mi, s;
};

/* Parse "dd/Mon/yyyy:hh:mm:ss" at s (20 bytes available). @return 0 or -1 */
static int parse_clf_date(const char *s, struct civil *c)
{
	if (s[2] != '/' || s[6] != '/' || s[11] != ':' || s[14] != ':' || s[17] != ':')
		return -1;
	c->d = digits(s, 2);
	c->mo = lbt_month_from_abbr(s + 3);
	c->y = digits(s + 7, 4);
	c->h = digits(s + 12, 2);
	c->mi = digits(s + 15, 2);
	c->s = digits(s + 18, 2);
	return civil_ok(c->y, c->mo, c->d, c->h, c->mi, c->s) ? 0 : -1;
}

/* "01/Nov/2025:23:24:01[.123]" in tz.  @return 0 with *us or -1 */
int lbt_time_parse_clf_local(const char *s, size_t len, lbt_tz *tz, int64_t *us)
{
	struct civil c;
	int64_t frac;

	if (len < 20 || parse_clf_date(s, &c) < 0 || parse_frac(s + 20, len - 20, &frac) < 0)
		return -1;
	*us = lbt_tz_to_utc(tz, c.y, c.mo, c.d, c.h, c.mi, c.s) * 1000000 + frac;
	return 0;
}

/* "01/Nov/2025:23:24:01[.123] +0100".  @return 0 with *us or -1 */
int lbt_time_parse_clf_zoned(const char *s, size_t len, int64_t *us)
{
	struct civil c;
	int64_t frac;
	int32_t off;

	if (len < 26 || s[len - 6] != ' ' || parse_offset(s + len - 5, 5, &off) < 0)
		return -1;
	if (parse_clf_date(s, &c) < 0 || parse_frac(s + 20, len - 26, &frac) < 0)
		return -1;
	*us = (civil_secs(c.y, c.mo, c.d, c.h, c.mi, c.s) - off) * 1000000 + frac;
	return 0;
}

/*
 * Seconds 0..59 of a CLF stamp whose first 17 bytes match the cached
 * minute, and its fraction.  Second 60 is left to the full parsers: it
 * belongs to the next minute, and to the next hour's UTC offset.
 * @return 0 with *us, or -1 (parse it in full).
 */
static int clf_cache_hit(const lbt_time_cache *c, const char *s, size_t len, lbt_tz *tz,
    int zoned, int64_t *us)
{
	size_t flen = zoned ? len - 6 : len;     /* without " +zzzz" */
	int64_t frac;
	int sec;

	if (!c->valid || c->tz != tz || c->zoned != zoned || len < (zoned ? 26u : 20u) ||
	    memcmp(s, c->key, 17) != 0 || s[17] != ':' ||
	    (zoned && memcmp(s + len - 6, c->zone, 6) != 0))
		return -1;
	sec = digits(s + 18, 2);
	if (sec < 0 || sec > 59 || parse_frac(s + 20, flen - 20, &frac) < 0)
		return -1;
	*us = (c->base_s + sec) * 1000000 + frac;
	return 0;
}

/*
 * A CLF stamp through the minute cache; see the header.  Within a minute
 * the UTC offset cannot change (lbt_tz resolves offsets per hour, zoned
 * stamps carry theirs), so the result is that minute's second 0 plus the
 * seconds.  Measured on haproxy-httplog (callgrind): 420 -> 120 instructions
 * a stamp.  @return 0 with *us, or -1 as the full parsers.
 */
int lbt_time_parse_clf_cached(lbt_time_cache *c, const char *s, size_t len, lbt_tz *tz,
    int zoned, int64_t *us)
{
	int sec;

	if (clf_cache_hit(c, s, len, tz, zoned, us) == 0)
		return 0;
	if ((zoned ? lbt_time_parse_clf_zoned(s, len, us) :
	    lbt_time_parse_clf_local(s, len, tz, us)) < 0)
		return -1;
	sec = digits(s + 18, 2);
	if (sec <= 59) {
		memcpy(c->key, s, 17);
		if (zoned)
			memcpy(c->zone, s + len - 6, 6);
		c->valid = 1;
		c->zoned = zoned;
		c->tz = tz;
		c->base_s = floor_div(*us, 1000000) - sec;
	}
	return 0;
}

/* Parse "yyyy-mm-ddThh:mm:ss" (or a space for T) at s (19 bytes). @return 0 or -1 */
static int parse_iso_date(const char *s, struct civil *c)
{
	if (s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != ' ') ||
	    s[13] != ':' || s[16] != ':')
		return -1;
	c->y = digits(s, 4);
	c->mo = digits(s + 5, 2);
	c->d = digits(s + 8, 2);
	c->h = digits(s + 11, 2);
	c->mi = digits(s + 14, 2);
	c->s = digits(s + 17, 2);
	return civil_ok(c->y, c->mo, c->d, c->h, c->mi, c->s) ? 0 : -1;
}

/* Length of the fraction ".ddd" at s[0..len) (0 when none). */
static size_t frac_len(const char *s, size_t len)
{
	size_t i = 1;

	if (len == 0 || s[0] != '.')
		return 0;
	while (i < len && s[i] >= '0' && s[i] <= '9')
		i++;
	return i;
}

/* ISO 8601 / RFC 3339 with optional fraction and zone.  @return 0 with *us or -1 */
int lbt_time_parse_iso(const char *s, size_t len, lbt_tz *tz, int64_t *us)
{
	struct civil c;
	int64_t frac, secs;
	int32_t off;
	size_t fl;

	if (len < 19 || parse_iso_date(s, &c) < 0)
		return -1;
	fl = frac_len(s + 19, len - 19);
	if (parse_frac(s + 19, fl, &frac) < 0)
		return -1;
	if (19 + fl == len)
		secs = lbt_tz_to_utc(tz, c.y, c.mo, c.d, c.h, c.mi, c.s);
	else if (parse_offset(s + 19 + fl, len - 19 - fl, &off) == 0)
		secs = civil_secs(c.y, c.mo, c.d, c.h, c.mi, c.s) - off;
	else
		return -1;
	*us = secs * 1000000 + frac;
	return 0;
}

/* "1762035841[.123456]" (1 to 12 integer digits).  @return 0 with *us or -1 */
int lbt_time_parse_epoch(const char *s, size_t len, int64_t *us)
{
	size_t i = 0;
	int64_t secs = 0, frac;

	while (i < len && i < 13 && s[i] >= '0' && s[i] <= '9')
		secs = secs * 10 + (s[i++] - '0');
	if (i == 0 || i > 12 || parse_frac(s + i, len - i, &frac) < 0)
		return -1;
	*us = secs * 1000000 + frac;
	return 0;
}

/*
 * Year for a month-day stamp without a year: the year of ref_s (in tz), or
 * the year before when mon is later than ref's month; a Feb 29 goes back
 * to the last leap year.
 */
static int infer_year(lbt_tz *tz, int64_t ref_s, int mon, int day)
{
	int ry, rm, rd;
	int64_t local = ref_s + lbt_tz_offset_at(tz, ref_s);

	civil_from_days(floor_div(local, 86400), &ry, &rm, &rd);
	if (mon > rm)
		ry--;
	while (mon == 2 && day == 29 && !is_leap(ry))
		ry--;
	return ry;
}

/* "Nov  1 23:24:01", "Nov 01 23:24:01" or "Nov 1 23:24:01".  @return 0 with *us or -1 */
int lbt_time_parse_bsd(const char *s, size_t len, lbt_tz *tz, int64_t ref_s, int64_t *us)
{
	struct civil c;
	const char *t;

	if ((len != 15 && len != 14) || s[3] != ' ')
		return -1;
	c.mo = lbt_month_from_abbr(s);
	if (len == 14)
		c.d = digits(s + 4, 1);
	else
		c.d = s[4] == ' ' ? digits(s + 5, 1) : digits(s + 4, 2);
	t = s + len - 8;
	if (c.mo == 0 || c.d < 1 || t[-1] != ' ' || t[2] != ':' || t[5] != ':')
		return -1;
	c.h = digits(t, 2);
	c.mi = digits(t + 3, 2);
	c.s = digits(t + 6, 2);
	c.y = infer_year(tz, ref_s, c.mo, c.d);
	if (!civil_ok(c.y, c.mo, c.d, c.h, c.mi, c.s))
		return -1;
	*us = lbt_tz_to_utc(tz, c.y, c.mo, c.d, c.h, c.mi, c.s) * 1000000;
	return 0;
}

/* Write the n decimal digits of v (0 <= v < 10^n) at p, two at a time.  @return p + n */
static char *put_digits(char *p, int64_t v, int n)
{
	static const char pairs[] =
	    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	    "8081828384858687888990919293949596979899";
	int i = n;

	for (; i >= 2; i -= 2, v /= 100)
		memcpy(p + i - 2, pairs + 2 * (v % 100), 2);
	if (i == 1)
		p[0] = (char)('0' + v % 10);
	return p + n;
}

/*
 * The fields of lbt_time_format() written by hand, for years 0..9999 and
 * a buffer of at least 40 bytes: exactly what its snprintf formats print.
 * lbt-cat prints a time on every line; with snprintf lbt_time_format cost
 * ~3770 instructions a call, now ~310 (callgrind).  @return the length.
 */
static size_t format_fast(char *buf, int y, int m, int d, int64_t rem, int64_t frac,
    int offset_s)
{
	int a = offset_s < 0 ? -offset_s : offset_s;
	char *p = buf;

	p = put_digits(p, y, 4);
	*p++ = '-';
	p = put_digits(p, m, 2);
	*p++ = '-';
	p = put_digits(p, d, 2);
	*p++ = 'T';
	p = put_digits(p, rem / 3600, 2);
	*p++ = ':';
	p = put_digits(p, rem / 60 % 60, 2);
	*p++ = ':';
	p = put_digits(p, rem % 60, 2);
	*p++ = '.';
	p = frac % 1000 == 0 ? put_digits(p, frac / 1000, 3) : put_digits(p, frac, 6);
	if (offset_s == 0) {
		*p++ = 'Z';
	} else {
		*p++ = offset_s < 0 ? '-' : '+';
		p = put_digits(p, a / 3600 % 100, 2);
		*p++ = ':';
		p = put_digits(p, a / 60 % 60, 2);
	}
	*p = '\0';
	return (size_t)(p - buf);
}

/*
 * ISO 8601 of us shifted by offset_s: 3 decimals, or 6 when the µs part is
 * not a whole millisecond; "Z" for offset 0, else "+hh:mm".  Writes at most
 * size - 1 bytes plus NUL.  @return the length written.
 */
size_t lbt_time_format(int64_t us, int offset_s, char *buf, size_t size)
{
	int64_t local = us + (int64_t)offset_s * 1000000;
	int64_t secs = floor_div(local, 1000000), frac = local - secs * 1000000;
	int64_t days = floor_div(secs, 86400), rem = secs - days * 86400;
	int y, m, d, n, a = offset_s < 0 ? -offset_s : offset_s;
	char zone[8] = "Z";

	if (size == 0)
		return 0;
	civil_from_days(days, &y, &m, &d);
	if (size >= 40 && y >= 0 && y <= 9999)
		return format_fast(buf, y, m, d, rem, frac, offset_s);
	if (offset_s != 0)
		snprintf(zone, sizeof zone, "%c%02d:%02d", offset_s < 0 ? '-' : '+',
		    a / 3600 % 100, a / 60 % 60);
	if (frac % 1000 == 0)
		n = snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%03d%s", y, m, d,
		    (int)(rem / 3600), (int)(rem / 60 % 60), (int)(rem % 60), (int)(frac / 1000), zone);
	else
		n = snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%06d%s", y, m, d,
		    (int)(rem / 3600), (int)(rem / 60 % 60), (int)(rem % 60), (int)frac, zone);
	return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}

/*
 * ISO 8601 UTC of us with whole seconds, "2025-11-01T23:24:01Z", or with
 * milliseconds (truncated) when us is not a whole second.  @return length.
 */
size_t lbt_time_format_s(int64_t us, char *buf, size_t size)
{
	int64_t whole = floor_div(us, 1000000) * 1000000;
	size_t n = lbt_time_format(whole + (us - whole) / 1000 * 1000, 0, buf, size);

	if (us == whole && n >= 5 && memcmp(buf + n - 5, ".000Z", 5) == 0) {
		buf[n - 5] = 'Z';
		buf[n - 4] = '\0';
		n -= 4;
	}
	return n;
}

/* The occurrence of a time of day nearest to ref_us; see timeparse.h. */
int64_t lbt_time_nearest_tod(int64_t tod_us, int64_t ref_us)
{
	const int64_t day_us = INT64_C(86400000000);
	int64_t t = floor_div(ref_us, day_us) * day_us + tod_us;

	if (t - ref_us > day_us / 2)
		t -= day_us;
	else if (ref_us - t > day_us / 2)
		t += day_us;
	return t;
}

/* The current time in UTC µs; see timeparse.h. */
int64_t lbt_time_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}
