/*
 * occupancy_sweep.c - the sweep of one stream (input file) of an
 * occupancy; see occupancy.h for what the numbers mean and occupancy_int.h
 * for the state.
 *
 * The endpoints of a stream are applied in (time, kind) order: `cur` slots
 * held (`cur_nt` untarpitted), the maximum of the bucket being swept, two
 * period trackers.  The sweep is cut at the stream's fence (its first
 * start + window + 1 µs) into a head and a main sweep: when the first
 * endpoint at or after the fence is applied (or the sweep point passes
 * it), the head stops there, keeping its running maximum of the fence
 * bucket and its open period, and the main sweep starts at the fence with
 * the same levels.  The head's closed buckets stay in the stream (hb), its
 * endpoints too (raw), and finish joins both sweeps back: the fence bucket
 * is the larger of its two parts (the earlier on a tie, as one sweep would
 * keep it), a period open at the fence is one period.  The results are
 * those of one uncut sweep; the cut lets a merge sweep a head again
 * together with an earlier part of the same file (occupancy_merge.c).
 */
#include <stdlib.h>
#include <string.h>

#include "lbt/series.h"
#include "occupancy_int.h"

/* The sweep the stream applies endpoints to now. */
static struct sweep *active(struct stream *s)
{
	return s->split ? &s->main : &s->head;
}

/* The maximum of two parts of one bucket, a before b: the larger (a on a
 * tie: its moment is the first), the larger untarpitted, both flags. */
static struct bmax bmax_join(const struct bmax *a, const struct bmax *b)
{
	struct bmax r = *a;

	if (b->max > a->max) {
		r.max = b->max;
		r.tp = b->tp;
		r.at = b->at;
	}
	if (b->nt > r.nt)
		r.nt = b->nt;
	r.flags |= b->flags;
	return r;
}

/* The level of w as a maximum reached at time t. */
static struct bmax level_at(const struct sweep *w, int64_t t)
{
	return (struct bmax){ w->cur, w->cur - w->cur_nt, w->cur_nt, t, 0 };
}

/* Keep a bucket the head closed (nothing held there: nothing kept).
 * @return 0 or -1. */
static int hb_append(struct stream *s, int64_t b, const struct bmax *m)
{
	if (m->max == 0 && m->nt == 0 && m->flags == 0)
		return 0;
	if (lbt_occi_grow((void **)&s->hb, &s->caphb, s->nhb + 1, sizeof(*s->hb)) < 0)
		return -1;
	s->hb[s->nhb++] = (struct hbucket){ b, *m };
	return 0;
}

/* Close bucket b of sweep w with maximum m: the head keeps it, the main
 * keeps the fence bucket's part and writes the others.  @return 0 or -1. */
static int close_bucket(lbt_occ *o, struct stream *s, struct sweep *w, int64_t b,
    const struct bmax *m)
{
	if (w == &s->head)
		return hb_append(s, b, m);
	if (b == lbt_bucket_of(s->fence, o->o.step_us)) {
		s->fence_main = *m;
		s->has_fence_main = 1;
		return 0;
	}
	return lbt_occi_bucket_put(o, b, m);
}

/*
 * Move sweep w to bucket b (b > cb): close cb, then every bucket in
 * between (held constant at cur), and start b with the slots still held.
 * @return 0 or -1.
 */
