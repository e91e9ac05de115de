/*
 * timeparse.h - the date and time shapes found in access logs, to UTC µs.
 *
 * Civil dates become epoch seconds arithmetically (no mktime per line); the
 * zone of zone-less stamps (HAProxy %t/%tr, RFC 3164 syslog) comes from an
 * lbt_tz, UTC by default: a named zone's transitions are read once from its
 * zoneinfo file, so an lbt_tz is read only after lbt_tz_new and any thread
 * may convert with it.  Leaf module except err.h.
 */
#ifndef LBT_TIMEPARSE_H
#define LBT_TIMEPARSE_H

#include <stddef.h>
#include <stdint.h>

#include "lbt/err.h"

/* A time zone for zone-less stamps: UTC, or an IANA name ("Europe/Paris"). */
typedef struct lbt_tz lbt_tz;

/*
 * @return a zone ("UTC", "" and NULL give UTC; "+01:00" or "-0500" a fixed
 * offset; otherwise an IANA name with a file in /usr/share/zoneinfo or
 * $TZDIR), or NULL with err "unknown time zone 'X'".  Free with lbt_tz_free().
 * A named zone's file is read here, once; nothing process-wide is touched.
 */
lbt_tz *lbt_tz_new(const char *name, lbt_err *err);
void lbt_tz_free(lbt_tz *tz);

/* UTC offset (seconds east) in effect in tz at UTC instant utc_s; 0 for NULL/UTC. */
int lbt_tz_offset_at(const lbt_tz *tz, int64_t utc_s);

/*
 * Convert a civil local time in `tz` to UTC seconds.  Ambiguous local times
 * (DST fall-back) take the first occurrence.  tz NULL means UTC.
 */
int64_t lbt_tz_to_utc(const lbt_tz *tz, int year, int mon, int day, int hour, int min, int sec);

/* Days since 1970-01-01 of a proleptic Gregorian date (mon 1..12). */
int64_t lbt_days_from_civil(int year, int mon, int day);

/* Month number 1..12 of an English 3-letter abbreviation, or 0. */
int lbt_month_from_abbr(const char *s);

/*
 * Each parser reads s[0..len) exactly (no trailing text allowed) and
 * @return 0 with *us in UTC µs, or -1 when the text is not of that shape.
 */

/* "01/Nov/2025:23:24:01.123" (HAProxy %t %tr; zone from tz) or without ".123". */
int lbt_time_parse_clf_local(const char *s, size_t len, lbt_tz *tz, int64_t *us);

/* "01/Nov/2025:23:24:01 +0100" (HAProxy %T %Tl %trg %trl, NGINX $time_local). */
int lbt_time_parse_clf_zoned(const char *s, size_t len, int64_t *us);

/*
 * The last minute a CLF parser saw (halog's idea: consecutive log lines
 * share it).  Zero it before first use; one per stream of stamps.
 */
typedef struct lbt_time_cache {
	char key[17];          /* "01/Nov/2025:23:24" */
	char zone[6];          /* " +0100" (zoned stamps) */
	int valid;
	int zoned;
	const lbt_tz *tz;
	int64_t base_s;        /* UTC seconds of second 0 of that minute */
} lbt_time_cache;

/*
 * lbt_time_parse_clf_local (zoned 0) or lbt_time_parse_clf_zoned (zoned 1,
 * tz unused) with the same results, re-reading only the seconds and the
 * fraction while the minute (and zone) stay those of the last call.
 */
int lbt_time_parse_clf_cached(lbt_time_cache *c, const char *s, size_t len, lbt_tz *tz,
    int zoned, int64_t *us);

/* ISO 8601 / RFC 3339: "2025-11-01T23:24:01[.123456](Z|+01:00|+0100)";
 * without a zone, tz applies. */
int lbt_time_parse_iso(const char *s, size_t len, lbt_tz *tz, int64_t *us);

/* Unix time with an optional fraction: "1762035841", "1762035841.123". */
int lbt_time_parse_epoch(const char *s, size_t len, int64_t *us);

/*
 * RFC 3164 "Nov  1 23:24:01" / journald short "Nov 01 23:24:01" (no year).
 * The year is inferred from `ref_s` (file mtime or now): the year of ref_s,
 * or the year before when the stamp's month is later than ref's month
 * (the December log read in January).
 */
int lbt_time_parse_bsd(const char *s, size_t len, lbt_tz *tz, int64_t ref_s, int64_t *us);

/*
 * Write `us` (shifted by offset_s) as ISO 8601 with milliseconds,
 * "2025-11-01T23:24:01.123Z", or 6 decimals when the microseconds are not a
 * whole millisecond ("...01.123456Z"), with "+hh:mm" instead of "Z" when
 * offset_s is not 0.  @return length written.
 */
size_t lbt_time_format(int64_t us, int offset_s, char *buf, size_t size);

/*
 * Write `us` as ISO 8601 UTC with whole seconds, "2025-11-01T23:24:01Z", or
 * with milliseconds when it is not a whole second (bucket starts).
 * @return length written.
 */
size_t lbt_time_format_s(int64_t us, char *buf, size_t size);

/*
 * The occurrence of time of day `tod_us` (µs after midnight UTC) nearest to
 * `ref_us`: on ref's day, the day before or the day after, whichever lies
 * within 12 hours of ref (the earlier one on an exact tie).  What a bare
 * "HH:MM" means in --since, --until and --baseline.
 */
int64_t lbt_time_nearest_tod(int64_t tod_us, int64_t ref_us);

/* The current time (CLOCK_REALTIME) in UTC µs since the epoch. */
int64_t lbt_time_now_us(void);

#endif
