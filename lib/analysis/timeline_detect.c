/*
 * timeline_detect.c - finish: every series made dense over the input's
 * buckets and read by the change-point engine (changepoint.h, one engine
 * for every series), and the events of what it finds: rises and drops of
 * all traffic, of a key, of a Host; new heavy sources and sources above
 * `ratio` x their baseline; sources that stop at once; classes of errors
 * and refusals, and one refusal giving way to another; the end of the
 * incident.  Saturation and load balancers are in timeline_more.c,
 * retries in timeline_retry.c, HAProxy's lines in timeline_lines.c; the
 * dense series and the events of an episode, which they all read, in
 * timeline_dense.c.
 *
 * An episode's time is the start of its first bucket (the change point);
 * its evidence, the smallest record of the series in the episode, is the
 * first one of that bucket.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timeline_int.h"

/* The rises (and, with drops, the drops) of one series.  @return 0 or -1. */
static int series_episodes(lbt_timeline *tl, const struct tl_dense *d, const tl_cells *c,
    lbt_tl_what w, const char *subject, int drops)
{
	for (size_t i = 0; i < d->cp.nep; i++) {
		const lbt_cp_episode *ep = &d->cp.ep[i];
		int rise = ep->kind == LBT_CP_RISE;

		if (!rise && !drops)
			continue;
		if (lbt_tli_episode_events(tl, d, c, ep, rise ? LBT_TL_RISE : LBT_TL_DROP,
		    rise ? LBT_TL_RISE_END : LBT_TL_DROP_END, w, subject) < 0)
			return -1;
	}
	return 0;
}

/* ---- the tracked dimensions ---------------------------------------------- */

/* A tracked value while detecting. */
struct view {
	const struct tl_subj *w;
	const char *name;         /* interned */
	struct tl_dense d;
};

