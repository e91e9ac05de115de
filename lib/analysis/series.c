/*
 * series.c - sparse time-bucketed counters and the readings taken from
 * them (see series.h).
 *
 * Two forms.  A series starts as a run: cells of (bucket - base, value)
 * in 32 bits each, sorted by bucket, 8 bytes a touched bucket.  Logs come
 * nearly in time order (a request is logged when it ends, stamped when it
 * was accepted), so a new bucket is found and inserted a few cells from
 * the end.  A bucket further back than RUN_REACH cells, outside 32 bits
 * of the base, or a value that does not fit 32 bits turns the run, once,
 * into the table: open addressing with linear probing over (bucket,
 * value) pairs, INT64_MIN marking an empty slot, kept at most 3/4 full
 * (21 to 43 bytes a bucket), buckets hashed with a Fibonacci multiply so
 * consecutive seconds spread out.  Per-source series of a large log are
 * mostly runs: lbt-offenders' memory is a third of what the table alone
 * took (docs/memory.md).
 * What a series means over time (baselines, episodes) is changepoint.c's.
 */
#include <stdlib.h>
#include <string.h>

#include "lbt/series.h"
#include "lbt/timeparse.h"

#define EMPTY INT64_MIN
#define MAX_DENSE ((int64_t)1 << 28)
#define RUN_REACH 32              /* cells a new bucket may sit before the end */
#define RUN_SLACK 64              /* buckets before the first one the base allows */

/* A cell of a run: bucket base + off. */
struct cell {
	uint32_t off;
	int32_t value;
};

struct lbt_series {
	int64_t step_us;
	lbt_series_point *slots;  /* the table; NULL while a run */
	size_t mask;              /* slot count - 1 */
	int shift;                /* 64 - log2(slot count) */
	size_t count;             /* touched buckets */
	size_t last;              /* slot (or cell) of the last bucket touched */
	struct cell *cells;       /* the run, count of cap used */
	size_t cap;
	int64_t base;
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
	return s;
}

/* Free a series; NULL accepted. */
void lbt_series_free(lbt_series *s)
{
	if (s == NULL)
		return;
	free(s->slots);
	free(s->cells);
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

/* Turn the run into the table (see the file comment), once.
 * @return 0 or -1 (no memory; the run is kept). */
static int to_table(lbt_series *s)
{
	size_t cap = 4;
	int shift = 62;

	while ((s->count + 1) * 4 > cap * 3)
		cap *= 2, shift--;
	if ((s->slots = new_slots(cap)) == NULL)
		return -1;
	s->mask = cap - 1;
	s->shift = shift;
	for (size_t i = 0; i < s->count; i++)
		s->slots[probe(s, s->base + s->cells[i].off)] =
		    (lbt_series_point){ s->base + s->cells[i].off, s->cells[i].value };
	free(s->cells);
	s->cells = NULL;
	s->cap = 0;
	s->last = 0;
	return 0;
}

/* Binary search of bucket in the run.  @return 1 with *i its cell, or 0
 * with *i the cell it would go before. */
static int run_search(const lbt_series *s, int64_t bucket, size_t *i)
{
	size_t lo = 0, hi = s->count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->base + s->cells[mid].off < bucket)
			lo = mid + 1;
		else
			hi = mid;
	}
	*i = lo;
	return lo < s->count && s->base + s->cells[lo].off == bucket;
}

/* Where bucket goes in the run: the last cell touched, else a search back
 * from the end of at most RUN_REACH cells.  @return 1 with *i its cell, 0
 * with *i the cell to insert before, -1 when the run cannot take it. */
static int run_find(const lbt_series *s, int64_t bucket, size_t *i)
{
	size_t k = s->count;
	uint32_t off;

	if (bucket < s->base || (uint64_t)bucket - (uint64_t)s->base > UINT32_MAX)
		return -1;
	off = (uint32_t)(bucket - s->base);
	if (s->last < s->count && s->cells[s->last].off == off) {
		*i = s->last;
		return 1;
	}
	for (; k > 0 && s->cells[k - 1].off > off; k--)
		if (s->count - k >= RUN_REACH)
			return -1;
	if (k > 0 && s->cells[k - 1].off == off) {
		*i = k - 1;
		return 1;
	}
	*i = k;
	return 0;
}

