/*
 * num.c - bounded number parsing for options and fields.  See include/lbt/num.h.
 *
 * Option values go through lbt_num_parse()/lbt_num_parse_double()/
 * lbt_duration_parse(), which say
 * what was wrong and which range is allowed (never atoi).  Parsers use the
 * fast lbt_num_i64()/lbt_num_i32() on views that are not NUL-terminated.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/num.h"

/*
 * Parse s[0..len) as an optional sign then one or more decimal digits.
 * @return 0 with *out, or -1 for an empty, non-numeric or overflowing text.
 */
int lbt_num_i64(const char *s, size_t len, int64_t *out)
{
	size_t i = 0;
	int neg = 0;
	uint64_t v = 0, lim;

	if (len > 0 && (s[0] == '-' || s[0] == '+')) {
		neg = s[0] == '-';
		i = 1;
	}
	if (i == len)
		return -1;
	lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (; i < len; i++) {
		unsigned d = (unsigned char)s[i] - '0';

		if (d > 9 || v > (lim - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

/* Like lbt_num_i64() for an int32 range. @return 0 or -1 (overflow too). */
int lbt_num_i32(const char *s, size_t len, int32_t *out)
{
	int64_t v;

	if (lbt_num_i64(s, len, &v) < 0 || v < INT32_MIN || v > INT32_MAX)
		return -1;
	*out = (int32_t)v;
	return 0;
}

/*
 * Bounded whole-string integer parse (NUL-terminated s, may be NULL).
 * Message: "WHAT: 'S' is not a number in MIN..MAX".  @return 0 or -1.
 */
int lbt_num_parse(const char *s, int64_t min, int64_t max, const char *what,
    int64_t *out, lbt_err *err)
{
	int64_t v;

	if (s == NULL || lbt_num_i64(s, strlen(s), &v) < 0 || v < min || v > max)
		return lbt_err_set(err, "%s: '%s' is not a number in %lld..%lld",
		    what ? what : "value", s ? s : "", (long long)min, (long long)max);
	*out = v;
	return 0;
}

/* Fill err for a number out of range (see lbt_num_parse_double).  @return -1. */
static int double_range_err(const char *s, double min, int above, double max,
    const char *what, lbt_err *err)
{
	if (isfinite(max) && !above)
		return lbt_err_set(err, "%s: '%s' is not in %g..%g", what, s, min, max);
	if (isfinite(max))
		return lbt_err_set(err, "%s: '%s' must be greater than %g and at most %g",
		    what, s, min, max);
	return lbt_err_set(err, "%s: '%s' must be %s %g", what, s,
	    above ? "greater than" : "at least", min);
}

/*
 * Parse s as a finite double (strtod, the whole text) within min..max, min
 * excluded when `above`.  @return 0 with *out, or -1 with err filled (see
 * num.h for the messages).
 */
int lbt_num_parse_double(const char *s, double min, int above, double max,
    const char *what, double *out, lbt_err *err)
{
	char *end;
	double v;

	if (what == NULL)
		what = "value";
	if (s == NULL)
		s = "";
	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end != '\0' || errno != 0 || !isfinite(v))
		return lbt_err_set(err, "%s: '%s' is not a number", what, s);
	if ((above ? !(v > min) : !(v >= min)) || !(v <= max))
		return double_range_err(s, min, above, max, what, err);
	*out = v;
	return 0;
}

/*
 * Microseconds per unit for a duration suffix ("" = seconds), or 0 for an
 * unknown suffix.
 */
static int64_t duration_unit(const char *u)
{
	static const struct { const char *name; int64_t us; } units[] = {
		{ "", 1000000 }, { "us", 1 }, { "ms", 1000 }, { "s", 1000000 },
		{ "m", 60000000LL }, { "h", 3600000000LL }, { "d", 86400000000LL },
	};

	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (strcmp(u, units[i].name) == 0)
			return units[i].us;
	return 0;
}

/*
 * Parse "DIGITS[unit]" with unit us|ms|s|m|h|d (bare number = seconds) into
 * microseconds within [min_us, max_us].  @return 0 or -1 with err filled:
 * "WHAT: 'S' is not a duration (500ms, 10s, 1m, 2h, 1d)" or
 * "WHAT: 'S' is out of range".
 */
int lbt_duration_parse(const char *s, int64_t min_us, int64_t max_us, const char *what,
    int64_t *out_us, lbt_err *err)
{
	size_t n = 0;
	int64_t v, unit;

	if (s == NULL)
		s = "";
	while (s[n] >= '0' && s[n] <= '9')
		n++;
	unit = duration_unit(s + n);
	if (n == 0 || unit == 0 || lbt_num_i64(s, n, &v) < 0)
		return lbt_err_set(err, "%s: '%s' is not a duration (500ms, 10s, 1m, 2h, 1d)",
		    what ? what : "duration", s);
	if (v > INT64_MAX / unit || v * unit < min_us || v * unit > max_us)
		return lbt_err_set(err, "%s: '%s' is out of range", what ? what : "duration", s);
	*out_us = v * unit;
	return 0;
}