static int sweep_goto(lbt_occ *o, struct stream *s, struct sweep *w, int64_t b)
{
	int64_t x, step = o->o.step_us;

	if (w->has_cb) {
		struct bmax m;

		if (close_bucket(o, s, w, w->cb, &w->m) < 0)
			return -1;
		for (x = w->cb + 1; x < b && w->cur > 0; x++) {
			m = level_at(w, x * step);
			if (close_bucket(o, s, w, x, &m) < 0)
				return -1;
		}
	}
	w->cb = b;
	w->has_cb = 1;
	w->from = b * step;
	w->m = level_at(w, b * step);
	w->carry = 1;
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

/* Raise the running maxima of w's bucket to `level` slots held, `nt` of
 * them untarpitted, at time t. */
static void sweep_level(struct sweep *w, int32_t level, int32_t nt, int64_t t)
{
	if (level > w->m.max) {
		w->m.max = level;
		w->m.tp = level - nt;
		w->m.at = t;
	}
	if (nt > w->m.nt)
		w->m.nt = nt;
}

/* Feed both period trackers of w the levels at time t (inlined: without
 * a threshold it is one compare an endpoint).  @return 0 or -1. */
static inline int sweep_periods(lbt_occ *o, struct sweep *w, int32_t level, int32_t nt,
    int64_t t)
{
	if (o->o.threshold <= 0)
		return 0;
	if (period_track(o, &w->all, level, level - nt, t) < 0)
		return -1;
	return period_track(o, &w->nt, nt, 0, t);
}

/* Start tracker t of the main sweep at the fence, continuing the head's
 * tracker h: a run open there goes on (its part before the fence is the
 * head's; lbt_occi_join puts them together). */
static void track_enter(struct ptrack *t, const struct ptrack *h, int32_t level, int32_t tp,
    int64_t fence)
{
	memset(t, 0, sizeof(*t));
	if (!h->open)
		return;
	t->open = 1;
	t->above_since = fence;
	t->cur.start_us = fence;
	t->cur.peak = level;
	t->cur.peak_tarpit = tp;
	t->cur.peak_at_us = fence;
}

/*
 * Cut the stream's sweep at its fence: move the head there (its part of
 * the fence bucket stays in head.m), start the main sweep at the fence
 * with the head's levels.  @return 0 or -1.
 */
static int stream_split(lbt_occ *o, struct stream *s)
{
	struct sweep *h = &s->head, *m = &s->main;
	int64_t fb = lbt_bucket_of(s->fence, o->o.step_us);

	if ((!h->has_cb || h->cb != fb) && sweep_goto(o, s, h, fb) < 0)
		return -1;
	if (s->fence > h->from)
		h->carry = 0;          /* the head's part of the fence bucket has lasted */
	m->cur = h->cur;
	m->cur_nt = h->cur_nt;
	m->has_cb = 1;
	m->cb = fb;
	m->from = s->fence;
	m->m = level_at(h, s->fence);
	m->carry = 1;
	track_enter(&m->all, &h->all, h->cur, h->cur - h->cur_nt, s->fence);
	track_enter(&m->nt, &h->nt, h->cur_nt, 0, s->fence);
	s->split = 1;
	return 0;
}

/* Keep an endpoint the head applied (the array grows only now and then).
 * @return 0 or -1. */
static inline int raw_keep(struct stream *s, const struct ev *e)
{
	if (s->nraw == s->capraw &&
	    lbt_occi_grow((void **)&s->raw, &s->capraw, s->nraw + 1, sizeof(*s->raw)) < 0)
		return -1;
	s->raw[s->nraw++] = *e;
	return 0;
}

/* Apply one endpoint to sweep w (inlined in its one caller: the call cost
 * ~3 % of lbt-tarpit, callgrind).  @return 0 or -1. */
static inline __attribute__((always_inline)) int sweep_apply(lbt_occ *o, struct stream *s, struct sweep *w, const struct ev *e)
{
	int64_t b = lbt_bucket_of(e->t, o->o.step_us);
	uint32_t type = EV_TYPE(e->kind);
	int32_t d = type == EV_START ? 1 : -1, nt = !(e->kind & EV_TARPIT);

	if ((!w->has_cb || b != w->cb) && sweep_goto(o, s, w, b) < 0)
		return -1;
	if (type == EV_INSTANT) {
		w->carry = 0;
		sweep_level(w, w->cur + 1, w->cur_nt + nt, e->t);
		if (sweep_periods(o, w, w->cur + 1, w->cur_nt + nt, e->t) < 0)
			return -1;
		return sweep_periods(o, w, w->cur, w->cur_nt, e->t);
	}
	w->cur += d;
	w->cur_nt += nt ? d : 0;
	if (w->carry && e->t == w->from && type == EV_END) {
		/* the carried level lasted no time: what counts is the
		 * level once the intervals ending now have left */
		w->m.max = w->cur;
		w->m.tp = w->cur - w->cur_nt;
		w->m.nt = w->cur_nt;
	} else {
		w->carry = 0;
		sweep_level(w, w->cur, w->cur_nt, e->t);
	}
	return sweep_periods(o, w, w->cur, w->cur_nt, e->t);
}

/* Apply one endpoint to the stream: to the head before the fence (kept in
 * raw), to the main sweep from it.  @return 0 or -1. */
static int stream_apply(lbt_occ *o, struct stream *s, const struct ev *e)
{
	struct sweep *w = &s->main;

	if (!s->split) {
		if (e->t >= s->fence) {
			if (stream_split(o, s) < 0)
				return -1;
		} else {
			if (raw_keep(s, e) < 0)
				return -1;
			w = &s->head;
		}
	}
	return sweep_apply(o, s, w, e);
}

/* Sweep every endpoint of s before `limit` and move the sweep point
 * there.  @return 0 or -1. */
int lbt_occi_sweep(lbt_occ *o, struct stream *s, int64_t limit)
{
	int64_t b = lbt_bucket_of(limit, o->o.step_us), t;
	struct sweep *w;
	struct ev e;

	if (s->has_swept && limit <= s->swept)
		return 0;
	while (lbt_occi_rh_min(&s->rh, &t) && t < limit)
		if (lbt_occi_rh_pop(&s->rh, &e) < 0 || stream_apply(o, s, &e) < 0)
			return -1;
	if (!s->split && limit > s->fence && stream_split(o, s) < 0)
		return -1;
	w = active(s);
	if ((!w->has_cb || b != w->cb) && sweep_goto(o, s, w, b) < 0)
		return -1;
	if (limit > w->from)
		w->carry = 0;       /* the level at the part's start has lasted */
	s->has_swept = 1;
	s->swept = limit;
	return 0;
}

/* One slot more at once, tarpitted or not, flags added. */
static void bump(struct bmax *m, int tarpit, uint32_t fl)
{
	m->max++;
	m->tp += tarpit != 0;
	m->nt += !tarpit;
	m->flags |= fl;
}

/* The head's closed bucket b, added (first moment `at`) when the head held
 * nothing there.  @return it, or NULL when out of memory. */
static struct bmax *hb_find(struct stream *s, int64_t b, int64_t at)
{
	size_t lo = 0, hi = s->nhb;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->hb[mid].bucket < b)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < s->nhb && s->hb[lo].bucket == b)
		return &s->hb[lo].m;
	if (lbt_occi_grow((void **)&s->hb, &s->caphb, s->nhb + 1, sizeof(*s->hb)) < 0)
		return NULL;
	memmove(&s->hb[lo + 1], &s->hb[lo], (s->nhb - lo) * sizeof(*s->hb));
	s->nhb++;
	s->hb[lo] = (struct hbucket){ b, { 0, 0, 0, at, 0 } };
	return &s->hb[lo].m;
}

