/*
 * timeline_dense.c - a series made dense over the result's buckets (and
 * read by the change-point engine, changepoint.h), and what every
 * detector reads off one: sums and rates of a span, the events of an
 * episode, the incident's bounds, the baseline of a series that began
 * with the data.
 *
 * Direction: timeline_detect.c, timeline_more.c and timeline_retry.c call
 * these; they call only timeline_cells.c and timeline_out.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "timeline_int.h"

/* Seconds per bucket. */
static double step_s(const lbt_timeline *tl)
{
	return (double)tl->step / 1e6;
}

/* Dense copy of c over the result's buckets, read by the engine when cp.
 * @return 0, or -1 when out of memory. */
int lbt_tli_dense(const lbt_timeline *tl, const tl_cells *c, struct tl_dense *d, int cp)
{
	const struct lbt_tli_result *r = tl->res;

	memset(d, 0, sizeof *d);
	d->n = r->n;
	if ((d->v = malloc((r->n ? r->n : 1) * sizeof *d->v)) == NULL)
		return -1;
	lbt_tli_cells_dense(c, r->first_b, r->n, d->v);
	if (cp && r->n > 0) {
		if (lbt_cp_find(d->v, d->n, step_s(tl), &tl->o.cp, &d->cp) < 0)
			return -1;
		d->has_cp = 1;
	}
	return 0;
}

/* Free a dense series (zeroed one accepted). */
void lbt_tli_dense_free(struct tl_dense *d)
{
	free(d->v);
	if (d->has_cp)
		lbt_cp_result_free(&d->cp);
	memset(d, 0, sizeof *d);
}

/* Sum of v[a..b). */
int64_t lbt_tli_sum_of(const int64_t *v, size_t a, size_t b)
{
	int64_t s = 0;

	for (size_t i = a; i < b; i++)
		s += v[i];
	return s;
}

/* The first bucket of [a, b) where v counts something (a when none): an
 * episode of a series that was absent before starts when it appears, not
 * where the engine's segment began (the start of the data, for a class
 * that first appears in the middle of it). */
size_t lbt_tli_first_busy(const int64_t *v, size_t a, size_t b)
{
	for (size_t i = a; i < b; i++)
		if (v[i] > 0)
			return i;
	return a;
}

/* @return the mean events a second over v[a..b) (0 when empty). */
double lbt_tli_rate(const lbt_timeline *tl, const int64_t *v, size_t a, size_t b)
{
	return b > a ? (double)lbt_tli_sum_of(v, a, b) / ((double)(b - a) * step_s(tl)) : 0;
}

/* The engine's rate of the segment that holds bucket i (0 past the end). */
static double seg_rate_at(const lbt_cp_result *cp, size_t i)
{
	for (size_t k = 0; k < cp->nseg; k++)
		if (cp->seg[k].start <= i && i < cp->seg[k].end)
			return cp->seg[k].rate;
	return 0;
}

/* Widen the incident to [start, end) of an episode (ongoing: to the end). */
void lbt_tli_incident_note(lbt_timeline *tl, int64_t start, int64_t end, int ongoing)
{
	lbt_timeline_stats *st = &tl->st;

	if (st->incident_from == LBT_TL_NONE || start < st->incident_from)
		st->incident_from = start;
	if (ongoing)
		tl->res->ongoing = 1;
	else if (st->incident_to == LBT_TL_NONE || end > st->incident_to)
		st->incident_to = end;
}

/*
 * Where episode ep of d is back to its baseline: the first bucket i at or
 * after its end from which min_buckets buckets in a row stay in the
 * baseline band (their mean at most thr = max(factor x baseline, floor),
 * none of them above the episode's own mean).  The engine's end is the
 * change point of its segmentation, which can fall inside the rise of a
 * series that steps (a flood tripling at once); only a return that lasts
 * is a return.  *to gets the mean rate over those buckets.  @return the
 * bucket, or d->n when the series never settles back (no end event).
 */
static size_t settled_at(const lbt_timeline *tl, const struct tl_dense *d,
    const lbt_cp_episode *ep, double *to)
{
	size_t mb = tl->o.cp.min_buckets ? tl->o.cp.min_buckets : 1;
	double thr = tl->o.cp.factor * d->cp.baseline;

	if (thr < tl->o.cp.floor)
		thr = tl->o.cp.floor;
	*to = 0;
	for (size_t i = ep->end; i + mb <= d->n; i++) {
		double m = lbt_tli_rate(tl, d->v, i, i + mb);
		size_t j = i;

		while (j < i + mb && (double)d->v[j] / step_s(tl) <= ep->mean_rate)
			j++;
		if (m <= thr && j == i + mb) {
			*to = m;
			return i;
		}
		if (j < i + mb)
			i = j;          /* the next try starts past the hot bucket */
	}
	return d->n;
}

/* Was an event of kind k about (w, subject) already made at t?  Two
 * episodes of one series that settle back together end once. */
static int said(const lbt_timeline *tl, lbt_tl_kind k, lbt_tl_what w, const char *subject,
    int64_t t)
{
	const struct lbt_tli_result *r = tl->res;

	for (size_t i = r->nev; i-- > 0;)
		if (r->ev[i].kind == k && r->ev[i].what == w && r->ev[i].time_us == t &&
		    strcmp(r->ev[i].subject, subject) == 0)
			return 1;
	return 0;
}

