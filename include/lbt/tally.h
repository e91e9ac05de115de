/*
 * tally.h - events counted per bucket for one key, in 2 bytes an event
 * while small, an lbt_series (series.h) past that.
 *
 * lbt-offenders keeps a 1 s series for every source of many requests: a
 * hundred thousand IPv4 addresses of some 40 requests over 40 minutes,
 * nearly every one in a second of its own.  A series spends 8 bytes a
 * touched second and a header of 96; a tally spends 2 bytes an event (its
 * bucket as a 16-bit offset from a base, appended: no search, no insert)
 * and lives inside its owner (no header, one array).  Past
 * LBT_TALLY_SMALL events, or at a bucket outside the 16-bit reach of the
 * base, it becomes a series, once, holding the same counts: every reading
 * below answers the same in either form.
 *
 *     lbt_tally t = LBT_TALLY_INIT;
 *     lbt_tally_add(&t, lbt_bucket_of(rec->time_us, 1000000), 1);
 *     ...
 *     lbt_tally_peak(&t, &bucket, &count);      // sorts the offsets once
 *     int64_t *v = lbt_tally_dense(&t, first, last);
 *     lbt_tally_free(&t);
 *
 * Buckets are the caller's numbers (floor(time / step)); the tally knows
 * no step.  Includes: series.h.
 */
#ifndef LBT_TALLY_H
#define LBT_TALLY_H

#include <stddef.h>
#include <stdint.h>

#include "lbt/series.h"

/* Events a tally holds as offsets before it becomes a series. */
#define LBT_TALLY_SMALL 1024

/* Buckets before the first one that the base allows. */
#define LBT_TALLY_SLACK 4096

typedef struct lbt_tally {
	union {
		uint16_t *off;          /* the events' buckets - base, n of cap */
		lbt_series *series;     /* is_series */
	} u;
	int64_t base;
	uint32_t n;                     /* events held as offsets */
	uint16_t cap;
	uint8_t is_series;
	uint8_t unsorted;               /* an offset is below one before it */
} lbt_tally;

/* An empty tally; all zero bytes are one too (an arena's memory). */
#define LBT_TALLY_INIT { { NULL }, 0, 0, 0, 0, 0 }

/* Count n (>= 1) events in bucket (not INT64_MIN).  @return 0, or -1 when
 * out of memory (the tally unchanged) or for a bad bucket or count. */
int lbt_tally_add(lbt_tally *t, int64_t bucket, int64_t n);

/* Add every bucket of src to dst (a bucket touched in either is touched in
 * dst).  @return 0, or -1 when out of memory. */
int lbt_tally_merge(lbt_tally *dst, const lbt_tally *src);

/* @return the number of buckets touched (sorts the offsets first). */
size_t lbt_tally_nbuckets(lbt_tally *t);

/* Largest count and its bucket, the earliest on ties (sorts the offsets
 * first).  @return 0, or -1 when empty. */
int lbt_tally_peak(lbt_tally *t, int64_t *bucket, int64_t *count);

/* The touched buckets by time, as series.h's lbt_series_points (sorts the
 * offsets first).  @return the array (malloc'ed, the caller's; non-NULL
 * when empty), or NULL when out of memory. */
lbt_series_point *lbt_tally_points(lbt_tally *t, size_t *n);

/* Buckets first..last (last >= first) as a malloc'ed array, untouched ones
 * 0, as lbt_series_dense.  @return it, or NULL when out of memory or the
 * range is absurd. */
int64_t *lbt_tally_dense(const lbt_tally *t, int64_t first, int64_t last);

/* @return the bytes the tally holds outside its own struct. */
size_t lbt_tally_bytes(const lbt_tally *t);

/* Free what the tally holds and make it empty again; NULL accepted. */
void lbt_tally_free(lbt_tally *t);

#endif
