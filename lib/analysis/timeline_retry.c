/*
 * timeline_retry.c - what customers did with the refusals: retry storms
 * (a source re-sending the requests it was refused, summed up over the
 * input, and each episode of it at `ratio` x its own baseline, cut at the
 * reloads), and the sources a per-source limit answered 429 (runs of
 * their answers, lbt_tli_answer_runs of timeline_more.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timeline_int.h"

/* ---- retry storms --------------------------------------------------------- */

/* What one source re-sent after refusals. */
struct resent {
	uint64_t sent, resent, distinct;   /* distinct: the requests refused */
	uint64_t sets;            /* distinct requests re-sent */
	int64_t first, last;
	lbt_evidence ev;          /* its smallest refused request */
	const char *top;          /* the request re-sent most (hmap key) */
	uint64_t top_n;
	size_t top_len;
};

/*
 * Sum up what w was refused and sent again.  Every refusal of a request
 * (method, path) after its first is a re-send of a request refused
 * before, when they came within the retry window of each other on
 * average; the amplification is those re-sends over the distinct
 * requests refused, so a batch of 300 refused four times is x3 whatever
 * its size, and a pinger refused once in a day re-sent nothing (the old
 * count made every later ping a re-send: x7,000).  Counts, minima and
 * maxima only: the same whatever the order of the records.
 */
static void resent_of(const lbt_timeline *tl, const struct tl_subj *w, struct resent *s)
{
	size_t m = w->req ? lbt_hmap_count(w->req) : 0;

	memset(s, 0, sizeof *s);
	for (size_t i = 0; i < m; i++) {
		lbt_hmap_entry e;
		const struct tl_req *q;
		uint64_t again;

		lbt_hmap_at(w->req, i, &e);
		q = e.val;
		if (q->nref == 0)
			continue;
		s->distinct++;
		s->sent += q->n;
		again = q->nref - 1;
		if (again == 0 || (q->ref_last_us - q->ref_first_us) / (int64_t)again >
		    tl->o.retry_window_us)
			continue;
		if (s->resent == 0 || q->ref_first_us < s->first)
			s->first = q->ref_first_us;
		if (q->ref_last_us > s->last)
			s->last = q->ref_last_us;
		s->resent += again;
		s->sets++;
		if (lbt_evidence_cmp(&q->ref, &s->ev) < 0)
			s->ev = q->ref;
		if (again > s->top_n || (again == s->top_n && (e.klen < s->top_len ||
		    (e.klen == s->top_len && memcmp(e.key, s->top, e.klen) < 0)))) {
			s->top = e.key;
			s->top_n = again;
			s->top_len = e.klen;
		}
	}
}

/* A source's storm while ranking them. */
struct storm {
	const struct tl_subj *w;
	struct resent s;
	char name[LBT_ADDR_STRLEN + 8];
};