/* Room for n cells in the run, exactly (a merge knows its total).  @return 0 or -1. */
static int reserve_cells(lbt_series *s, size_t n)
{
	struct cell *nc = realloc(s->cells, n * sizeof(*nc));

	if (nc == NULL)
		return -1;
	s->cells = nc;
	s->cap = n;
	return 0;
}

/* Insert an empty cell for bucket before cell i.  @return 0 or -1. */
static int run_insert(lbt_series *s, int64_t bucket, size_t i)
{
	if (s->count == s->cap) {
		size_t ncap = s->cap < 4 ? 4 : s->cap + s->cap / 2;
		struct cell *nc = realloc(s->cells, ncap * sizeof(*nc));

		if (nc == NULL)
			return -1;
		s->cells = nc;
		s->cap = ncap;
	}
	memmove(s->cells + i + 1, s->cells + i, (s->count - i) * sizeof(*s->cells));
	s->cells[i] = (struct cell){ (uint32_t)(bucket - s->base), 0 };
	s->count++;
	return 0;
}

/* Add n to bucket (is_max: raise it to n) in the run.  @return 0 done,
 * 1 when it needs the table, -1 when out of memory. */
static int run_update(lbt_series *s, int64_t bucket, int64_t n, int is_max)
{
	size_t i;
	int found;
	int64_t v;

	if (s->count == 0)
		s->base = bucket >= INT64_MIN + 1 + RUN_SLACK ? bucket - RUN_SLACK : bucket;
	if ((found = run_find(s, bucket, &i)) < 0)
		return 1;
	v = !found ? n : is_max ? (n > s->cells[i].value ? n : s->cells[i].value) :
	    s->cells[i].value + n;
	if (v < INT32_MIN || v > INT32_MAX)
		return 1;
	if (!found && run_insert(s, bucket, i) < 0)
		return -1;
	s->cells[i].value = (int32_t)v;
	s->last = i;
	return 0;
}

/* Add n to a bucket, or raise it to n (is_max; a new bucket takes n).
 * @return 0, or -1 when out of memory or for the reserved INT64_MIN. */
static int update(lbt_series *s, int64_t bucket, int64_t n, int is_max)
{
	lbt_series_point *p;
	int created, rc;

	if (bucket == EMPTY)
		return -1;
	if (s->slots == NULL) {
		if ((rc = run_update(s, bucket, n, is_max)) <= 0)
			return rc;
		if (to_table(s) < 0)
			return -1;
	}
	if ((p = slot_for(s, bucket, &created)) == NULL)
		return -1;
	if (!is_max)
		p->value += n;
	else if (created || n > p->value)
		p->value = n;
	return 0;
}

/* Add n to a bucket.  @return 0, or -1 when out of memory (or for the
 * reserved bucket INT64_MIN). */
int lbt_series_add_bucket(lbt_series *s, int64_t bucket, int64_t n)
{
	return update(s, bucket, n, 0);
}

/* Add n to the bucket of t_us.  @return 0 or -1 (out of memory). */
int lbt_series_add(lbt_series *s, int64_t t_us, int64_t n)
{
	return lbt_series_add_bucket(s, lbt_bucket_of(t_us, s->step_us), n);
}

/* @return the number of positions point_at() reads. */
static size_t npos(const lbt_series *s)
{
	return s->slots ? s->mask + 1 : s->count;
}

/* Position i of the run or table as a point in *p.  @return 1, or 0 for
 * an empty slot. */
static int point_at(const lbt_series *s, size_t i, lbt_series_point *p)
{
	if (s->slots == NULL) {
		*p = (lbt_series_point){ s->base + s->cells[i].off, s->cells[i].value };
		return 1;
	}
	*p = s->slots[i];
	return p->bucket != EMPTY;
}

/* Add src's touched buckets to dst (equal steps).  @return 0 or -1. */
int lbt_series_merge(lbt_series *dst, const lbt_series *src)
{
	lbt_series_point p;

	if (dst->step_us != src->step_us)
		return -1;
	if (dst->slots == NULL && src->slots == NULL && dst->count + src->count > dst->cap &&
	    reserve_cells(dst, dst->count + src->count) < 0)
		return -1;
	for (size_t i = 0; i < npos(src); i++)
		if (point_at(src, i, &p) && lbt_series_add_bucket(dst, p.bucket, p.value) < 0)
			return -1;
	return 0;
}

/* Raise the bucket of t_us to v (a new bucket takes v).  @return 0 or -1. */
int lbt_series_max(lbt_series *s, int64_t t_us, int64_t v)
{
	return update(s, lbt_bucket_of(t_us, s->step_us), v, 1);
}

