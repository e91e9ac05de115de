/*
 * occupancy.c - slot occupancy rebuilt from request intervals (see
 * occupancy.h for what the numbers mean).
 *
 * Per stream (input file): a radix heap of pending endpoints, the slots held
 * at the sweep point (`cur`, and `cur_nt` without tarpitted requests), the
 * bucket being swept with its running maximum, and two period trackers.
 * Shared by all streams: the buckets, in an lbt_hmap keyed by the 8-byte
 * bucket number (sparse: a bogus date far away costs one entry, not a
 * dense array up to it).  slot_us is added straight into the buckets when
 * a request arrives; maxima are written when the sweep leaves a bucket.
 *
 * This file is the sweep; the radix heap and the endpoint kinds are in
 * occupancy_queue.c and occupancy_int.h.
 */
#include <stdlib.h>
#include <string.h>

#include "lbt/hmap.h"
#include "lbt/occupancy.h"
#include "lbt/series.h"
#include "occupancy_int.h"

/* Periods being built by one sweep (all slots, or untarpitted ones). */
struct ptrack {
	int open;                   /* currently at >= threshold */
	int64_t above_since;        /* when the current run at >= threshold began */
	lbt_occ_period cur;         /* the period being built */
	lbt_occ_period *v;          /* closed periods, in time order */
	size_t n, cap;
};

struct stream {
	const void *id;             /* caller's pointer (file name) */
	struct rheap rh;            /* pending endpoints, in (t, kind) order */
	int has_cb;                 /* cb and the running maxima are valid */
	int has_swept;              /* swept is valid */
	int has_wm;                 /* wm is valid */
	int64_t swept;              /* endpoints before it have been applied */
	int64_t wm;                 /* latest end seen */
	int32_t cur, cur_nt;        /* slots held at the sweep point */
	int64_t cb;                 /* bucket of the sweep point */
	int32_t bmax, bmax_tp, bmax_nt;
	int64_t bmax_at;
	uint32_t bflags;
	int carry;                  /* bmax is the level carried to cb's first
	                               instant, not yet held for any time */
	struct ptrack all, nt;
};

/* A bucket in the map: the public part first (bucket_get() hands out a
 * pointer to it), and the largest maximum one stream wrote into it. */
struct obucket {
	lbt_occ_bucket pub;
	int32_t smax;
};

struct lbt_occ {
	lbt_occ_opts o;
	lbt_hmap *buckets;          /* int64 bucket -> struct obucket */
	int64_t last_b;             /* cache of the last bucket looked up */
	lbt_occ_bucket *last;
	struct stream **st;
	size_t nst, capst;
	struct stream *last_st;
	lbt_occ_stats stats;
	int finished;
	lbt_occ_bucket *sorted;     /* after finish */
	size_t nsorted;
	lbt_occ_period *per[2];     /* after finish: all, what-if */
	size_t nper[2];
};


/* The bucket numbered b, created zeroed when new.  @return it, or NULL
 * when out of memory. */
static lbt_occ_bucket *bucket_get(lbt_occ *o, int64_t b)
{
	lbt_occ_bucket *p;
	int created = 0;

	if (o->last != NULL && o->last_b == b)
		return o->last;
	p = lbt_hmap_put(o->buckets, &b, sizeof(b), &created);
	if (p == NULL)
		return NULL;
	if (created)
		p->bucket = b;
	o->last = p;
	o->last_b = b;
	return p;
}

/* Add the slot-µs of [s, e) to every bucket it overlaps.  @return 0 or -1. */
static int add_slots(lbt_occ *o, int64_t s, int64_t e, int tarpit)
{
	int64_t step = o->o.step_us;
	int64_t b, last = lbt_bucket_of(e - 1, step);

	for (b = lbt_bucket_of(s, step); b <= last; b++) {
		int64_t lo = b * step > s ? b * step : s;
		int64_t hi = (b + 1) * step < e ? (b + 1) * step : e;
		lbt_occ_bucket *p = bucket_get(o, b);

		if (p == NULL)
			return -1;
		p->slot_us += hi - lo;
		if (tarpit)
			p->tarpit_us += hi - lo;
	}
	return 0;
}

/*
 * Write one stream's maximum for bucket b into the shared bucket: the
 * first stream sets it, later ones add to it (an upper bound, flagged).
 * The moment and tarpitted slots kept are those of the largest stream
 * maximum; of equal ones, the earliest moment, then the most tarpitted, so
 * that the order the streams are written in (the order of the files on the
 * command line, or of their first records) does not show.
 * A stream that held nothing there writes nothing.  @return 0 or -1.
 */
