/*
 * tally.c - events per bucket, 2 bytes an event while small (see tally.h).
 *
 * The small form is a bag: each event appends its bucket's offset from
 * the base, so counting costs a store and a compare (is it still in
 * order?), never a search.  Readings group equal offsets, which needs them
 * in order: logs come nearly in time order, so the bag usually is, and is
 * sorted (once, in place) only when it is not.  The base is the first
 * bucket less LBT_TALLY_SLACK, for the requests logged after later ones.
 */
#include <stdlib.h>
#include <string.h>

#include "lbt/tally.h"

#define MAX_DENSE ((int64_t)1 << 28)

/* Turn the bag into a series holding the same counts, once.
 * @return 0 or -1 (no memory; the bag is kept). */
static int to_series(lbt_tally *t)
{
	lbt_series *s = lbt_series_new(1);

	if (s == NULL)
		return -1;
	for (uint32_t i = 0; i < t->n; i++)
		if (lbt_series_add_bucket(s, t->base + t->u.off[i], 1) < 0) {
			lbt_series_free(s);
			return -1;
		}
	free(t->u.off);
	t->u.series = s;
	t->is_series = 1;
	t->n = 0;
	t->cap = 0;
	return 0;
}

/* Room for k more offsets (t->n + k <= LBT_TALLY_SMALL).  @return 0 or -1. */
static int reserve(lbt_tally *t, uint32_t k)
{
	uint32_t ncap = t->cap < 4 ? 4 : t->cap;
	uint16_t *p;

	if (t->n + k <= t->cap)
		return 0;
	while (ncap < t->n + k)
		ncap += ncap / 2;
	if (ncap > LBT_TALLY_SMALL)
		ncap = LBT_TALLY_SMALL;
	if ((p = realloc(t->u.off, ncap * sizeof(*p))) == NULL)
		return -1;
	t->u.off = p;
	t->cap = (uint16_t)ncap;
	return 0;
}

/* Count n events in bucket.  @return 0 or -1 (no memory, bad arguments). */
int lbt_tally_add(lbt_tally *t, int64_t bucket, int64_t n)
{
	if (bucket == INT64_MIN || n < 1)
		return -1;
	if (t->is_series)
		return lbt_series_add_bucket(t->u.series, bucket, n);
	if (t->n == 0)
		t->base = bucket >= INT64_MIN + 1 + LBT_TALLY_SLACK ? bucket - LBT_TALLY_SLACK : bucket;
	if (bucket < t->base || (uint64_t)bucket - (uint64_t)t->base > UINT16_MAX ||
	    n > LBT_TALLY_SMALL - t->n)
		return to_series(t) < 0 ? -1 : lbt_series_add_bucket(t->u.series, bucket, n);
	if (reserve(t, (uint32_t)n) < 0)
		return -1;
	uint16_t off = (uint16_t)(bucket - t->base);

	if (t->n > 0 && off < t->u.off[t->n - 1])
		t->unsorted = 1;
	for (int64_t i = 0; i < n; i++)
		t->u.off[t->n++] = off;
	return 0;
}

/* qsort order of 16-bit offsets. */
static int off_cmp(const void *a, const void *b)
{
	uint16_t x = *(const uint16_t *)a, y = *(const uint16_t *)b;

	return (x > y) - (x < y);
}

/* Put the bag in order, once. */
static void sort_bag(lbt_tally *t)
{
	if (t->is_series || !t->unsorted)
		return;
	qsort(t->u.off, t->n, sizeof(*t->u.off), off_cmp);
	t->unsorted = 0;
}

/* @return the number of equal offsets from position i of the sorted bag. */
static uint32_t run_len(const lbt_tally *t, uint32_t i)
{
	uint32_t j = i + 1;

	while (j < t->n && t->u.off[j] == t->u.off[i])
		j++;
	return j - i;
}

/* Add src's buckets to dst.  @return 0 or -1 (out of memory). */
int lbt_tally_merge(lbt_tally *dst, const lbt_tally *src)
{
	lbt_series_point *p;
	size_t n;
	int rc = 0;

	if (!src->is_series) {
		for (uint32_t i = 0; i < src->n; i++)
			if (lbt_tally_add(dst, src->base + src->u.off[i], 1) < 0)
				return -1;
		return 0;
	}
	if ((p = lbt_series_points(src->u.series, &n)) == NULL)
		return -1;
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = lbt_tally_add(dst, p[i].bucket, p[i].value);
	free(p);
	return rc;
}

/* @return the touched buckets. */
size_t lbt_tally_nbuckets(lbt_tally *t)
{
	size_t k = 0;

	if (t->is_series)
		return lbt_series_nbuckets(t->u.series);
	sort_bag(t);
	for (uint32_t i = 0; i < t->n; i += run_len(t, i))
		k++;
	return k;
}

/* Largest count, the earliest bucket on ties.  @return 0, or -1 when empty. */
int lbt_tally_peak(lbt_tally *t, int64_t *bucket, int64_t *count)
{
	uint32_t best = 0, best_len = 0;

	if (t->is_series)
		return lbt_series_peak(t->u.series, bucket, count);
	if (t->n == 0)
		return -1;
	sort_bag(t);
	for (uint32_t i = 0, len; i < t->n; i += len)
		if ((len = run_len(t, i)) > best_len)
			best = i, best_len = len;
	*bucket = t->base + t->u.off[best];
	*count = best_len;
	return 0;
}

/* Touched buckets by time, malloc'ed.  @return them, or NULL (no memory). */
lbt_series_point *lbt_tally_points(lbt_tally *t, size_t *n)
{
	lbt_series_point *out;
	size_t k = 0;

	if (t->is_series)
		return lbt_series_points(t->u.series, n);
	sort_bag(t);
	if ((out = malloc((t->n ? t->n : 1) * sizeof(*out))) == NULL)
		return NULL;
	for (uint32_t i = 0, len; i < t->n; i += len) {
		len = run_len(t, i);
		out[k++] = (lbt_series_point){ t->base + t->u.off[i], len };
	}
	*n = k;
	return out;
}

/* Buckets first..last, untouched ones 0.  @return them, or NULL. */
int64_t *lbt_tally_dense(const lbt_tally *t, int64_t first, int64_t last)
{
	int64_t *v;

	if (t->is_series)
		return lbt_series_dense(t->u.series, first, last);
	if (last < first || last - first >= MAX_DENSE ||
	    (v = calloc((size_t)(last - first + 1), sizeof(*v))) == NULL)
		return NULL;
	for (uint32_t i = 0; i < t->n; i++) {
		int64_t b = t->base + t->u.off[i];

		if (b >= first && b <= last)
			v[b - first]++;
	}
	return v;
}

/* @return the bytes held outside the struct. */
size_t lbt_tally_bytes(const lbt_tally *t)
{
	if (t->is_series)
		return lbt_series_bytes(t->u.series);
	return (size_t)t->cap * sizeof(*t->u.off);
}

/* Free the offsets or the series; the tally is empty again. */
void lbt_tally_free(lbt_tally *t)
{
	if (t == NULL)
		return;
	if (t->is_series)
		lbt_series_free(t->u.series);
	else
		free(t->u.off);
	*t = (lbt_tally)LBT_TALLY_INIT;
}