/* @return a bucket's value, 0 when untouched; the cached slot first. */
int64_t lbt_series_get(const lbt_series *s, int64_t bucket)
{
	size_t i;

	if (bucket == EMPTY)
		return 0;
	if (s->slots == NULL) {
		if (s->last < s->count && s->base + s->cells[s->last].off == bucket)
			return s->cells[s->last].value;
		return run_search(s, bucket, &i) ? s->cells[i].value : 0;
	}
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

/* @return the sum of every bucket (one pass). */
int64_t lbt_series_total(const lbt_series *s)
{
	lbt_series_point p;
	int64_t t = 0;

	for (size_t i = 0; i < npos(s); i++)
		if (point_at(s, i, &p))
			t += p.value;
	return t;
}

/* First and last bucket touched.  @return 0, or -1 when empty. */
int lbt_series_span(const lbt_series *s, int64_t *first, int64_t *last)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	lbt_series_point p;

	if (s->count == 0)
		return -1;
	if (s->slots == NULL) {           /* a run is sorted */
		*first = s->base + s->cells[0].off;
		*last = s->base + s->cells[s->count - 1].off;
		return 0;
	}
	for (size_t i = 0; i < npos(s); i++) {
		if (!point_at(s, i, &p))
			continue;
		if (p.bucket < lo)
			lo = p.bucket;
		if (p.bucket > hi)
			hi = p.bucket;
	}
	*first = lo;
	*last = hi;
	return 0;
}

/* Largest value, earliest bucket on ties.  @return 0, or -1 when empty. */
int lbt_series_peak(const lbt_series *s, int64_t *bucket, int64_t *value)
{
	lbt_series_point p, best = { EMPTY, 0 };

	for (size_t i = 0; i < npos(s); i++) {
		if (!point_at(s, i, &p))
			continue;
		if (best.bucket == EMPTY || p.value > best.value ||
		    (p.value == best.value && p.bucket < best.bucket))
			best = p;
	}
	if (best.bucket == EMPTY)
		return -1;
	*bucket = best.bucket;
	*value = best.value;
	return 0;
}

/* @return the sum of the buckets in [from, to]. */
int64_t lbt_series_sum_range(const lbt_series *s, int64_t from, int64_t to)
{
	lbt_series_point p;
	int64_t t = 0;

	for (size_t i = 0; i < npos(s); i++)
		if (point_at(s, i, &p) && p.bucket >= from && p.bucket <= to)
			t += p.value;
	return t;
}

/* qsort order of points: by bucket. */
static int point_cmp(const void *a, const void *b)
{
	const lbt_series_point *x = a, *y = b;

	return (x->bucket > y->bucket) - (x->bucket < y->bucket);
}

/* Touched buckets sorted by time, malloc'ed, *n set (a run is sorted
 * already).  @return the array, or NULL when out of memory. */
lbt_series_point *lbt_series_points(const lbt_series *s, size_t *n)
{
	lbt_series_point *out = malloc((s->count ? s->count : 1) * sizeof(*out)), p;
	size_t k = 0;

	if (out == NULL)
		return NULL;
	for (size_t i = 0; i < npos(s); i++)
		if (point_at(s, i, &p))
			out[k++] = p;
	if (s->slots != NULL)
		qsort(out, k, sizeof(*out), point_cmp);
	*n = k;
	return out;
}

/* Buckets first..last as a malloc'ed array, untouched ones 0.  @return it,
 * or NULL when out of memory or the range is empty or absurd. */
int64_t *lbt_series_dense(const lbt_series *s, int64_t first, int64_t last)
{
	lbt_series_point p;
	int64_t *v;

	if (last < first || last - first >= MAX_DENSE)
		return NULL;
	v = calloc((size_t)(last - first + 1), sizeof(*v));
	if (v == NULL)
		return NULL;
	for (size_t i = 0; i < npos(s); i++)
		if (point_at(s, i, &p) && p.bucket >= first && p.bucket <= last)
			v[p.bucket - first] = p.value;
	return v;
}

/* @return the bytes the series holds. */
size_t lbt_series_bytes(const lbt_series *s)
{
	return sizeof(*s) + (s->slots ? (s->mask + 1) * sizeof(lbt_series_point) :
	    s->cap * sizeof(struct cell));
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