/* qsort order of views: count descending, then name. */
static int view_cmp(const void *a, const void *b)
{
	const struct view *x = a, *y = b;

	if (x->w->count != y->w->count)
		return x->w->count > y->w->count ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The name of a tracked value: its text, a source's network in text. */
static const char *view_name(lbt_timeline *tl, const struct tl_subj *w, int source)
{
	char b[LBT_ADDR_STRLEN + 8];

	if (!source)
		return lbt_tli_intern(tl, w->key, w->klen, 0);
	lbt_netgroup_format(&tl->o.net, (const lbt_addr *)w->key, b, sizeof b);
	return lbt_tli_intern(tl, b, strlen(b), 0);
}

/* Free n views. */
static void views_free(struct view *v, size_t n)
{
	for (size_t i = 0; v != NULL && i < n; i++)
		lbt_tli_dense_free(&v[i].d);
	free(v);
}

/* The values of sketch s, ranked, each dense and read.  *n gets their count.
 * @return the array (free with views_free), or NULL when out of memory. */
static struct view *views_of(lbt_timeline *tl, const tl_sketch *s, int source, size_t *n)
{
	struct view *v = calloc(s->n ? s->n : 1, sizeof *v);

	*n = 0;
	if (v == NULL)
		return NULL;
	for (size_t i = 0; i < s->n; i++) {
		v[i].w = &s->v[i];
		*n = i + 1;
		if ((v[i].name = view_name(tl, &s->v[i], source)) == NULL ||
		    lbt_tli_dense(tl, &s->v[i].cells, &v[i].d, 1) < 0) {
			views_free(v, *n);
			*n = 0;
			return NULL;
		}
	}
	qsort(v, *n, sizeof *v, view_cmp);
	return v;
}

/* Chart c: the first `k` views and "other" (every request minus them).
 * @return 0 or -1. */
static int chart_top(lbt_timeline *tl, lbt_tl_chart c, lbt_tl_what w, const struct view *v,
    size_t n, size_t k)
{
	const struct lbt_tli_result *r = tl->res;
	int64_t *rest = malloc((r->n ? r->n : 1) * sizeof *rest);

	if (rest == NULL)
		return -1;
	memcpy(rest, r->total, r->n * sizeof *rest);
	for (size_t i = 0; i < n && i < k; i++) {
		int64_t *copy = malloc((r->n ? r->n : 1) * sizeof *copy);

		if (copy == NULL || lbt_tli_own(tl, copy) < 0) {
			free(rest);
			return -1;
		}
		memcpy(copy, v[i].d.v, r->n * sizeof *copy);
		for (size_t j = 0; j < r->n; j++)
			rest[j] -= copy[j];
		if (lbt_tli_chart_add(tl, c, w, v[i].name, copy) < 0) {
			free(rest);
			return -1;
		}
	}
	if (lbt_tli_own(tl, rest) < 0)
		return -1;
	return n > 0 ? lbt_tli_chart_add(tl, c, w, "other", rest) : 0;
}

/* Key and Host rises (Hosts only when there are several, with drops):
 * the first `top` values that have one.  @return 0 or -1. */
static int plain_rises(lbt_timeline *tl, struct view *v, size_t n, lbt_tl_what w)
{
	size_t shown = 0;

	for (size_t i = 0; i < n && shown < tl->o.top; i++) {
		size_t nev = tl->res->nev;

		if (lbt_tli_rebase(tl, &v[i].d) < 0)
			return -1;
		if (series_episodes(tl, &v[i].d, &v[i].w->cells, w, v[i].name,
		    w == LBT_TL_W_HOST) < 0)
			return -1;
		shown += tl->res->nev > nev;
	}
	return 0;
}

/* A rise of a source's episode ep over what it rose from: its ratio to
 * the baseline, or for a source without one (new) its mean over the rate
 * of the part before (0 when that part was silent). */
static double rise_factor(const lbt_cp_episode *ep)
{
	if (ep->ratio > 0)
		return ep->ratio;
	return ep->from_rate > 0 ? ep->mean_rate / ep->from_rate : 0;
}

/* A source's rises: the first of a new one (NEW_SOURCE, unless it is one
 * of a burst: in_burst), then those at `ratio` x what they rose from
 * (SOURCE_RISE), the same test for a new source's later rises as for the
 * others' (a new source going from 10 to 35 req/s is no event); a source
 * that began with the data is read against its first buckets
 * (lbt_tli_rebase).  @return 0 or -1. */
static int source_rises(lbt_timeline *tl, struct view *s, size_t *shown, int in_burst)
{
	int first = 1, any = 0, is_new = s->d.cp.is_new;   /* rebased by sources() */

	for (size_t i = 0; i < s->d.cp.nep; i++) {
		const lbt_cp_episode *ep = &s->d.cp.ep[i];
		lbt_tl_kind k;

		if (ep->kind != LBT_CP_RISE)
			continue;
		if (is_new && first)
			k = LBT_TL_NEW_SOURCE;
		else if (rise_factor(ep) >= tl->o.ratio)
			k = LBT_TL_SOURCE_RISE;
		else
			continue;
		first = 0;
		if (k == LBT_TL_NEW_SOURCE && in_burst)
			continue;
		any = 1;
		if (lbt_tli_episode_events(tl, &s->d, &s->w->cells, ep, k, LBT_TL_RISE_END,
		    LBT_TL_W_SOURCE, s->name) < 0)
			return -1;
	}
	*shown += any;
	return 0;
}

/* ---- a burst of new sources ---------------------------------------------- */

#define TL_BURST_MIN 10     /* new sources appearing together that make a burst */

/* Is view s a new source by the timeline's rule (lbt_tli_rebase left it
 * new)? */
static int is_new_source(const lbt_timeline *tl, const struct view *s)
{
	size_t mb = tl->o.cp.min_buckets ? tl->o.cp.min_buckets : 1;

	return s->d.has_cp && s->d.cp.is_new && s->d.cp.first_seen >= mb &&
	    s->d.cp.first_seen < s->d.n && !lbt_tli_began_with_data(tl, &s->d);
}

/*
 * Many new sources appearing within min_buckets of each other (a botnet,
 * a customer's fleet restarting, a DNS change bringing a crowd) are one
 * event: how many, from the first appearance to the last, and their share
 * of every request while they sent.  One event each would drown the rest
 * of the story.  flag[i] is set for the members.  @return 0 or -1.
 */
static int source_burst(lbt_timeline *tl, const struct view *v, size_t n, char *flag)
{
	const struct lbt_tli_result *r = tl->res;
	size_t mb = tl->o.cp.min_buckets ? tl->o.cp.min_buckets : 1, best = 0, at = 0;
	int64_t cnt = 0, all, last_busy = 0;
	lbt_tl_event *e;
	size_t lo = SIZE_MAX, hi = 0;
	lbt_evidence ev, ev1;
	int have_ev = 0;

	for (size_t i = 0; i < n; i++) {          /* the window with the most */
		size_t k = 0;

		if (!is_new_source(tl, &v[i]))
			continue;
		for (size_t j = 0; j < n; j++)
			k += is_new_source(tl, &v[j]) && v[j].d.cp.first_seen >= v[i].d.cp.first_seen &&
			    v[j].d.cp.first_seen < v[i].d.cp.first_seen + mb;
		if (k > best || (k == best && v[i].d.cp.first_seen < at))
			best = k, at = v[i].d.cp.first_seen;
	}
	if (best < TL_BURST_MIN)
		return 0;
	for (size_t i = 0; i < n; i++) {
		size_t f = v[i].d.cp.first_seen;

		if (!is_new_source(tl, &v[i]) || f < at || f >= at + mb)
			continue;
		flag[i] = 1;
		lo = f < lo ? f : lo;
		hi = f > hi ? f : hi;
		for (size_t b = f; b < r->n; b++)
			if (v[i].d.v[b] > 0 && (int64_t)b > last_busy)
				last_busy = (int64_t)b;
		if (lbt_tli_cells_first(&v[i].w->cells, r->first_b + (int64_t)f,
		    r->first_b + (int64_t)f + 1, &ev1) && (!have_ev ||
		    lbt_evidence_cmp(&ev1, &ev) < 0))
			ev = ev1, have_ev = 1;
	}
	for (size_t i = 0; i < n; i++)
		if (flag[i])
			cnt += lbt_tli_sum_of(v[i].d.v, lo, (size_t)last_busy + 1);
	all = lbt_tli_sum_of(r->total, lo, (size_t)last_busy + 1);
	if ((e = lbt_tli_event_new(tl, LBT_TL_SOURCE_BURST, LBT_TL_W_SOURCE, "new sources",
	    lbt_tli_bucket_us(tl, lo))) == NULL)
		return -1;
	e->end_us = lbt_tli_bucket_us(tl, hi + 1);
	e->value = (int32_t)best;
	e->count = cnt;
	e->to = lbt_tli_rate(tl, r->total, lo, (size_t)last_busy + 1) * (all > 0 ?
	    (double)cnt / (double)all : 0);
	e->unit = "req/s";
	e->share_pct = all > 0 ? 100.0 * (double)cnt / (double)all : NAN;
	e->peak_us = lbt_tli_bucket_us(tl, (size_t)last_busy + 1);
	if (have_ev)
		lbt_tli_event_ev(e, &ev);
	lbt_tli_incident_note(tl, e->time_us, e->peak_us, 0);
	return 0;
}

/* The request (method and path) source w sent most, or NULL. */
static const char *top_request(const struct tl_subj *w, size_t *len)
{
	const char *best = NULL;
	uint64_t most = 0;

	for (size_t i = 0; w->req != NULL && i < lbt_hmap_count(w->req); i++) {
		lbt_hmap_entry e;

		lbt_hmap_at(w->req, i, &e);
		if (((const struct tl_req *)e.val)->n > most ||
		    (((const struct tl_req *)e.val)->n == most && best != NULL &&
		    (e.klen < *len || (e.klen == *len && memcmp(e.key, best, e.klen) < 0)))) {
			most = ((const struct tl_req *)e.val)->n;
			best = e.key;
			*len = e.klen;
		}
	}
	return best;
}

/* Did another tracked source send request key[0..len) after time t? */
static int others_went_on(const lbt_timeline *tl, const struct tl_subj *w, const char *key,
    size_t len, int64_t t)
{
	for (size_t i = 0; i < tl->srcs.n; i++) {
		const struct tl_subj *o = &tl->srcs.v[i];
		const struct tl_req *q;

		if (o != w && o->req != NULL && (q = lbt_hmap_get(o->req, key, len)) != NULL &&
		    q->last_us > t)
			return 1;
	}
	return 0;
}

/* Was any LB reloaded from `before` µs before t to 2 s after it?  (The
 * same span as the report's "HAProxy was reloaded at".) */
static int reloaded_near(const lbt_timeline *tl, int64_t t, int64_t before)
{
	for (size_t i = 0; i < tl->res->nev; i++) {
		const lbt_tl_event *e = &tl->res->ev[i];

		if (e->kind == LBT_TL_RELOAD && e->time_us >= t - before &&
		    e->time_us <= t + 2000000)
			return 1;
	}
	return 0;
}

/*
 * A source that stops at once while the others go on: its last bucket L
 * at least min_buckets before the end, its rate over the min_buckets up
 * to L at least the floor, and the other sources logging in at least half
 * of the min_buckets after L.  Nothing logs why (a tcp-request connection
 * reject, a firewall, a DNS change) -- when it is a stop at all.  With
 * no reload of any LB near it (which would explain a stop), it is the end
 * of what the source was doing (other "ended") when it was already
 * decaying (its rate over those min_buckets below half that of the
 * min_buckets before), or when no other source went on sending its
 * request after it (a flood that ended with all its sources, not a block
 * of one of them).  @return 0 or -1.
 */
static int vanish(lbt_timeline *tl, const struct view *s)
{
	const struct lbt_tli_result *r = tl->res;
	size_t mb = tl->o.cp.min_buckets ? tl->o.cp.min_buckets : 1, L = r->n, busy = 0, klen = 0;
	const char *key;
	double last, before;
	lbt_tl_event *e;

	for (size_t i = r->n; i-- > 0;)
		if (s->d.v[i] > 0) {
			L = i;
			break;
		}
	if (L == r->n || L + 1 + mb > r->n || L + 1 < mb ||
	    lbt_tli_rate(tl, s->d.v, L + 1 - mb, L + 1) < tl->o.cp.floor)
		return 0;
	for (size_t i = L + 1; i < L + 1 + mb; i++)
		busy += r->total[i] - s->d.v[i] > 0;
	if (busy * 2 < mb)
		return 0;
	if ((e = lbt_tli_event_new(tl, LBT_TL_VANISH, LBT_TL_W_SOURCE, s->name,
	    s->w->last.time_us)) == NULL)
		return -1;
	last = lbt_tli_rate(tl, s->d.v, L + 1 - mb, L + 1);
	before = L + 1 >= 2 * mb ? lbt_tli_rate(tl, s->d.v, L + 1 - 2 * mb, L + 1 - mb) : 0;
	key = top_request(s->w, &klen);
	if (!reloaded_near(tl, s->w->last.time_us, 10000000) && (last < before / 2 ||
	    (key != NULL && !others_went_on(tl, s->w, key, klen, s->w->last.time_us))))
		e->other = "ended";
	e->from = last;
	e->to = 0;
	e->unit = "req/s";
	e->count = (int64_t)s->w->count;
	lbt_tli_event_ev(e, &s->w->last);
	return 0;
}

/* The sources: a burst of new ones, rises, vanishing ones, the chart.
 * @return 0 or -1. */
static int sources(lbt_timeline *tl)
{
	size_t n, shown = 0, gone = 0;
	struct view *v = views_of(tl, &tl->srcs, 1, &n);
	char *burst = calloc(n ? n : 1, 1);
	int rc = v != NULL && burst != NULL ? 0 : -1;

	for (size_t i = 0; rc == 0 && i < n; i++)      /* the timeline's "new" first */
		rc = lbt_tli_rebase(tl, &v[i].d);
	if (rc == 0)
		rc = source_burst(tl, v, n, burst);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		size_t nev = tl->res->nev;

		if (shown < tl->o.top)
			rc = source_rises(tl, &v[i], &shown, burst[i]);
		if (rc == 0 && gone < tl->o.top && (rc = vanish(tl, &v[i])) == 0)
			gone += tl->res->nev > nev && tl->res->ev[tl->res->nev - 1].kind ==
			    LBT_TL_VANISH;
	}
	if (rc == 0)
		rc = chart_top(tl, LBT_TL_CH_SOURCES, LBT_TL_W_SOURCE, v, n, 5);
	free(burst);
	views_free(v, n);
	return rc;
}