/*
 * The late slot in swept bucket b, already closed: in the head's buckets,
 * in both parts of the fence bucket, or in the shared map (where a bucket
 * no stream wrote takes the late request's first moment).  @return 0 or -1.
 */
static int late_closed(lbt_occ *o, struct stream *s, int64_t b, int64_t at, int tarpit,
    uint32_t fl)
{
	int64_t fb = lbt_bucket_of(s->fence, o->o.step_us);
	lbt_occ_bucket *p;
	struct bmax *m;

	if (!s->split || b < fb) {
		if ((m = hb_find(s, b, at)) == NULL)
			return -1;
		bump(m, tarpit, fl);
		return 0;
	}
	if (b == fb) {
		bump(&s->head.m, tarpit, fl);
		bump(&s->fence_main, tarpit, fl);
		return 0;
	}
	if ((p = lbt_occi_bucket_get(o, b)) == NULL)
		return -1;
	if (p->nstreams == 0) {
		p->nstreams = 1;
		p->max_at_us = at;
	}
	p->max++;
	p->max_nt += !tarpit;
	p->max_tarpit += tarpit != 0;
	p->flags |= fl;
	return 0;
}

/*
 * A request starting at st before the sweep point: add its slot to the
 * maxima already taken over [st, min(e, swept)).  A bucket it covers
 * entirely (or the swept part of the current one) gains exactly one slot;
 * where it covers only part, +1 is an upper bound, flagged LATE.
 * @return 0 or -1.
 */
int lbt_occi_late(lbt_occ *o, struct stream *s, int64_t st, int64_t e, int tarpit)
{
	int64_t step = o->o.step_us, hi = e < s->swept ? e : s->swept;
	int64_t b, last = lbt_bucket_of(hi - 1, step);
	struct sweep *w = active(s);

	s->late++;
	for (b = lbt_bucket_of(st, step); b <= last; b++) {
		int64_t bend = b == w->cb ? s->swept : (b + 1) * step;
		uint32_t fl = (st > b * step || hi < bend) ? LBT_OCC_LATE : 0;

		if (b == w->cb) {
			bump(&w->m, tarpit, fl);
			if (s->split && b == lbt_bucket_of(s->fence, step))
				bump(&s->head.m, tarpit, fl);
			continue;
		}
		if (late_closed(o, s, b, st > b * step ? st : b * step, tarpit, fl) < 0)
			return -1;
	}
	return 0;
}

/*
 * Join tracker m, begun at the fence, to tracker x, which reached the
 * fence: a run x has open there continues as m's first (one run: x's
 * start, both times above, the larger peak, the first on a tie); the
 * others follow as one sweep would have appended them.  m's periods are
 * freed.  @return 0 or -1.
 */
