/*
 * triage_rise.c - the latest rise of a series of counts a second, for
 * lbt_triage (triage_int.h: lbt_judgei_rise), through the change-point
 * engine (changepoint.h).
 *
 * Long inputs.  PELT's pruning does little on a flat series, so the
 * engine's time grows with the square of its buckets: 14400 flat seconds
 * (4 h) took 1.3 s, so a day's tail at 00:11 would take a minute a key.
 * Two things keep the triage of long inputs fast without losing the
 * second a flood began:
 *   - a series that never holds half of floor requests a second over
 *     min_buckets seconds can have no rise, and is not given to the
 *     engine (one pass over it);
 *   - a series longer than COARSE_MAX seconds is read first in coarse
 *     buckets (at most COARSE_MAX of them); the start of a rise found
 *     there is found again to the second in the 1 s buckets around it,
 *     and its mean and peak are counted in the 1 s buckets.
 * An input of an hour or less goes to the engine as it is.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "judge_int.h"

#define COARSE_MAX 3600       /* buckets the engine gets at most, but to refine */

/* One episode and what the triage reads with it. */
struct found {
	lbt_cp_episode e;
	int first;                /* the first rise of the series */
	int is_new;               /* the series was new (engine) */
	double now_rate;          /* rate of its last segment */
};

/* True when v[0..n) holds at least half of floor a second over some
 * min_buckets seconds: a rise is possible.  (A rise is min_buckets long at
 * least, at floor on average.) */
static int may_rise(const lbt_cp_opts *o, const int64_t *v, size_t n)
{
	size_t w = o->min_buckets > 0 ? o->min_buckets : 1;
	double need = o->floor * (double)w / 2;
	int64_t sum = 0;

	for (size_t i = 0; i < n; i++) {
		sum += v[i] - (i >= w ? v[i - w] : 0);
		if ((double)sum >= need && sum > 0)
			return 1;
	}
	return 0;
}

/*
 * The rise hidden in a leading drop.  When a flood fills most of the
 * input (a `tail` at 00:11), the engine takes the flood's level for the
 * baseline and reads the start, before the flood, as a drop below it.
 * A first episode that is a drop from bucket 0, ended, with a baseline at
 * least factor times its rate and the floor, is therefore the rise that
 * follows it, until the next drop or to the end.  @return 1 with *e, else 0
 */
static int rise_after_drop(const lbt_cp_result *res, const int64_t *v, size_t n,
    double step_s, const lbt_cp_opts *o, lbt_cp_episode *e)
{
	const lbt_cp_episode *d = res->nep > 0 ? &res->ep[0] : NULL;
	int64_t sum = 0;

	if (d == NULL || d->kind != LBT_CP_DROP || d->start != 0 || d->ongoing ||
	    res->baseline < o->floor || res->baseline < o->factor * d->mean_rate)
		return 0;
	memset(e, 0, sizeof *e);
	e->kind = LBT_CP_RISE;
	e->start = d->end;
	e->end = res->nep > 1 && res->ep[1].kind == LBT_CP_DROP ? res->ep[1].start : n;
	e->ongoing = e->end == n;
	e->from_rate = d->mean_rate;
	e->peak = e->start;
	for (size_t b = e->start; b < e->end; b++) {
		sum += v[b];
		e->peak = v[b] > v[e->peak] ? b : e->peak;
	}
	e->peak_rate = (double)v[e->peak] / step_s;
	e->mean_rate = e->end > e->start ? (double)sum / step_s / (double)(e->end - e->start) : 0;
	return 1;
}

/*
 * Episode k with the rises right before it that it continues (the engine
 * splits a flood whose logged rate stepped, tarpit giving way to deny, in
 * two): the run's start, the rate before the run, its highest peak; the
 * mean stays the last part's, the level the flood is at now.
 */