/* Keys and Hosts: rises, the keys' chart.  @return 0 or -1. */
static int keys_hosts(lbt_timeline *tl)
{
	size_t n;
	struct view *v = views_of(tl, &tl->keys, 0, &n);
	int rc = v != NULL ? 0 : -1;

	if (rc == 0)
		rc = plain_rises(tl, v, n, LBT_TL_W_KEY);
	if (rc == 0)
		rc = chart_top(tl, LBT_TL_CH_KEYS, LBT_TL_W_KEY, v, n, 5);
	views_free(v, n);
	if (rc < 0 || tl->hosts.n < 2)
		return rc;
	v = views_of(tl, &tl->hosts, 0, &n);
	if ((rc = v != NULL ? 0 : -1) == 0)
		rc = plain_rises(tl, v, n, LBT_TL_W_HOST);
	views_free(v, n);
	return rc;
}

/* ---- classes: errors and refusals ---------------------------------------- */

/* An episode of a class, for the switches. */
struct cls_ep {
	int c;
	size_t start, end;
	int ongoing;
	double share;
	int64_t count;
};

/* Share (%) of class counts v among every request over [a, b); 0 when none. */
static double share(const struct lbt_tli_result *r, const int64_t *v, size_t a, size_t b)
{
	int64_t all = lbt_tli_sum_of(r->total, a, b);

	return all > 0 ? 100.0 * (double)lbt_tli_sum_of(v, a, b) / (double)all : 0;
}