static int bucket_put_max(lbt_occ *o, int64_t b, int32_t max, int32_t tp, int64_t at,
    int32_t max_nt, uint32_t flags)
{
	lbt_occ_bucket *p;
	int32_t *smax;

	if (max == 0 && max_nt == 0 && flags == 0)
		return 0;
	p = bucket_get(o, b);
	if (p == NULL)
		return -1;
	smax = &((struct obucket *)(void *)p)->smax;     /* pub is its first member */
	if (p->nstreams > 0) {
		p->flags |= LBT_OCC_MERGED;
		if (max > *smax || (max == *smax && (at < p->max_at_us ||
		    (at == p->max_at_us && tp > p->max_tarpit)))) {
			p->max_at_us = at;
			p->max_tarpit = tp;
			*smax = max;
		}
		p->max += max;
		p->max_nt += max_nt;
	} else {
		p->max = *smax = max;
		p->max_tarpit = tp;
		p->max_at_us = at;
		p->max_nt = max_nt;
	}
	p->flags |= flags;
	p->nstreams++;
	return 0;
}

/*
 * Move the stream's sweep to bucket b (b > cb): write the maximum of cb,
 * then of every bucket in between (held constant at cur), and start b with
 * the slots still held.  @return 0 or -1.
 */
static int stream_goto(lbt_occ *o, struct stream *s, int64_t b)
{
	int64_t x, step = o->o.step_us;

	if (s->has_cb) {
		if (bucket_put_max(o, s->cb, s->bmax, s->bmax_tp, s->bmax_at, s->bmax_nt,
		    s->bflags) < 0)
			return -1;
		for (x = s->cb + 1; x < b && s->cur > 0; x++)
			if (bucket_put_max(o, x, s->cur, s->cur - s->cur_nt, x * step,
			    s->cur_nt, 0) < 0)
				return -1;
	}
	s->cb = b;
	s->has_cb = 1;
	s->bmax = s->cur;
	s->bmax_tp = s->cur - s->cur_nt;
	s->bmax_nt = s->cur_nt;
	s->bmax_at = b * step;
	s->bflags = 0;
	s->carry = 1;
	return 0;
}

/* Append period p to t, joining it to the previous one when it begins
 * less than `step` after that one ended.  @return 0 or -1. */
static int period_append(struct ptrack *t, const lbt_occ_period *p, int64_t step)
{
	lbt_occ_period *last = t->n > 0 ? &t->v[t->n - 1] : NULL;

	if (last != NULL && p->start_us - last->end_us < step) {
		if (p->end_us > last->end_us)
			last->end_us = p->end_us;
		last->above_us += p->above_us;
		if (p->peak > last->peak) {
			last->peak = p->peak;
			last->peak_tarpit = p->peak_tarpit;
			last->peak_at_us = p->peak_at_us;
		}
		last->flags |= p->flags;
		return 0;
	}
	if (lbt_occi_grow((void **)&t->v, &t->cap, t->n + 1, sizeof(*t->v)) < 0)
		return -1;
	t->v[t->n++] = *p;
	return 0;
}

/* Feed the level (slots held, tp of them tarpitted) reached at time t to
 * a period tracker.  @return 0 or -1. */
static int period_track(lbt_occ *o, struct ptrack *t, int32_t level, int32_t tp,
    int64_t at)
{
	if (level >= o->o.threshold) {
		if (!t->open) {
			memset(&t->cur, 0, sizeof(t->cur));
			t->open = 1;
			t->cur.start_us = at;
			t->above_since = at;
			t->cur.peak = -1;
		}
		if (level > t->cur.peak) {
			t->cur.peak = level;
			t->cur.peak_tarpit = tp;
			t->cur.peak_at_us = at;
		}
		return 0;
	}
	if (!t->open)
		return 0;
	t->open = 0;
	t->cur.end_us = at;
	t->cur.above_us = at - t->above_since;
	return period_append(t, &t->cur, o->o.step_us);
}

/* Raise the running maxima of the stream's bucket to `level` slots held,
 * `nt` of them untarpitted, at time t. */
static void stream_level(struct stream *s, int32_t level, int32_t nt, int64_t t)
{
	if (level > s->bmax) {
		s->bmax = level;
		s->bmax_tp = level - nt;
		s->bmax_at = t;
	}
	if (nt > s->bmax_nt)
		s->bmax_nt = nt;
}

/* Feed both period trackers the levels at time t.  @return 0 or -1. */
static int stream_periods(lbt_occ *o, struct stream *s, int32_t level, int32_t nt,
    int64_t t)
{
	if (o->o.threshold <= 0)
		return 0;
	if (period_track(o, &s->all, level, level - nt, t) < 0)
		return -1;
	return period_track(o, &s->nt, nt, 0, t);
}

/* Apply one endpoint to the stream's sweep.  @return 0 or -1. */
static int stream_apply(lbt_occ *o, struct stream *s, const struct ev *e)
{
	int64_t b = lbt_bucket_of(e->t, o->o.step_us);
	uint32_t type = EV_TYPE(e->kind);
	int32_t d = type == EV_START ? 1 : -1, nt = !(e->kind & EV_TARPIT);

	if ((!s->has_cb || b != s->cb) && stream_goto(o, s, b) < 0)
		return -1;
	if (type == EV_INSTANT) {
		s->carry = 0;
		stream_level(s, s->cur + 1, s->cur_nt + nt, e->t);
		if (stream_periods(o, s, s->cur + 1, s->cur_nt + nt, e->t) < 0)
			return -1;
		return stream_periods(o, s, s->cur, s->cur_nt, e->t);
	}
	s->cur += d;
	s->cur_nt += nt ? d : 0;
	if (s->carry && e->t == s->cb * o->o.step_us && type == EV_END) {
		/* the carried level lasted no time: what counts is the
		 * level once the intervals ending now have left */
		s->bmax = s->cur;
		s->bmax_tp = s->cur - s->cur_nt;
		s->bmax_nt = s->cur_nt;
	} else {
		s->carry = 0;
		stream_level(s, s->cur, s->cur_nt, e->t);
	}
	return stream_periods(o, s, s->cur, s->cur_nt, e->t);
}