static lbt_cp_episode join_steps(const lbt_cp_result *res, size_t k)
{
	lbt_cp_episode e = res->ep[k];

	while (k > 0 && res->ep[k - 1].kind == LBT_CP_RISE && res->ep[k - 1].end == e.start) {
		const lbt_cp_episode *p = &res->ep[--k];

		e.start = p->start;
		e.from_rate = p->from_rate;
		if (p->peak_rate > e.peak_rate) {
			e.peak = p->peak;
			e.peak_rate = p->peak_rate;
		}
	}
	return e;
}

/* The latest rise episode of res into f, with the steps it continues (the
 * one after a leading drop when there is none).  @return 1 when found, else 0 */
static int pick_rise(const lbt_cp_result *res, const int64_t *v, size_t n, double step_s,
    const lbt_cp_opts *o, struct found *f)
{
	size_t k = res->nep;

	f->is_new = res->is_new;
	f->now_rate = res->nseg > 0 ? res->seg[res->nseg - 1].rate : 0;
	for (size_t i = 0; i < res->nep; i++)
		if (res->ep[i].kind == LBT_CP_RISE)
			k = i;
	if (k < res->nep) {
		f->e = join_steps(res, k);
		f->first = 1;
		for (size_t i = 0; i < res->nep && res->ep[i].start < f->e.start; i++)
			f->first &= res->ep[i].kind != LBT_CP_RISE;
		return 1;
	}
	f->first = 0;
	return rise_after_drop(res, v, n, step_s, o, &f->e);
}

/* The engine on v[0..n) and the latest rise into f.
 * @return 1 found, 0 none, -1 out of memory */
static int engine(const lbt_cp_opts *o, const int64_t *v, size_t n, double step_s,
    struct found *f)
{
	lbt_cp_result res;
	int got;

	if (lbt_cp_find(v, n, step_s, o, &res) < 0)
		return -1;
	got = pick_rise(&res, v, n, step_s, o, f);
	lbt_cp_result_free(&res);
	return got;
}

/* The sums of v[0..n) by c buckets into a new array of *nc.  NULL: no memory */
static int64_t *coarse(const int64_t *v, size_t n, size_t c, size_t *nc)
{
	int64_t *w;

	*nc = (n + c - 1) / c;
	if ((w = calloc(*nc, sizeof *w)) == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++)
		w[i / c] += v[i];
	return w;
}

/*
 * The start, to the bucket, of the rise found at about `at` (c buckets of
 * uncertainty): the engine on the buckets around it, its rise starting
 * nearest `at`.  @return the start, `at` when it finds none, (size_t)-1
 * when out of memory
 */
static size_t refine_start(const lbt_cp_opts *o, const int64_t *v, size_t n, size_t at,
    size_t c)
{
	size_t span = 10 * c > 600 ? 10 * c : 600, lo = at > span ? at - span : 0;
	size_t hi = at + span < n ? at + span : n, best = at, dist = 2 * c + 1;
	lbt_cp_result res;

	if (lbt_cp_find(v + lo, hi - lo, 1.0, o, &res) < 0)
		return (size_t)-1;
	for (size_t i = 0; i < res.nep; i++) {
		size_t s = lo + res.ep[i].start, d = s > at ? s - at : at - s;

		if (res.ep[i].kind == LBT_CP_RISE && d < dist) {
			best = s;
			dist = d;
		}
	}
	lbt_cp_result_free(&res);
	return best;
}

/* Mean and peak of f's episode counted again in v[0..n) (1 s buckets). */
static void recount(const int64_t *v, struct found *f)
{
	lbt_cp_episode *e = &f->e;
	int64_t sum = 0;

	e->peak = e->start;
	for (size_t b = e->start; b < e->end; b++) {
		sum += v[b];
		e->peak = v[b] > v[e->peak] ? b : e->peak;
	}
	e->peak_rate = (double)v[e->peak];
	e->mean_rate = e->end > e->start ? (double)sum / (double)(e->end - e->start) : 0;
}