/* The largest share (%) of class counts v in one bucket of [a, b) among
 * buckets of at least PEAK_MIN requests (a bucket of one request is 100 %
 * of nothing).  *at gets that bucket (a when none). */
#define PEAK_MIN 5
static double peak_share(const struct lbt_tli_result *r, const int64_t *v, size_t a, size_t b,
    size_t *at)
{
	double best = 0;

	*at = a;
	for (size_t i = a; i < b; i++)
		if (r->total[i] >= PEAK_MIN && 100.0 * (double)v[i] / (double)r->total[i] > best) {
			best = 100.0 * (double)v[i] / (double)r->total[i];
			*at = i;
		}
	return best;
}

/* The start of the engine's segment before bucket i (0 when none). */
static size_t seg_before(const lbt_cp_result *cp, size_t i)
{
	for (size_t k = cp->nseg; k-- > 0;)
		if (cp->seg[k].end <= i)
			return cp->seg[k].start;
	return 0;
}

/*
 * The events of one rise of class c (*out filled by the caller): its share
 * before and during, its peak share, requests; its end.  @return 0 or -1.
 */
static int class_episode(lbt_timeline *tl, int c, const struct tl_dense *d,
    const lbt_cp_episode *ep, struct cls_ep *out)
{
	const struct lbt_tli_result *r = tl->res;
	const char *name = lbt_tl_class_name((lbt_tl_class)c);
	lbt_tl_event *e = lbt_tli_event_new(tl, LBT_TL_ERRORS, LBT_TL_W_CLASS, name,
	    lbt_tli_bucket_us(tl, lbt_tli_first_busy(d->v, ep->start, ep->end)));
	lbt_evidence ev;
	size_t at;

	if (e == NULL)
		return -1;
	e->from = share(r, d->v, seg_before(&d->cp, ep->start), ep->start);
	e->to = e->share_pct = out->share;
	e->peak = peak_share(r, d->v, ep->start, ep->end, &at);
	e->peak_us = lbt_tli_bucket_us(tl, at);
	e->unit = "%";
	e->count = out->count;
	e->ongoing = ep->ongoing;
	e->end_us = ep->ongoing ? LBT_TL_NONE : lbt_tli_bucket_us(tl, ep->end);
	if (lbt_tli_cells_first(&tl->cls[c], r->first_b + (int64_t)ep->start,
	    r->first_b + (int64_t)ep->end, &ev))
		lbt_tli_event_ev(e, &ev);
	lbt_tli_incident_note(tl, e->time_us, e->end_us, ep->ongoing);
	if (ep->ongoing)
		return 0;
	if ((e = lbt_tli_event_new(tl, LBT_TL_ERRORS_END, LBT_TL_W_CLASS, name,
	    lbt_tli_bucket_us(tl, ep->end))) == NULL)
		return -1;
	e->from = out->share;
	e->to = share(r, d->v, ep->end, r->n - ep->end > 10 ? ep->end + 10 : r->n);
	e->unit = "%";
	e->count = out->count;
	return 0;
}

