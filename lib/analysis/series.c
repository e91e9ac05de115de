/*
 * series.c - sparse time-bucketed counters and the readings taken from
 * them (see series.h).
 *
 * The table is open addressing with linear probing over (bucket, value)
 * pairs, INT64_MIN marking an empty slot, kept at most 3/4 full.  Buckets
 * are hashed with a Fibonacci multiply so consecutive seconds spread out.
 * What a series means over time (baselines, episodes) is changepoint.c's.
 */
#include <stdlib.h>
#include <string.h>

#include "lbt/series.h"
#include "lbt/timeparse.h"

#define EMPTY INT64_MIN
#define MAX_DENSE ((int64_t)1 << 28)

struct lbt_series {
	int64_t step_us;
	lbt_series_point *slots;
	size_t mask;              /* slot count - 1 */
	int shift;                /* 64 - log2(slot count) */
	size_t count;             /* touched buckets */
	size_t last;              /* slot of the last bucket touched */
};

/* floor(t_us / step_us), rounding towards minus infinity. */
int64_t lbt_bucket_of(int64_t t_us, int64_t step_us)
{
	int64_t q = t_us / step_us;

	return (t_us % step_us != 0 && t_us < 0) ? q - 1 : q;
}

/* @return the home slot of a bucket: Fibonacci hashing, the top bits of
 * the product, so that consecutive buckets spread over the table. */
static size_t home(const lbt_series *s, int64_t bucket)
{
	return (size_t)(((uint64_t)bucket * 0x9e3779b97f4a7c15ull) >> s->shift);
}

/* Allocate cap (a power of two) empty slots.  @return them or NULL. */
static lbt_series_point *new_slots(size_t cap)
{
	lbt_series_point *p = malloc(cap * sizeof(*p));

	if (p != NULL)
		for (size_t i = 0; i < cap; i++)
			p[i].bucket = EMPTY;
	return p;
}

/* An empty series of step_us buckets (4 slots).  @return it, or NULL
 * when out of memory or step_us is not positive. */
lbt_series *lbt_series_new(int64_t step_us)
{
	lbt_series *s = calloc(1, sizeof(*s));

	if (s == NULL || step_us <= 0) {
		free(s);
		return NULL;
	}
	s->step_us = step_us;
	s->mask = 3;
	s->shift = 62;
	if ((s->slots = new_slots(s->mask + 1)) == NULL) {
		free(s);
		return NULL;
	}
	return s;
}

/* Free a series; NULL accepted. */
void lbt_series_free(lbt_series *s)
{
	if (s == NULL)
		return;
	free(s->slots);
	free(s);
}

/* @return the bucket width in µs. */
int64_t lbt_series_step(const lbt_series *s)
{
	return s->step_us;
}

/* Slot of bucket, or of the empty slot where it would go. */
static size_t probe(const lbt_series *s, int64_t bucket)
{
	size_t i = home(s, bucket);

	while (s->slots[i].bucket != EMPTY && s->slots[i].bucket != bucket)
		i = (i + 1) & s->mask;
	return i;
}

/* Double the table.  @return 0 or -1 (no memory). */
static int grow(lbt_series *s)
{
	size_t ocap = s->mask + 1;
	lbt_series_point *old = s->slots, *ns = new_slots(ocap * 2);

	if (ns == NULL)
		return -1;
	s->slots = ns;
	s->mask = ocap * 2 - 1;
	s->shift--;
	for (size_t i = 0; i < ocap; i++)
		if (old[i].bucket != EMPTY)
			s->slots[probe(s, old[i].bucket)] = old[i];
	free(old);
	s->last = 0;
	return 0;
}

/*
 * The slot of bucket, created (value 0, *created = 1) when absent.
 * @return a pointer to it, or NULL when out of memory.
 */
