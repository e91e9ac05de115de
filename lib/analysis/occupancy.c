/*
 * occupancy.c - slot occupancy rebuilt from request intervals (see
 * occupancy.h for what the numbers mean): the public API, the buckets
 * every stream shares, the streams, and the results of finish().
 *
 * Per stream (input file): a radix heap of pending endpoints and its sweep
 * (occupancy_sweep.c).  Shared by all streams: the buckets, in an lbt_hmap
 * keyed by the 8-byte bucket number (sparse: a bogus date far away costs
 * one entry, not a dense array up to it).  slot_us is added straight into
 * the buckets when a request arrives; maxima are written when a sweep
 * leaves a bucket (the head's when the stream is finished), through
 * occupancy_bucket.c.  Merging two occupancies is occupancy_merge.c.
 */
#include <stdlib.h>
#include <string.h>

#include "lbt/hmap.h"
#include "lbt/occupancy.h"
#include "lbt/series.h"
#include "occupancy_int.h"

/* Add the slot-µs of [s, e) to every bucket it overlaps.  @return 0 or -1. */
static int add_slots(lbt_occ *o, int64_t s, int64_t e, int tarpit)
{
	int64_t step = o->o.step_us;
	int64_t b, last = lbt_bucket_of(e - 1, step);

	for (b = lbt_bucket_of(s, step); b <= last; b++) {
		int64_t lo = b * step > s ? b * step : s;
		int64_t hi = (b + 1) * step < e ? (b + 1) * step : e;
		lbt_occ_bucket *p = lbt_occi_bucket_get(o, b);

		if (p == NULL)
			return -1;
		p->slot_us += hi - lo;
		if (tarpit)
			p->tarpit_us += hi - lo;
	}
	return 0;
}

/* The stream of `id`, created when new.  @return it, or NULL (out of memory). */
static struct stream *stream_of(lbt_occ *o, const void *id)
{
	struct stream *s;
	size_t i;

	if (o->last_st != NULL && o->last_st->id == id)
		return o->last_st;
	for (i = 0; i < o->nst; i++)
		if (o->st[i]->id == id)
			return o->last_st = o->st[i];
	if (lbt_occi_grow((void **)&o->st, &o->capst, o->nst + 1, sizeof(*o->st)) < 0)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return NULL;
	s->id = id;
	o->st[o->nst++] = s;
	o->stats.streams++;
	return o->last_st = s;
}

/* The bytes of one stream; see occupancy.h. */
size_t lbt_occ_stream_bytes(void)
{
	return sizeof(struct stream);
}

/* An empty occupancy with copied options; NULL on bad options or no memory. */
lbt_occ *lbt_occ_new(const lbt_occ_opts *opts)
{
	lbt_occ *o;

	if (opts == NULL || opts->step_us <= 0 || opts->window_us < 0)
		return NULL;
	o = calloc(1, sizeof(*o));
	if (o == NULL)
		return NULL;
	o->o = *opts;
	o->buckets = lbt_hmap_new(sizeof(struct obucket));
	if (o->buckets == NULL) {
		free(o);
		return NULL;
	}
	return o;
}

/* Free the occupancy, its streams and results; NULL accepted. */
void lbt_occ_free(lbt_occ *o)
{
	size_t i;

	if (o == NULL)
		return;
	for (i = 0; i < o->nst; i++)
		lbt_occi_stream_free(o->st[i]);
	free(o->st);
	lbt_hmap_free(o->buckets);
	free(o->sorted);
	free(o->per[0]);
	free(o->per[1]);
	free(o);
}