/*
 * The events of one episode of d (cells c) about `subject`: kind k at its
 * start (rates before, mean, peak, ratio, requests and their share of all)
 * and kend where it has settled back (settled_at) unless it never does.
 * Direction first: a "rise" whose mean is not above the rate before it is
 * a fall and no rise, and an end whose rate after is not below the rate
 * during is a contradiction; neither is said.  @return 0 or -1.
 */
int lbt_tli_episode_events(lbt_timeline *tl, const struct tl_dense *d, const tl_cells *c,
    const lbt_cp_episode *ep, lbt_tl_kind k, lbt_tl_kind kend, lbt_tl_what w,
    const char *subject)
{
	const struct lbt_tli_result *r = tl->res;
	int rise = ep->kind == LBT_CP_RISE, ongoing = ep->ongoing;
	int64_t cnt = lbt_tli_sum_of(d->v, ep->start, ep->end);
	int64_t all = lbt_tli_sum_of(r->total, ep->start, ep->end);
	size_t end = ep->end;
	double to = 0;
	int say_end;
	lbt_tl_event *e;
	lbt_evidence ev;

	if (rise && ep->from_rate > 0 && ep->mean_rate <= ep->from_rate)
		return 0;
	if (!rise && ep->mean_rate >= ep->from_rate)
		return 0;
	if (!ongoing && rise) {
		end = settled_at(tl, d, ep, &to);
		ongoing = end >= d->n || to >= ep->mean_rate;
	} else if (!ongoing) {
		to = seg_rate_at(&d->cp, ep->end);
	}
	/* a drop's end is a way back up, a rise's a way down */
	say_end = !ongoing && (rise ? to < ep->mean_rate : to > ep->mean_rate);
	if ((e = lbt_tli_event_new(tl, k, w, subject,
	    lbt_tli_bucket_us(tl, lbt_tli_first_busy(d->v, ep->start, ep->end)))) == NULL)
		return -1;
	e->from = ep->from_rate;
	e->to = ep->mean_rate;
	e->peak = ep->peak_rate;
	e->peak_us = lbt_tli_bucket_us(tl, ep->peak);
	e->unit = "req/s";
	e->ratio = ep->ratio > 0 ? ep->ratio : NAN;
	e->count = cnt;
	e->share_pct = all > 0 && w != LBT_TL_W_ALL ? 100.0 * (double)cnt / (double)all : NAN;
	/* the episode's own span (a flood that steps up ends one step where the
	 * next begins) and its requests; the incident lasts until it settled */
	e->ongoing = ep->ongoing;
	e->end_us = ep->ongoing ? LBT_TL_NONE : lbt_tli_bucket_us(tl, ep->end);
	if (lbt_tli_cells_first(c, r->first_b + (int64_t)ep->start, r->first_b +
	    (int64_t)ep->end, &ev))
		lbt_tli_event_ev(e, &ev);
	lbt_tli_incident_note(tl, e->time_us, ongoing ? LBT_TL_NONE : lbt_tli_bucket_us(tl, end),
	    ongoing);
	if (!say_end || said(tl, kend, w, subject, lbt_tli_bucket_us(tl, end)))
		return 0;
	if ((e = lbt_tli_event_new(tl, kend, w, subject, lbt_tli_bucket_us(tl, end))) == NULL)
		return -1;
	e->from = ep->mean_rate;
	e->to = to;
	e->unit = "req/s";
	e->count = cnt;
	if (lbt_tli_cells_first(c, r->first_b + (int64_t)end, r->first_b + (int64_t)r->n, &ev))
		lbt_tli_event_ev(e, &ev);
	return 0;
}

/*
 * Did the series of d begin with the data rather than appear in it?  The
 * engine calls a series new when it is absent before its first bucket;
 * that absence says something only when it is improbable at the rate the
 * series had once there (its mean over its first min_buckets buckets):
 * more than 7 events expected in the buckets before it (the chance of
 * none below 0.1 %, the test timeline_more.c applies to a quiet LB).  A
 * customer sending a batch every 5 s, first seen 3 s into the data, began
 * with it; a flood starting 10 min in is new.
 */
int lbt_tli_began_with_data(const lbt_timeline *tl, const struct tl_dense *d)
{
	size_t f = d->cp.first_seen, mb = tl->o.cp.min_buckets ? tl->o.cp.min_buckets : 1;
	size_t to = f + mb < d->n ? f + mb : d->n;

	return d->has_cp && d->cp.is_new && f < d->n &&
	    lbt_tli_rate(tl, d->v, f, to) * (double)f * (double)tl->step / 1e6 <= 7.0;
}

/*
 * Read d again against a baseline of its own when it is not new by the
 * timeline's rule though the engine saw a new series: it began with the
 * data (lbt_tli_began_with_data), or it first appeared inside the first
 * min_buckets buckets, the baseline window itself, where nothing can be
 * new (the calm minutes before anything happened are what "before" is).
 * Its baseline is then its mean rate over its first min_buckets buckets,
 * an explicit window for the engine.  Else unchanged.
 * @return 0 or -1 (no memory).
 */
int lbt_tli_rebase(const lbt_timeline *tl, struct tl_dense *d)
{
	lbt_cp_opts o = tl->o.cp;
	size_t f = d->cp.first_seen, mb = o.min_buckets ? o.min_buckets : 1;

	if (!d->has_cp || !d->cp.is_new || f + mb >= d->n ||
	    (f >= mb && !lbt_tli_began_with_data(tl, d)))
		return 0;
	lbt_cp_result_free(&d->cp);
	o.base_from = f;
	o.base_to = f + mb;
	return lbt_cp_find(d->v, d->n, step_s(tl), &o, &d->cp);
}