static lbt_series_point *slot_for(lbt_series *s, int64_t bucket, int *created)
{
	size_t i;

	*created = 0;
	if (s->slots[s->last].bucket == bucket)
		return &s->slots[s->last];
	i = probe(s, bucket);
	if (s->slots[i].bucket == EMPTY) {
		if ((s->count + 1) * 4 > (s->mask + 1) * 3) {
			if (grow(s) < 0)
				return NULL;
			i = probe(s, bucket);
		}
		s->slots[i] = (lbt_series_point){ bucket, 0 };
		s->count++;
		*created = 1;
	}
	s->last = i;
	return &s->slots[i];
}

/* Add n to a bucket.  @return 0, or -1 when out of memory (or for the
 * reserved bucket INT64_MIN). */
int lbt_series_add_bucket(lbt_series *s, int64_t bucket, int64_t n)
{
	int created;
	lbt_series_point *p;

	if (bucket == EMPTY || (p = slot_for(s, bucket, &created)) == NULL)
		return -1;
	p->value += n;
	return 0;
}

/* Add n to the bucket of t_us.  @return 0 or -1 (out of memory). */
int lbt_series_add(lbt_series *s, int64_t t_us, int64_t n)
{
	return lbt_series_add_bucket(s, lbt_bucket_of(t_us, s->step_us), n);
}

/* Add src's touched buckets to dst (equal steps).  @return 0 or -1. */
int lbt_series_merge(lbt_series *dst, const lbt_series *src)
{
	if (dst->step_us != src->step_us)
		return -1;
	for (size_t i = 0; i <= src->mask; i++)
		if (src->slots[i].bucket != EMPTY &&
		    lbt_series_add_bucket(dst, src->slots[i].bucket, src->slots[i].value) < 0)
			return -1;
	return 0;
}

/* Raise the bucket of t_us to v (a new bucket takes v).  @return 0 or -1. */
int lbt_series_max(lbt_series *s, int64_t t_us, int64_t v)
{
	int created;
	lbt_series_point *p = slot_for(s, lbt_bucket_of(t_us, s->step_us), &created);

	if (p == NULL)
		return -1;
	if (created || v > p->value)
		p->value = v;
	return 0;
}

/* @return a bucket's value, 0 when untouched; the cached slot first. */
int64_t lbt_series_get(const lbt_series *s, int64_t bucket)
{
	size_t i;

	if (bucket == EMPTY)
		return 0;
	if (s->slots[s->last].bucket == bucket)
		return s->slots[s->last].value;
	i = probe(s, bucket);
	return s->slots[i].bucket == EMPTY ? 0 : s->slots[i].value;
}

/* @return the number of buckets touched. */
size_t lbt_series_nbuckets(const lbt_series *s)
{
	return s->count;
}

/* @return the sum of every bucket (one pass over the table). */
int64_t lbt_series_total(const lbt_series *s)
{
	int64_t t = 0;

	for (size_t i = 0; i <= s->mask; i++)
		if (s->slots[i].bucket != EMPTY)
			t += s->slots[i].value;
	return t;
}

/* First and last bucket touched.  @return 0, or -1 when empty. */
int lbt_series_span(const lbt_series *s, int64_t *first, int64_t *last)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN;

	if (s->count == 0)
		return -1;
	for (size_t i = 0; i <= s->mask; i++) {
		int64_t b = s->slots[i].bucket;

		if (b == EMPTY)
			continue;
		if (b < lo)
			lo = b;
		if (b > hi)
			hi = b;
	}
	*first = lo;
	*last = hi;
	return 0;
}

/* Largest value, earliest bucket on ties.  @return 0, or -1 when empty. */
int lbt_series_peak(const lbt_series *s, int64_t *bucket, int64_t *value)
{
	const lbt_series_point *best = NULL;

	for (size_t i = 0; i <= s->mask; i++) {
		const lbt_series_point *p = &s->slots[i];

		if (p->bucket == EMPTY)
			continue;
		if (best == NULL || p->value > best->value ||
		    (p->value == best->value && p->bucket < best->bucket))
			best = p;
	}
	if (best == NULL)
		return -1;
	*bucket = best->bucket;
	*value = best->value;
	return 0;
}