/* Which refusal a class is, for switches: "tarpit", "deny", "reject". */
static const char *refusal(int c)
{
	return c == LBT_TL_CTARPIT ? "tarpit" : c == LBT_TL_CDENY ? "deny" :
	    c == LBT_TL_CNONE ? "reject" : NULL;
}

/*
 * One refusal giving way to another (the tarpit replaced by deny, deny by
 * reject): an episode of one ending within 2 buckets of an episode of the
 * other starting.  Nothing logs the configuration change; this is what it
 * looks like.  @return 0 or -1.
 */
static int switches(lbt_timeline *tl, const struct cls_ep *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++) {
			const struct cls_ep *a = &v[i], *b = &v[j];
			char name[32];
			lbt_tl_event *e;
			lbt_evidence ev;

			if (refusal(a->c) == NULL || refusal(b->c) == NULL || a->c == b->c ||
			    a->ongoing || b->start + 2 < a->end || b->start > a->end + 2)
				continue;
			snprintf(name, sizeof name, "%s->%s", refusal(a->c), refusal(b->c));
			e = lbt_tli_event_new(tl, LBT_TL_SWITCH, LBT_TL_W_ACTION,
			    lbt_tli_intern(tl, name, strlen(name), 0), lbt_tli_bucket_us(tl, b->start));
			if (e == NULL || e->subject == NULL)
				return -1;
			e->from = a->share;
			e->to = b->share;
			e->unit = "%";
			e->count = b->count;
			e->other = refusal(b->c);
			if (lbt_tli_cells_first(&tl->cls[b->c], tl->res->first_b + (int64_t)b->start,
			    tl->res->first_b + (int64_t)b->end, &ev))
				lbt_tli_event_ev(e, &ev);
		}
	return 0;
}