/* Sweep every endpoint before `limit` and move the sweep point there.
 * @return 0 or -1. */
static int stream_sweep(lbt_occ *o, struct stream *s, int64_t limit)
{
	int64_t b = lbt_bucket_of(limit, o->o.step_us), t;
	struct ev e;

	if (s->has_swept && limit <= s->swept)
		return 0;
	while (lbt_occi_rh_min(&s->rh, &t) && t < limit)
		if (lbt_occi_rh_pop(&s->rh, &e) < 0 || stream_apply(o, s, &e) < 0)
			return -1;
	if ((!s->has_cb || b != s->cb) && stream_goto(o, s, b) < 0)
		return -1;
	if (limit > s->cb * o->o.step_us)
		s->carry = 0;       /* the level at cb's start has lasted */
	s->has_swept = 1;
	s->swept = limit;
	return 0;
}

/*
 * A request starting at s before the sweep point: add its slot to the
 * maxima already taken over [s, min(e, swept)).  A bucket it covers
 * entirely (or the swept part of the current one) gains exactly one slot;
 * where it covers only part, +1 is an upper bound, flagged LATE.
 * @return 0 or -1.
 */
static int stream_late(lbt_occ *o, struct stream *s, int64_t st, int64_t e, int tarpit)
{
	int64_t step = o->o.step_us, hi = e < s->swept ? e : s->swept;
	int64_t b, last = lbt_bucket_of(hi - 1, step);

	for (b = lbt_bucket_of(st, step); b <= last; b++) {
		int64_t bend = b == s->cb ? s->swept : (b + 1) * step;
		uint32_t fl = (st > b * step || hi < bend) ? LBT_OCC_LATE : 0;
		lbt_occ_bucket *p;

		if (b == s->cb) {
			s->bmax++;
			s->bmax_tp += tarpit != 0;
			s->bmax_nt += !tarpit;
			s->bflags |= fl;
			continue;
		}
		if ((p = bucket_get(o, b)) == NULL)
			return -1;
		if (p->nstreams == 0) {
			p->nstreams = 1;
			p->max_at_us = st > b * step ? st : b * step;
		}
		p->max++;
		p->max_nt += !tarpit;
		p->max_tarpit += tarpit != 0;
		p->flags |= fl;
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

/* Free one stream and what it holds. */
static void stream_free(struct stream *s)
{
	if (s == NULL)
		return;
	lbt_occi_rh_free(&s->rh);
	free(s->all.v);
	free(s->nt.v);
	free(s);
}

/* Free the occupancy, its streams and results; NULL accepted. */
void lbt_occ_free(lbt_occ *o)
{
	size_t i;

	if (o == NULL)
		return;
	for (i = 0; i < o->nst; i++)
		stream_free(o->st[i]);
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
	if (s->has_swept && start_us < s->swept) {
		o->stats.late++;
		if (stream_late(o, s, start_us, instant ? start_us + 1 : end_us, tarpit) < 0)
			return -1;
		if (instant || end_us <= s->swept)
			return 0;
		start_us = s->swept;
	}
	if (instant ? lbt_occi_rh_push(&s->rh, start_us, EV_INSTANT | tp) < 0 :
	    lbt_occi_rh_push(&s->rh, start_us, EV_START | tp) < 0 ||
	    lbt_occi_rh_push(&s->rh, end_us, EV_END | tp) < 0)
		return -1;
	if (!s->has_wm || end_us > s->wm) {
		s->wm = end_us;
		s->has_wm = 1;
	}
	return stream_sweep(o, s, s->wm - o->o.window_us);
}

/* Sweep the rest of one stream and write its last bucket.  @return 0 or -1. */
static int stream_finish(lbt_occ *o, struct stream *s)
{
	struct ev e;

	while (s->rh.n > 0)
		if (lbt_occi_rh_pop(&s->rh, &e) < 0 || stream_apply(o, s, &e) < 0)
			return -1;
	if (!s->has_cb)
		return 0;
	return bucket_put_max(o, s->cb, s->bmax, s->bmax_tp, s->bmax_at, s->bmax_nt,
	    s->bflags);
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
		cap += whatif ? o->st[i]->nt.n : o->st[i]->all.n;
	v = malloc((cap ? cap : 1) * sizeof(*v));
	if (v == NULL)
		return -1;
	for (i = 0; i < o->nst; i++) {
		const struct ptrack *t = whatif ? &o->st[i]->nt : &o->st[i]->all;

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
		if (stream_finish(o, o->st[i]) < 0)
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