/* qsort order of storms: re-sent descending, then the source. */
static int storm_cmp(const void *a, const void *b)
{
	const struct storm *x = a, *y = b;

	if (x->s.resent != y->s.resent)
		return x->s.resent > y->s.resent ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The event of one storm.  @return 0 or -1. */
static int storm_event(lbt_timeline *tl, const struct storm *st)
{
	lbt_tl_event *e = lbt_tli_event_new(tl, LBT_TL_RETRY, LBT_TL_W_SOURCE,
	    lbt_tli_intern(tl, st->name, strlen(st->name), 0), st->s.first);

	if (e == NULL || e->subject == NULL ||
	    (e->text = lbt_tli_intern(tl, st->s.top, st->s.top_len, 0)) == NULL)
		return -1;
	e->end_us = st->s.last;
	e->count = (int64_t)st->s.resent;
	e->distinct = (int64_t)st->s.distinct;
	e->ratio = (double)st->s.resent / (double)st->s.distinct;
	lbt_tli_event_ev(e, &st->s.ev);
	return 0;
}

/* The source's series read by the engine against its own baseline (the
 * engine's, or its first buckets' when it began with the data:
 * lbt_tli_rebase).  @return 0 or -1. */
static int storm_series(lbt_timeline *tl, const struct tl_subj *w, struct tl_dense *d)
{
	if (lbt_tli_dense(tl, &w->cells, d, 1) < 0)
		return -1;
	return lbt_tli_rebase(tl, d);
}

/* One part v[a..b) of a storm: the source's requests then, their rate
 * against its baseline.  @return 0 or -1. */
static int storm_part(lbt_timeline *tl, const struct storm *st, const struct tl_dense *d,
    size_t a, size_t b, int ongoing)
{
	lbt_tl_event *e;
	lbt_evidence ev;

	if (a >= b || (e = lbt_tli_event_new(tl, LBT_TL_RETRY_STORM, LBT_TL_W_SOURCE,
	    lbt_tli_intern(tl, st->name, strlen(st->name), 0), lbt_tli_bucket_us(tl, a))) == NULL ||
	    e->subject == NULL || (e->text = lbt_tli_intern(tl, st->s.top, st->s.top_len, 0)) ==
	    NULL)
		return -1;
	e->from = d->cp.baseline;
	e->to = lbt_tli_rate(tl, d->v, a, b);
	e->unit = "req/s";
	e->ratio = d->cp.baseline > 0 ? e->to / d->cp.baseline : NAN;
	e->count = lbt_tli_sum_of(d->v, a, b);
	e->distinct = (int64_t)st->s.distinct;
	e->ongoing = ongoing;
	e->end_us = e->ongoing ? LBT_TL_NONE : lbt_tli_bucket_us(tl, b);
	if (lbt_tli_cells_first(&st->w->cells, tl->res->first_b + (int64_t)a,
	    tl->res->first_b + (int64_t)b, &ev))
		lbt_tli_event_ev(e, &ev);
	return 0;
}

/* The hot buckets of v[a..b) at its ends dropped (above `hot` events),
 * into *a, *b; *a == *b when none is hot. */
static void hot_trim(const int64_t *v, double hot, size_t *a, size_t *b)
{
	while (*a < *b && (double)v[*a] <= hot)
		(*a)++;
	while (*b > *a && (double)v[*b - 1] <= hot)
		(*b)--;
}

/* Was w refused in [s - min_buckets, e)?  A storm part is re-sends only
 * where refusals come before or with it: a source's rise after the
 * mitigation, when nothing refuses it any more, is no retry storm. */
static int refused_near(const lbt_timeline *tl, const struct tl_subj *w, size_t s, size_t e)
{
	size_t mb = tl->o.cp.min_buckets ? tl->o.cp.min_buckets : 1;
	int64_t from = tl->res->first_b + (int64_t)(s > mb ? s - mb : 0);
	lbt_evidence ev;

	return lbt_tli_cells_first(&w->cref, from, tl->res->first_b + (int64_t)e, &ev);
}

/*
 * The episodes of a retry storm: runs of the re-sending source's buckets
 * above `ratio` x its own baseline, a run going on across fewer than
 * min_buckets buckets below that (a naive client storms for a few seconds
 * after each refused batch, then waits for its next tick), cut at every
 * reload of any LB (the storm before and after a new limit are two
 * figures), each part from its first to its last hot bucket and reported
 * when its mean is still `ratio` x the baseline.  Runs rather than the
 * engine's episodes: the engine leaves out an episode shorter than
 * min_buckets, which a storm between two reloads can be.  A source with
 * no baseline (a new one) has its new_source event instead.
 * @return 0 or -1.
 */
static int storm_episodes(lbt_timeline *tl, const struct storm *st)
{
	struct tl_dense d;
	int rc = storm_series(tl, st->w, &d);
	size_t mb = tl->o.cp.min_buckets ? tl->o.cp.min_buckets : 1;
	double want = tl->o.ratio * d.cp.baseline, hot = want * (double)tl->step / 1e6;

	for (size_t a = 0, b, gap; rc == 0 && d.cp.baseline > 0 && a < d.n; a = b) {
		for (b = a; b < d.n && (double)d.v[b] <= hot; b++)
			;
		if ((a = b) == d.n)
			break;
		for (gap = 0; b < d.n && gap < mb; b++)
			gap = (double)d.v[b] > hot ? 0 : gap + 1;
		for (size_t p = a, q; p < b && rc == 0; p = q) {
			size_t s = p, e = q = lbt_tli_reload_in(tl, NULL, p, b);

			hot_trim(d.v, hot, &s, &e);
			if (s < e && lbt_tli_rate(tl, d.v, s, e) >= want &&
			    refused_near(tl, st->w, s, e))
				rc = storm_part(tl, st, &d, s, e, e == d.n);
		}
	}
	lbt_tli_dense_free(&d);
	return rc;
}

/* qsort order of sources by their 429 answers, descending, then name. */
static int by_429(const void *a, const void *b)
{
	const struct storm *x = a, *y = b;

	if (x->s.sent != y->s.sent)
		return x->s.sent > y->s.sent ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* One source's 429 answers in runs (answer_runs, cut at any LB's reload):
 * ERRORS events of what `source`, other "429".  @return 0 or -1. */
static int source_429_runs(lbt_timeline *tl, const struct storm *st)
{
	struct tl_dense d, all;
	struct tl_answers a = { LBT_TL_W_SOURCE, NULL, NULL, "429", NULL, &st->w->c429, NULL, NULL };
	int rc;

	if ((a.subject = lbt_tli_intern(tl, st->name, strlen(st->name), 0)) == NULL)
		return -1;
	if (lbt_tli_dense(tl, &st->w->c429, &d, 0) < 0)
		return -1;
	if ((rc = lbt_tli_dense(tl, &st->w->cells, &all, 0)) == 0) {
		a.v = d.v;
		a.all = all.v;
		rc = lbt_tli_answer_runs(tl, &a);
	}
	lbt_tli_dense_free(&all);
	lbt_tli_dense_free(&d);
	return rc;
}

/*
 * The tracked sources that `keep` takes (it fills st->s for st->w and says
 * 1), ranked by cmp, and `act` on the first `top` of them.  @return 0 or -1.
 */
static int top_storms(lbt_timeline *tl, int (*keep)(const lbt_timeline *, struct storm *),
    int (*cmp)(const void *, const void *), int (*act)(lbt_timeline *, const struct storm *))
{
	struct storm *v = malloc((tl->srcs.n ? tl->srcs.n : 1) * sizeof *v);
	size_t n = 0;
	int rc = 0;

	if (v == NULL)
		return -1;
	for (size_t i = 0; i < tl->srcs.n; i++) {
		struct storm *st = &v[n];

		st->w = &tl->srcs.v[i];
		if (!keep(tl, st))
			continue;
		lbt_netgroup_format(&tl->o.net, (const lbt_addr *)st->w->key, st->name,
		    sizeof st->name);
		n++;
	}
	qsort(v, n, sizeof *v, cmp);
	for (size_t i = 0; i < n && i < tl->o.top && rc == 0; i++)
		rc = act(tl, &v[i]);
	free(v);
	return rc;
}

/* A source answered 429 at least TL_SHED_MIN times: its count as `sent`. */
static int keep_429(const lbt_timeline *tl, struct storm *st)
{
	const lbt_hmap *m = st->w->c429.m;
	uint64_t c = 0;

	(void)tl;
	for (size_t k = 0; m != NULL && k < lbt_hmap_count(m); k++) {
		lbt_hmap_entry e;

		lbt_hmap_at(m, k, &e);
		c += (uint64_t)((const struct tl_cell *)e.val)->n;
	}
	memset(&st->s, 0, sizeof st->s);
	st->s.sent = c;
	return c >= TL_SHED_MIN;
}

/*
 * A source that backs off after its 429s: over the min_buckets after its
 * last 429 it still sends, at most half its rate from its first 429 to its
 * last.  What a client honouring Retry-After (or backing off
 * exponentially) looks like, and what the limit was for; a source that
 * falls silent is a vanish, one that keeps its rate is still limited.
 * BACKOFF: from, to the two rates, count its 429s, time the bucket after
 * the last 429.  @return 0 or -1.
 */
static int backoff(lbt_timeline *tl, const struct storm *st)
{
	struct tl_dense d, all;
	size_t mb = tl->o.cp.min_buckets ? tl->o.cp.min_buckets : 1, a, b;
	int rc;

	if (lbt_tli_dense(tl, &st->w->c429, &d, 0) < 0)
		return -1;
	if ((rc = lbt_tli_dense(tl, &st->w->cells, &all, 0)) == 0) {
		a = 0;
		b = d.n;
		lbt_tli_trim(d.v, &a, &b);
		if (a < b && b + mb <= d.n) {
			double during = lbt_tli_rate(tl, all.v, a, b);
			double after = lbt_tli_rate(tl, all.v, b, b + mb);
			lbt_tl_event *e;
			lbt_evidence ev;

			if (after > 0 && after <= during / 2) {
				if ((e = lbt_tli_event_new(tl, LBT_TL_BACKOFF, LBT_TL_W_SOURCE,
				    lbt_tli_intern(tl, st->name, strlen(st->name), 0),
				    lbt_tli_bucket_us(tl, b))) == NULL || e->subject == NULL)
					rc = -1;
				else {
					e->from = during;
					e->to = after;
					e->unit = "req/s";
					e->ratio = during > 0 ? after / during : NAN;
					e->count = (int64_t)st->s.sent;
					if (lbt_tli_cells_first(&st->w->cells, tl->res->first_b + (int64_t)b,
					    tl->res->first_b + (int64_t)(b + mb), &ev))
						lbt_tli_event_ev(e, &ev);
				}
			}
		}
	}
	lbt_tli_dense_free(&all);
	lbt_tli_dense_free(&d);
	return rc;
}

/* A source's 429 runs, and whether it backed off after them. */
static int source_429_events(lbt_timeline *tl, const struct storm *st)
{
	int rc = source_429_runs(tl, st);

	return rc == 0 ? backoff(tl, st) : rc;
}

/*
 * The sources answered 429 (a rate limit per source), the `top` with the
 * most: what the limit did to whom, next to their storms, and who backed
 * off.  @return 0 or -1.
 */
int lbt_tli_detect_source_429(lbt_timeline *tl)
{
	return top_storms(tl, keep_429, by_429, source_429_events);
}

/* A source that re-sent a set (two distinct requests or more), at least
 * retry_min requests, each refused one once again on average.  One URL
 * refused over and over is a flood or a loop, and the log cannot tell
 * which: the flooding /64s of an attack were "re-sending" by the old
 * count. */
static int keep_storm(const lbt_timeline *tl, struct storm *st)
{
	resent_of(tl, st->w, &st->s);
	return st->s.sets >= 2 && st->s.resent >= tl->o.retry_min &&
	    st->s.resent >= st->s.distinct && st->s.top != NULL;
}

/* A storm's summary over the input (RETRY) and its episodes (RETRY_STORM). */
static int storm_events(lbt_timeline *tl, const struct storm *st)
{
	int rc = storm_event(tl, st);

	return rc == 0 ? storm_episodes(tl, st) : rc;
}

/* The retry storms of the tracked sources, the heaviest `top`: each one's
 * summary over the input (RETRY) and its episodes (RETRY_STORM).
 * @return 0 or -1. */
int lbt_tli_detect_retries(lbt_timeline *tl)
{
	return top_storms(tl, keep_storm, storm_cmp, storm_events);
}