/* Is x the episode of an earlier class over the same buckets and lines
 * (the 429s that are all the denied requests)?  Then it is said once. */
static int same_lines(const struct cls_ep *v, size_t n, const struct cls_ep *x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].start == x->start && v[i].end == x->end && v[i].count == x->count)
			return 1;
	return 0;
}

/*
 * Episode ep cut to the buckets from its first to its last answer of the
 * class.  The engine folds a run shorter than min_buckets into its
 * neighbours, so a deny that lasted 9 s of a 55 s input can come back as
 * a rise over all of it; its share and its place next to the tarpit's end
 * (switches) are those of the answers themselves.
 */
static lbt_cp_episode busy_part(const int64_t *v, const lbt_cp_episode *ep)
{
	lbt_cp_episode t = *ep;

	t.start = lbt_tli_first_busy(v, ep->start, ep->end);
	while (!t.ongoing && t.end > t.start + 1 && v[t.end - 1] == 0)
		t.end--;
	return t;
}

/* Every class: its rises, then the switches between refusals.  @return 0 or -1. */
static int classes(lbt_timeline *tl)
{
	struct cls_ep *eps = NULL;
	size_t neps = 0, cap = 0;
	int rc = 0;

	for (int c = 0; c < LBT_TL_NCLASS && rc == 0; c++) {
		struct tl_dense d;

		if (tl->cls[c].m == NULL)
			continue;
		if ((rc = lbt_tli_dense(tl, &tl->cls[c], &d, 1)) == 0)
			for (size_t i = 0; i < d.cp.nep && rc == 0; i++) {
				lbt_cp_episode busy = busy_part(d.v, &d.cp.ep[i]);
				const lbt_cp_episode *ep = &busy;
				struct cls_ep *x;

				if (ep->kind != LBT_CP_RISE || (rc = LBT_GROW(eps, cap, neps + 1, 8)) < 0)
					continue;
				x = &eps[neps++];
				*x = (struct cls_ep){ c, ep->start, ep->end, ep->ongoing,
					share(tl->res, d.v, ep->start, ep->end),
					lbt_tli_sum_of(d.v, ep->start, ep->end) };
				if (!same_lines(eps, neps - 1, x))
					rc = class_episode(tl, c, &d, ep, x);
			}
		lbt_tli_dense_free(&d);
	}
	if (rc == 0)
		rc = switches(tl, eps, neps);
	free(eps);
	return rc;
}

