/*
 * series.h - time-bucketed counters for one key, and what to read in them:
 * span, peak, sums, a dense copy for the change-point engine
 * (changepoint.h: baselines and episodes), a sparkline.
 *
 * A series maps bucket = floor(time / step) to a 64-bit value (a count of
 * requests, a sum of milliseconds, a maximum of feconn...).  Storage is
 * sparse, a small hash table of the buckets that were touched, because
 * input arrives out of time order across files and load balancers: memory
 * grows with active buckets, never with records.  The last bucket touched is
 * cached, so a run of records in the same second costs one compare.
 *
 *     lbt_series *s = lbt_series_new(1000000);       // 1 s buckets
 *     lbt_series_add(s, rec->time_us, 1);
 *     ...
 *     int64_t first, last;
 *     lbt_series_span(s, &first, &last);
 *     int64_t *v = lbt_series_dense(s, first, last);  // v[i] = bucket first+i
 *     lbt_cp_result cp;
 *     lbt_cp_find(v, last - first + 1, 1.0, NULL, &cp);  // changepoint.h
 *
 * The helpers after the series itself work on dense arrays, so a caller can
 * sum several series or pick its own range (the whole log, say) first.
 * Leaf module: includes nothing of lbt.
 */
#ifndef LBT_SERIES_H
#define LBT_SERIES_H

#include <stddef.h>
#include <stdint.h>

typedef struct lbt_series lbt_series;

typedef struct lbt_series_point {
	int64_t bucket;
	int64_t value;
} lbt_series_point;

/* floor(t_us / step_us), also for negative times.  step_us > 0. */
int64_t lbt_bucket_of(int64_t t_us, int64_t step_us);

/* @return an empty series with buckets of step_us (> 0) µs, or NULL when out
 * of memory. */
lbt_series *lbt_series_new(int64_t step_us);

/* NULL accepted. */
void lbt_series_free(lbt_series *s);

/* The bucket width in µs given to lbt_series_new(). */
int64_t lbt_series_step(const lbt_series *s);

/* Add n to the bucket of time t_us.  @return 0, or -1 when out of memory. */
int lbt_series_add(lbt_series *s, int64_t t_us, int64_t n);

/* Add n to bucket number `bucket`.  @return 0 or -1 (out of memory). */
int lbt_series_add_bucket(lbt_series *s, int64_t bucket, int64_t n);

/*
 * Add every touched bucket of src to the same bucket of dst (a bucket
 * touched in either is touched in dst): dst then holds what one series
 * given both inputs would.  The steps must be equal.  @return 0, or -1
 * when out of memory or the steps differ.
 */
int lbt_series_merge(lbt_series *dst, const lbt_series *src);

/* Raise the bucket of t_us to v if v is larger (a bucket never touched
 * counts as absent, so the first call stores v).  @return 0 or -1. */
int lbt_series_max(lbt_series *s, int64_t t_us, int64_t v);

/* @return the value of a bucket, 0 when never touched.  Reading the bucket
 * just added to costs one compare (the cached slot). */
int64_t lbt_series_get(const lbt_series *s, int64_t bucket);

/* @return the number of buckets touched. */
size_t lbt_series_nbuckets(const lbt_series *s);

/* @return the sum of every bucket. */
int64_t lbt_series_total(const lbt_series *s);

/* First and last bucket touched.  @return 0, or -1 when the series is empty. */
int lbt_series_span(const lbt_series *s, int64_t *first, int64_t *last);

/* Largest value and its bucket (the earliest on ties).  @return 0, or -1
 * when empty. */
int lbt_series_peak(const lbt_series *s, int64_t *bucket, int64_t *value);

/* Sum of the buckets in [from, to] (bucket numbers, inclusive). */
int64_t lbt_series_sum_range(const lbt_series *s, int64_t from, int64_t to);

/*
 * The touched buckets sorted by time; *n gets their count.  malloc'ed,
 * owned by the caller.  @return the array (non-NULL when empty), or NULL
 * when out of memory.
 */
lbt_series_point *lbt_series_points(const lbt_series *s, size_t *n);

/*
 * A dense copy of buckets first..last (inclusive, last >= first): element i
 * is bucket first + i, untouched buckets 0.  malloc'ed, owned by the caller.
 * @return the array, or NULL when out of memory or the range is absurd
 * (more than 2^28 buckets).
 */
int64_t *lbt_series_dense(const lbt_series *s, int64_t first, int64_t last);

/* @return an estimate of the bytes the series holds. */
size_t lbt_series_bytes(const lbt_series *s);

/* Index of the largest element (the first on ties); 0 when n is 0. */
size_t lbt_peak_i64(const int64_t *v, size_t n);

/*
 * A sparkline of v[0..n) in `width` cells (each cell the maximum of the
 * buckets it covers; fewer cells when n < width), scaled to the largest
 * value: U+2581..U+2588, with a space for an empty cell.  Writes UTF-8 into
 * buf (NUL-terminated; up to 3 * width + 1 bytes needed).
 * @return the number of bytes written.
 */
size_t lbt_sparkline(const int64_t *v, size_t n, size_t width, char *buf, size_t size);

/*
 * Write a bucket's start time (bucket * step_us) as ISO 8601 UTC with whole
 * seconds, "2025-11-01T23:24:01Z", or with milliseconds when the bucket
 * does not start on a whole second.  @return the length written.
 */
size_t lbt_bucket_format(int64_t bucket, int64_t step_us, char *buf, size_t size);

#endif