/* Add one request's slot interval to its stream (see occupancy.h).  @return 0 or -1. */
int lbt_occ_add(lbt_occ *o, const void *stream, int64_t start_us, int64_t end_us,
    int tarpit)
{
	struct stream *s;
	uint32_t tp = tarpit ? EV_TARPIT : 0;
	int instant = end_us <= start_us;

	if (o->finished || (s = stream_of(o, stream)) == NULL)
		return -1;
	if (instant) {
		end_us = start_us;
		o->stats.instant++;
	}
	o->stats.intervals++;
	o->stats.tarpit += tarpit != 0;
	o->stats.slot_us += end_us - start_us;
	if (tarpit)
		o->stats.tarpit_us += end_us - start_us;
	if (!instant && add_slots(o, start_us, end_us, tarpit) < 0)
		return -1;
	if (!s->has_first) {
		s->has_first = 1;
		s->fence = start_us + o->o.window_us + 1;
		s->min_start = start_us;
	}
	if (s->has_swept && start_us < s->swept) {
		o->stats.late++;
		if (lbt_occi_late(o, s, start_us, instant ? start_us + 1 : end_us, tarpit) < 0)
			return -1;
		if (instant || end_us <= s->swept)
			return 0;
		start_us = s->swept;
	}
	if (start_us < s->min_start)
		s->min_start = start_us;
	if (instant ? lbt_occi_rh_push(&s->rh, start_us, EV_INSTANT | tp) < 0 :
	    lbt_occi_rh_push(&s->rh, start_us, EV_START | tp) < 0 ||
	    lbt_occi_rh_push(&s->rh, end_us, EV_END | tp) < 0)
		return -1;
	if (!s->has_wm || end_us > s->wm) {
		s->wm = end_us;
		s->has_wm = 1;
	}
	return lbt_occi_sweep(o, s, s->wm - o->o.window_us);
}

/* qsort order of buckets: by number. */
static int bucket_cmp(const void *a, const void *b)
{
	const lbt_occ_bucket *x = a, *y = b;

	return (x->bucket > y->bucket) - (x->bucket < y->bucket);
}

/* Compare two numbers for qsort.  @return -1, 0 or 1. */
static int cmp64(int64_t x, int64_t y)
{
	return (x > y) - (x < y);
}

/* qsort order of periods: by start, then end; periods of several streams
 * with the same bounds by peak (largest first), its moment, its tarpitted
 * slots, time above and flags, so that periods_join() keeps the same peak
 * whatever the order of the streams. */
static int period_cmp(const void *a, const void *b)
{
	const lbt_occ_period *x = a, *y = b;
	int c;

	if ((c = cmp64(x->start_us, y->start_us)) != 0 ||
	    (c = cmp64(x->end_us, y->end_us)) != 0)
		return c;
	if ((c = cmp64(y->peak, x->peak)) != 0 ||
	    (c = cmp64(x->peak_at_us, y->peak_at_us)) != 0)
		return c;
	if ((c = cmp64(y->peak_tarpit, x->peak_tarpit)) != 0 ||
	    (c = cmp64(x->above_us, y->above_us)) != 0)
		return c;
	return cmp64(x->flags, y->flags);
}

/* Copy the buckets out of the map in time order and compute the peaks.
 * @return 0 or -1. */
static int collect_buckets(lbt_occ *o)
{
	size_t i, n = lbt_hmap_count(o->buckets);
	lbt_occ_stats *st = &o->stats;

	o->sorted = malloc((n ? n : 1) * sizeof(*o->sorted));
	if (o->sorted == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		lbt_hmap_entry e;

		lbt_hmap_at(o->buckets, i, &e);
		o->sorted[i] = ((const struct obucket *)e.val)->pub;
	}
	qsort(o->sorted, n, sizeof(*o->sorted), bucket_cmp);
	o->nsorted = n;
	for (i = 0; i < n; i++) {
		const lbt_occ_bucket *b = &o->sorted[i];

		st->upper_buckets += (b->flags & (LBT_OCC_LATE | LBT_OCC_MERGED)) != 0;
		if (b->max > st->peak) {
			st->peak = b->max;
			st->peak_tarpit = b->max_tarpit;
			st->peak_at_us = b->max_at_us;
			st->peak_flags = b->flags;
		}
		if (b->max_nt > st->peak_nt) {
			st->peak_nt = b->max_nt;
			st->peak_nt_at_us = b->max_at_us;
		}
	}
	return 0;
}

/*
 * Join sorted periods v[0..n) in place: a period starting less than one
 * step after the previous one ended (or overlapping it, which only
 * happens across streams: flagged MERGED) becomes part of it.
 * @return the new count.
 */