/* ---- all of it ------------------------------------------------------------ */

/* The span, the dense total and its episodes.  @return 0 or -1. */
static int total(lbt_timeline *tl)
{
	struct lbt_tli_result *r = tl->res;
	struct tl_dense d;
	int rc;

	r->first_b = lbt_tli_floor_div(tl->st.first_us, tl->step);
	r->n = (size_t)(lbt_tli_floor_div(tl->st.last_us, tl->step) - r->first_b + 1);
	tl->st.step_us = tl->step;
	tl->st.first_bucket = r->first_b;
	tl->st.nbuckets = r->n;
	if (lbt_tli_dense(tl, &tl->all, &d, 1) < 0) {
		lbt_tli_dense_free(&d);
		return -1;
	}
	r->total = d.v;             /* the result owns it from now on */
	rc = series_episodes(tl, &d, &tl->all, LBT_TL_W_ALL, "all", 1);
	d.v = NULL;
	lbt_tli_dense_free(&d);
	return rc;
}

/* The status mix chart.  @return 0 or -1. */
static int chart_status(lbt_timeline *tl)
{
	static const char *const names[TL_NSTAT] = {
		"2xx", "3xx", "4xx", "429", "5xx", "-1", "other"
	};

	for (int c = 0; c < TL_NSTAT; c++) {
		struct tl_dense d;

		if (lbt_tli_dense(tl, &tl->stat[c], &d, 0) < 0 || lbt_tli_own(tl, d.v) < 0)
			return -1;
		if (lbt_tli_chart_add(tl, LBT_TL_CH_STATUS, LBT_TL_W_CLASS, names[c], d.v) < 0)
			return -1;
	}
	return 0;
}

/*
 * Where the total is back in its baseline band for good: after the last
 * window of min_buckets buckets (from the incident's start on) whose mean
 * is outside [drop_fraction x baseline, max(factor x baseline, floor)]
 * (the lower bound only when the baseline is at least the floor, as for
 * the engine's drops), the first bucket back inside it, with at least
 * min_buckets buckets left after it; no end when the total never left the
 * band.  A series still above its own baseline (a
 * source trickling on, a few 429s) does not keep an incident going once
 * the traffic as a whole is back where it was.  @return e, or r->n.
 */
static size_t total_settled(lbt_timeline *tl, size_t from)
{
	const struct lbt_tli_result *r = tl->res;
	size_t mb = tl->o.cp.min_buckets ? tl->o.cp.min_buckets : 1, e;
	double hi, lo, base;
	lbt_cp_result cp;

	if (r->n < 2 * mb || lbt_cp_find(r->total, r->n, (double)tl->step / 1e6, &tl->o.cp,
	    &cp) < 0)
		return r->n;
	base = cp.is_new ? 0 : cp.baseline;
	lbt_cp_result_free(&cp);
	hi = tl->o.cp.factor * base > tl->o.cp.floor ? tl->o.cp.factor * base : tl->o.cp.floor;
	lo = base >= tl->o.cp.floor ? tl->o.cp.drop_fraction * base : 0;
	for (size_t i = r->n - mb + 1; i-- > from + 1;) {
		double m = lbt_tli_rate(tl, r->total, i, i + mb);

		if (m > hi || m < lo) {             /* the last window out of the band */
			for (e = i + 1; e < r->n; e++) {   /* and its first bucket back in */
				double x = (double)r->total[e] * 1e6 / (double)tl->step;

				if (x <= hi && x >= lo)
					break;
			}
			return e + mb <= r->n ? e : r->n;
		}
	}
	return r->n;                        /* never out: nothing to end */
}

/* The end of the incident: every episode over, at the last end; or, when
 * some series goes on, where the total settled back (total_settled).
 * @return 0 or -1. */