/* @return the sum of the buckets in [from, to]. */
int64_t lbt_series_sum_range(const lbt_series *s, int64_t from, int64_t to)
{
	int64_t t = 0;

	for (size_t i = 0; i <= s->mask; i++) {
		int64_t b = s->slots[i].bucket;

		if (b != EMPTY && b >= from && b <= to)
			t += s->slots[i].value;
	}
	return t;
}

/* qsort order of points: by bucket. */
static int point_cmp(const void *a, const void *b)
{
	const lbt_series_point *x = a, *y = b;

	return (x->bucket > y->bucket) - (x->bucket < y->bucket);
}

/* Touched buckets sorted by time, malloc'ed, *n set.  @return the array,
 * or NULL when out of memory. */
lbt_series_point *lbt_series_points(const lbt_series *s, size_t *n)
{
	lbt_series_point *out = malloc((s->count ? s->count : 1) * sizeof(*out));
	size_t k = 0;

	if (out == NULL)
		return NULL;
	for (size_t i = 0; i <= s->mask; i++)
		if (s->slots[i].bucket != EMPTY)
			out[k++] = s->slots[i];
	qsort(out, k, sizeof(*out), point_cmp);
	*n = k;
	return out;
}

/* Buckets first..last as a malloc'ed array, untouched ones 0.  @return it,
 * or NULL when out of memory or the range is empty or absurd. */
int64_t *lbt_series_dense(const lbt_series *s, int64_t first, int64_t last)
{
	int64_t *v;

	if (last < first || last - first >= MAX_DENSE)
		return NULL;
	v = calloc((size_t)(last - first + 1), sizeof(*v));
	if (v == NULL)
		return NULL;
	for (size_t i = 0; i <= s->mask; i++) {
		int64_t b = s->slots[i].bucket;

		if (b != EMPTY && b >= first && b <= last)
			v[b - first] = s->slots[i].value;
	}
	return v;
}

/* @return the bytes the series holds. */
size_t lbt_series_bytes(const lbt_series *s)
{
	return sizeof(*s) + (s->mask + 1) * sizeof(lbt_series_point);
}

/* @return the index of the first largest element (0 when n is 0). */
size_t lbt_peak_i64(const int64_t *v, size_t n)
{
	size_t best = 0;

	for (size_t i = 1; i < n; i++)
		if (v[i] > v[best])
			best = i;
	return best;
}

/* UTF-8 sparkline of v[0..n) in at most width cells into buf, never
 * past size.  @return the bytes written. */
size_t lbt_sparkline(const int64_t *v, size_t n, size_t width, char *buf, size_t size)
{
	size_t cells = n < width ? n : width, len = 0;
	int64_t max = n ? v[lbt_peak_i64(v, n)] : 0;

	if (size == 0)
		return 0;
	for (size_t c = 0; c < cells && len + 4 <= size; c++) {
		size_t lo = c * n / cells, hi = (c + 1) * n / cells;
		int64_t x = v[lo];

		for (size_t i = lo + 1; i < hi; i++)
			if (v[i] > x)
				x = v[i];
		if (x <= 0 || max <= 0) {
			buf[len++] = ' ';
			continue;
		}
		/* Levels 1..8: ceil(8 x / max), so any activity shows. */
		int level = (int)((x * 8 + max - 1) / max);

		buf[len++] = (char)0xe2;
		buf[len++] = (char)0x96;
		buf[len++] = (char)(0x80 + level);
	}
	buf[len] = '\0';
	return len;
}

/* ISO 8601 UTC start of a bucket, whole seconds or milliseconds.
 * @return the length written (0 when buf is too small). */
size_t lbt_bucket_format(int64_t bucket, int64_t step_us, char *buf, size_t size)
{
	if (size < 25) {
		if (size)
			buf[0] = '\0';
		return 0;
	}
	return lbt_time_format_s(bucket * step_us, buf, size);
}