static size_t periods_join(lbt_occ_period *v, size_t n, int64_t step)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		lbt_occ_period *last = k > 0 ? &v[k - 1] : NULL;

		if (last == NULL || v[i].start_us - last->end_us >= step) {
			v[k++] = v[i];
			continue;
		}
		if (v[i].start_us < last->end_us)
			last->flags |= LBT_OCC_MERGED;
		if (v[i].end_us > last->end_us)
			last->end_us = v[i].end_us;
		last->above_us += v[i].above_us;
		if (last->above_us > last->end_us - last->start_us)
			last->above_us = last->end_us - last->start_us;
		if (v[i].peak > last->peak) {
			last->peak = v[i].peak;
			last->peak_tarpit = v[i].peak_tarpit;
			last->peak_at_us = v[i].peak_at_us;
		}
		last->flags |= v[i].flags;
	}
	return k;
}

/*
 * Buckets whose maximum is only an upper bound (late or merged) and
 * reaches the threshold, outside every period found by a sweep, become
 * periods of one whole bucket, flagged.  v has room for them (cap).
 * @return the new count.
 */
static size_t periods_from_buckets(const lbt_occ *o, int whatif, lbt_occ_period *v,
    size_t n)
{
	size_t i, j = 0, k = n, nsweep = n;
	int64_t step = o->o.step_us;

	for (i = 0; i < o->nsorted; i++) {
		const lbt_occ_bucket *b = &o->sorted[i];
		int32_t level = whatif ? b->max_nt : b->max;
		int64_t lo = b->bucket * step;

		if (!(b->flags & (LBT_OCC_LATE | LBT_OCC_MERGED)) || level < o->o.threshold)
			continue;
		while (j < nsweep && v[j].end_us <= lo)
			j++;
		if (j < nsweep && v[j].start_us < lo + step)
			continue;
		v[k] = (lbt_occ_period){ lo, lo + step, step, level,
		    whatif ? 0 : b->max_tarpit, whatif ? lo : b->max_at_us, b->flags };
		k++;
	}
	return k;
}

/* Build the periods of one kind (0 all slots, 1 untarpitted) from every
 * stream and the flagged buckets.  @return 0 or -1. */
static int collect_periods(lbt_occ *o, int whatif)
{
	size_t i, n = 0, cap = o->nsorted;
	lbt_occ_period *v;

	for (i = 0; i < o->nst; i++)
		cap += whatif ? o->st[i]->head.nt.n : o->st[i]->head.all.n;
	v = malloc((cap ? cap : 1) * sizeof(*v));
	if (v == NULL)
		return -1;
	for (i = 0; i < o->nst; i++) {
		const struct ptrack *t = whatif ? &o->st[i]->head.nt : &o->st[i]->head.all;

		if (t->n > 0)
			memcpy(v + n, t->v, t->n * sizeof(*v));
		n += t->n;
	}
	qsort(v, n, sizeof(*v), period_cmp);
	n = periods_join(v, n, o->o.step_us);
	n = periods_from_buckets(o, whatif, v, n);
	qsort(v, n, sizeof(*v), period_cmp);
	o->nper[whatif] = periods_join(v, n, o->o.step_us);
	o->per[whatif] = v;
	return 0;
}

/* Sweep every stream to its end, then sort buckets and build periods.  @return 0 or -1. */
int lbt_occ_finish(lbt_occ *o)
{
	size_t i;

	if (o->finished)
		return 0;
	o->finished = 1;
	for (i = 0; i < o->nst; i++)
		if (lbt_occi_stream_finish(o, o->st[i]) < 0)
			return -1;
	if (collect_buckets(o) < 0)
		return -1;
	if (o->o.threshold <= 0)
		return 0;
	if (collect_periods(o, 0) < 0 || collect_periods(o, 1) < 0)
		return -1;
	return 0;
}

/* The sorted buckets (after finish); *n their count. */
const lbt_occ_bucket *lbt_occ_buckets(const lbt_occ *o, size_t *n)
{
	*n = o->nsorted;
	return o->sorted;
}

/* The periods of one case (after finish); *n their count. */
const lbt_occ_period *lbt_occ_periods(const lbt_occ *o, int whatif, size_t *n)
{
	*n = o->nper[whatif != 0];
	return o->per[whatif != 0];
}

/* The counters and peaks. */
const lbt_occ_stats *lbt_occ_stats_get(const lbt_occ *o)
{
	return &o->stats;
}

/* The options given at creation. */
const lbt_occ_opts *lbt_occ_opts_get(const lbt_occ *o)
{
	return &o->o;
}