static int incident_end(lbt_timeline *tl)
{
	struct lbt_tli_result *r = tl->res;
	lbt_tl_event *e;
	lbt_evidence ev;
	const char *how = NULL;
	int64_t b;

	if (tl->st.incident_from == LBT_TL_NONE)
		return 0;
	if (r->ongoing && tl->st.requests > 0) {
		size_t from = (size_t)(lbt_tli_floor_div(tl->st.incident_from, tl->step) - r->first_b);
		size_t at = total_settled(tl, from < r->n ? from : r->n);

		if (at >= r->n)
			return 0;
		r->ongoing = 0;
		tl->st.incident_to = lbt_tli_bucket_us(tl, at);
		how = "total";
	}
	if (r->ongoing || tl->st.incident_to == LBT_TL_NONE)
		return 0;
	if ((e = lbt_tli_event_new(tl, LBT_TL_END, LBT_TL_W_ALL, "all", tl->st.incident_to)) ==
	    NULL)
		return -1;
	b = lbt_tli_floor_div(tl->st.incident_to, tl->step);
	e->end_us = LBT_TL_NONE;
	e->other = how;
	e->from = lbt_tli_rate(tl, r->total, (size_t)(b - r->first_b) < r->n ?
	    (size_t)(b - r->first_b) : r->n, r->n);
	e->unit = "req/s";
	if (lbt_tli_cells_first(&tl->all, b, r->first_b + (int64_t)r->n, &ev))
		lbt_tli_event_ev(e, &ev);
	return 0;
}

/*
 * What the configuration given as the one after (o.changes) changed, at
 * the last reload logged: one event a line, its text the change.  The
 * old file was in effect before the first reload, the new one after the
 * last; with several reloads the change is placed at the last one, and
 * `other` says how many there were.  No reload: no event (the caller
 * says so).  @return 0 or -1.
 */
static int config_changes(lbt_timeline *tl)
{
	const lbt_tl_event *last = NULL;
	size_t reloads = 0;
	char other[48];

	for (size_t i = 0; i < tl->res->nev; i++)
		if (tl->res->ev[i].kind == LBT_TL_RELOAD) {
			reloads++;
			if (last == NULL || tl->res->ev[i].time_us > last->time_us)
				last = &tl->res->ev[i];
		}
	if (last == NULL || tl->o.nchanges == 0)
		return 0;
	/* copied: the events array grows below */
	struct { int64_t t; const char *lb, *file; uint64_t line; int approx; int64_t hi; } at = {
		last->time_us, last->lb, last->ev_file, last->ev_line, last->approx, last->time_hi_us
	};

	snprintf(other, sizeof other, "%zu reloads", reloads);
	for (size_t i = 0; i < tl->o.nchanges; i++) {
		lbt_tl_event *e = lbt_tli_event_new(tl, LBT_TL_CONFIG_CHANGE, LBT_TL_W_PROXY,
		    "haproxy.cfg", at.t);

		if (e == NULL || (e->text = lbt_tli_intern(tl, tl->o.changes[i],
		    strlen(tl->o.changes[i]), 0)) == NULL)
			return -1;
		e->lb = at.lb;
		e->ev_file = at.file;
		e->ev_line = at.line;
		e->approx = at.approx;
		e->time_hi_us = at.hi;
		if (reloads > 1 && (e->other = lbt_tli_intern(tl, other, strlen(other), 0)) == NULL)
			return -1;
	}
	return 0;
}

/* Every detector, in order, then the events sorted.  @return 0 or -1. */
int lbt_tli_detect(lbt_timeline *tl)
{
	tl->st.incident_from = tl->st.incident_to = LBT_TL_NONE;
	/* HAProxy's lines first: the per-LB shedding is cut at their reloads */
	if (lbt_tli_detect_lines(tl) < 0)
		return -1;
	if (tl->st.requests > 0) {
		if (total(tl) < 0 || classes(tl) < 0 || keys_hosts(tl) < 0 || sources(tl) < 0 ||
		    chart_status(tl) < 0)
			return -1;
		if (lbt_tli_detect_saturation(tl) < 0 || lbt_tli_detect_backends(tl) < 0 ||
		    lbt_tli_detect_lbs(tl) < 0 ||
		    lbt_tli_detect_retries(tl) < 0 || lbt_tli_detect_source_429(tl) < 0)
			return -1;
	}
	if (incident_end(tl) < 0 || config_changes(tl) < 0)
		return -1;
	lbt_tli_events_sort(tl);
	return 0;
}