/*
 * The rise of a long series: found in coarse buckets, its start refined
 * and its figures counted again in v.  @return 1 found, 0 none, -1 no memory
 */
static int long_rise(const lbt_cp_opts *o, const int64_t *v, size_t n, struct found *f)
{
	size_t c = (n + COARSE_MAX - 1) / COARSE_MAX, nc, at;
	lbt_cp_opts oc = *o;
	int64_t *w = coarse(v, n, c, &nc);
	int got;

	if (w == NULL)
		return -1;
	oc.min_buckets = (o->min_buckets + c - 1) / c > 2 ? (o->min_buckets + c - 1) / c : 2;
	got = engine(&oc, w, nc, (double)c, f);
	free(w);
	if (got <= 0)
		return got;
	f->e.end = f->e.ongoing ? n : f->e.end * c < n ? f->e.end * c : n;
	if ((at = refine_start(o, v, n, f->e.start * c, c)) == (size_t)-1)
		return -1;
	f->e.start = at < f->e.end ? at : f->e.start * c;
	recount(v, f);
	return 1;
}

/*
 * Where a rise that the engine leaves ongoing came back in its band: the
 * first of the last buckets of v[start..n) that are all at most the rate
 * before it plus BAND_SIGMA of its Poisson noise (+1 for a baseline of
 * 0), when there are min_buckets of them or more: then the rise is over
 * there (the engine folds a tail shorter than its segments into the rise,
 * so a flood that ended a minute ago can read as ongoing).  @return that
 * bucket, or n when the tail is not back in its band for long enough.
 */
#define BAND_SIGMA 3.0
static size_t back_in_band(const lbt_cp_opts *o, const int64_t *v, size_t n, size_t start,
    double from_per_bucket)
{
	double band = from_per_bucket + BAND_SIGMA * sqrt(from_per_bucket) + 1;
	size_t k = o->min_buckets > 0 ? o->min_buckets : 1, b = n;

	while (b > start && (double)v[b - 1] <= band)
		b--;
	return n - b >= k && b > start ? b : n;
}

/* The latest rise of v[0..n), see judge_int.h.  @return 0 or -1 */
int lbt_judgei_rise(const lbt_cp_opts *o, const int64_t *v, size_t n, int64_t b0,
    int64_t step_us, int64_t now_us, lbt_triage_rise *r)
{
	double step_s = (double)step_us / 1e6;
	struct found f;
	int got;

	memset(r, 0, sizeof *r);
	if (n == 0 || !may_rise(o, v, n))
		return 0;
	got = n > COARSE_MAX && step_us == 1000000 ? long_rise(o, v, n, &f) :
	    engine(o, v, n, step_s, &f);
	if (got <= 0)
		return got;
	/* A rise from the first second that ended is traffic that slackened
	 * as much as a flood that ended: the level before it was never seen,
	 * and it asks nothing of the operator.  Begun inside the input, or
	 * still going on (a tail of the logs at 00:11), it is a rise. */
	if (f.e.ongoing) {
		size_t back = back_in_band(o, v, n, f.e.start, f.e.from_rate * step_s);

		if (back < n) {
			f.e.ongoing = 0;
			f.e.end = back;
		}
	}
	if (f.e.start == 0 && !f.e.ongoing)
		return 0;
	r->found = 1;
	r->ongoing = f.e.ongoing;
	r->is_new = f.is_new && f.first;     /* it came with the series */
	r->from_rate = f.e.from_rate;
	r->to_rate = f.e.mean_rate;
	r->peak_rate = f.e.peak_rate;
	r->now_rate = f.now_rate;
	r->start_us = (b0 + (int64_t)f.e.start) * step_us;
	r->end_us = f.e.ongoing ? now_us : (b0 + (int64_t)f.e.end) * step_us;
	r->peak_us = (b0 + (int64_t)f.e.peak) * step_us;
	return 0;
}