static int ptrack_join(struct ptrack *x, struct ptrack *m, int64_t fence, int64_t step)
{
	size_t i = 0;
	int rc = 0;

	if (x->open) {
		const lbt_occ_period *c = m->n > 0 ? &m->v[0] : &m->cur;
		lbt_occ_period r = x->cur;

		if (c->peak > r.peak) {
			r.peak = c->peak;
			r.peak_tarpit = c->peak_tarpit;
			r.peak_at_us = c->peak_at_us;
		}
		r.flags |= c->flags;
		if (m->n == 0) {
			x->cur = r;                /* still open, from x's start */
			goto out;
		}
		r.end_us = c->end_us;
		r.above_us = (fence - x->above_since) + c->above_us;
		x->open = 0;
		rc = period_append(x, &r, step);
		i = 1;
	}
	for (; i < m->n && rc == 0; i++)
		rc = period_append(x, &m->v[i], step);
	x->open = m->open;
	if (m->open) {
		x->cur = m->cur;
		x->above_since = m->above_since;
	}
out:
	free(m->v);
	m->v = NULL;
	m->n = m->cap = 0;
	return rc;
}

/*
 * Join b's main sweep, begun at b's fence, to sweep x of s, which has
 * reached that fence (x is s's main, or its head when s has not split):
 * periods joined, the fence bucket's two parts made one, and s's main
 * sweep goes on with b's state.  b's main is consumed.  @return 0 or -1.
 */
int lbt_occi_join(lbt_occ *o, struct stream *s, struct sweep *x, struct stream *b)
{
	struct sweep *bm = &b->main;
	int64_t fb = lbt_bucket_of(b->fence, o->o.step_us);

	if (ptrack_join(&x->all, &bm->all, b->fence, o->o.step_us) < 0 ||
	    ptrack_join(&x->nt, &bm->nt, b->fence, o->o.step_us) < 0)
		return -1;
	if (bm->cb == fb && !x->carry) {             /* b still sweeps the fence bucket */
		bm->m = bmax_join(&x->m, &bm->m);
		bm->from = x->from;
		bm->carry = 0;
	} else if (bm->cb != fb) {
		struct bmax part = x->carry ? b->fence_main : bmax_join(&x->m, &b->fence_main);

		if (s->split && fb == lbt_bucket_of(s->fence, o->o.step_us)) {
			s->fence_main = part;
			s->has_fence_main = 1;
		} else if (lbt_occi_bucket_put(o, fb, &part) < 0) {
			return -1;
		}
	}
	x->cur = bm->cur;
	x->cur_nt = bm->cur_nt;
	x->has_cb = bm->has_cb;
	x->cb = bm->cb;
	x->from = bm->from;
	x->m = bm->m;
	x->carry = bm->carry;
	return 0;
}

/* Sweep the rest of one stream, close its last bucket, join head and main,
 * and write the head's buckets to the map.  @return 0 or -1. */
int lbt_occi_stream_finish(lbt_occ *o, struct stream *s)
{
	struct sweep *w;
	struct ev e;

	while (s->rh.n > 0)
		if (lbt_occi_rh_pop(&s->rh, &e) < 0 || stream_apply(o, s, &e) < 0)
			return -1;
	w = active(s);
	if (w->has_cb && close_bucket(o, s, w, w->cb, &w->m) < 0)
		return -1;
	if (s->split) {
		struct bmax part = s->head.carry ? s->fence_main :
		    bmax_join(&s->head.m, &s->fence_main);

		if (ptrack_join(&s->head.all, &s->main.all, s->fence, o->o.step_us) < 0 ||
		    ptrack_join(&s->head.nt, &s->main.nt, s->fence, o->o.step_us) < 0 ||
		    lbt_occi_bucket_put(o, lbt_bucket_of(s->fence, o->o.step_us), &part) < 0)
			return -1;
	}
	for (size_t i = 0; i < s->nhb; i++)
		if (lbt_occi_bucket_put(o, s->hb[i].bucket, &s->hb[i].m) < 0)
			return -1;
	return 0;
}

/* Free one stream and what it holds; NULL accepted. */
void lbt_occi_stream_free(struct stream *s)
{
	if (s == NULL)
		return;
	lbt_occi_rh_free(&s->rh);
	free(s->head.all.v);
	free(s->head.nt.v);
	free(s->main.all.v);
	free(s->main.nt.v);
	free(s->raw);
	free(s->hb);
	free(s);
}
