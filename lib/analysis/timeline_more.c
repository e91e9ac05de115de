/*
 * timeline_more.c - the detectors that read more than one series: slot
 * saturation per frontend and the alert that would have fired before it,
 * the volume of each load balancer against the others and its shedding
 * (runs of 429/503 answers cut at its reloads, also used for sources by
 * timeline_retry.c).
 *
 * Saturation reads the tarpit accumulator (tarpit.h, occupancy.h) run
 * beside the series: runs of its buckets where the logged fc reached
 * maxconn - near (what HAProxy counted), with the rebuilt occupancy's peak
 * and the tarpit's share of the slot time held over the same buckets; a
 * format without fc gets the rebuilt occupancy's periods at maxconn.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timeline_int.h"

#define SAT_GAP 3                 /* buckets between two full ones that join them */

/* The dense index of a tarpit bucket tb (width tstep), clamped to the span. */
static size_t index_of(const lbt_timeline *tl, int64_t tb, int64_t tstep)
{
	int64_t i = lbt_tli_floor_div(tb * tstep, tl->step) - tl->res->first_b;

	return i < 0 ? 0 : (size_t)i >= tl->res->n ? tl->res->n - 1 : (size_t)i;
}

/* Peak slots and the tarpit's share (%) of the slot time held in [from, to) µs. */
static void occ_over(const lbt_occ *o, int64_t from, int64_t to, int32_t *peak,
    double *share)
{
	size_t n;
	const lbt_occ_bucket *b = lbt_occ_buckets(o, &n);
	int64_t step = lbt_occ_opts_get(o)->step_us, slot = 0, tp = 0;

	*peak = 0;
	for (size_t i = 0; i < n; i++) {
		if (b[i].bucket * step < from || b[i].bucket * step >= to)
			continue;
		*peak = b[i].max > *peak ? b[i].max : *peak;
		slot += b[i].slot_us;
		tp += b[i].tarpit_us;
	}
	*share = slot > 0 ? 100.0 * (double)tp / (double)slot : NAN;
}

/* The frontend table entry of group g, or NULL. */
static const struct tl_fe *fe_of(const lbt_timeline *tl, const lbt_tarpit_group *g)
{
	size_t lb = strlen(g->lb), fe = strlen(g->frontend);
	char *k = malloc(lb + fe + 2);
	const struct tl_fe *f;

	if (k == NULL)
		return NULL;
	memcpy(k, g->lb, lb + 1);
	memcpy(k + lb + 1, g->frontend, fe);
	f = lbt_hmap_get(tl->fes, k, lb + 1 + fe);
	free(k);
	return f;
}

/* The start and end events of one saturation [from, to) of group g.
 * @return the start event's index, or -1 when out of memory. */
static int sat_events(lbt_timeline *tl, const lbt_tarpit_group *g, int64_t from, int64_t to,
    int32_t fc, const char *file, uint64_t line)
{
	lbt_tl_event *e = lbt_tli_event_new(tl, LBT_TL_SATURATION, LBT_TL_W_FRONTEND,
	    g->frontend, from);
	int32_t peak;
	double share;

	if (e == NULL)
		return -1;
	occ_over(g->occ, from, to, &peak, &share);
	e->lb = g->lb[0] ? g->lb : NULL;
	e->end_us = to;
	e->value = fc;
	e->limit = g->maxconn;
	e->peak = peak;
	e->unit = "slots";
	e->share_pct = share;
	e->ev_file = file;
	e->ev_line = line;
	lbt_tli_incident_note(tl, from, to, 0);
	if ((e = lbt_tli_event_new(tl, LBT_TL_SATURATION_END, LBT_TL_W_FRONTEND, g->frontend,
	    to)) == NULL)
		return -1;
	e->lb = g->lb[0] ? g->lb : NULL;
	e->limit = g->maxconn;
	return 0;
}

/* Runs of tarpit buckets b[0..n) (width tstep) at fc >= full, joined across
 * fewer than SAT_GAP others.  The run that holds the first line logged at
 * full starts with that line, the others with their first bucket.
 * @return 0 or -1. */
static int fc_runs(lbt_timeline *tl, const lbt_tarpit_group *g, const lbt_tarpit_bucket *b,
    size_t n, int64_t tstep)
{
	int32_t full = g->maxconn - tl->o.tarpit.near;
	const struct tl_fe *f = fe_of(tl, g);

	for (size_t i = 0; i < n;) {
		size_t j, last = i;
		int32_t fc = b[i].fc_max;

		if (b[i].fc_n == 0 || b[i].fc_max < full) {
			i++;
			continue;
		}
		for (j = i + 1; j < n && b[j].bucket - b[last].bucket <= SAT_GAP; j++)
			if (b[j].fc_n > 0 && b[j].fc_max >= full) {
				last = j;
				fc = b[j].fc_max > fc ? b[j].fc_max : fc;
			}
		if (f != NULL && f->full_m.at != LBT_TL_NONE &&
		    lbt_tli_floor_div(f->full_m.at, tstep) == b[i].bucket) {
			if (sat_events(tl, g, f->full_m.at, (b[last].bucket + 1) * tstep, fc,
			    f->full_m.ev.file, f->full_m.ev.line) < 0)
				return -1;
		} else if (sat_events(tl, g, b[i].bucket * tstep, (b[last].bucket + 1) * tstep, fc,
		    b[i].fc_file, b[i].fc_line) < 0) {
			return -1;
		}
		i = last + 1;
	}
	return 0;
}

/* Without a logged fc: the rebuilt occupancy's periods at maxconn.  @return 0 or -1. */
static int occ_runs(lbt_timeline *tl, const lbt_tarpit_group *g)
{
	size_t n;
	const lbt_occ_period *p = lbt_occ_periods(g->occ, 0, &n);

	for (size_t i = 0; i < n; i++)
		if (sat_events(tl, g, p[i].start_us, p[i].end_us, -1, NULL, 0) < 0)
			return -1;
	return 0;
}

/* The alert at alert_pct % of maxconn for group g's frontend: when fc was
 * first logged at it; peak_at: when fc first reached the full level.
 * @return 0 or -1. */
static int alert_event(lbt_timeline *tl, const lbt_tarpit_group *g)
{
	const struct tl_fe *f = fe_of(tl, g);
	lbt_tl_event *e;

	if (f == NULL || f->alert_m.at == LBT_TL_NONE)
		return 0;
	e = lbt_tli_event_new(tl, LBT_TL_ALERT, LBT_TL_W_FRONTEND, g->frontend, f->alert_m.at);
	if (e == NULL)
		return -1;
	e->lb = g->lb[0] ? g->lb : NULL;
	e->value = f->alert;
	e->limit = f->maxconn;
	e->share_pct = tl->o.alert_pct;
	e->peak_us = f->full_m.at;
	lbt_tli_event_ev(e, &f->alert_m.ev);
	return 0;
}

/* Two series of the slots chart for group g: rebuilt peak slots and logged
 * fc, the maximum of the tarpit buckets in each of ours.  @return 0 or -1. */
static int slots_chart(lbt_timeline *tl, const lbt_tarpit_group *g, const lbt_tarpit_bucket *b,
    size_t nb, int64_t tstep)
{
	struct lbt_tli_result *r = tl->res;
	size_t n, k = r->ncharts[LBT_TL_CH_SLOTS];
	const lbt_occ_bucket *ob = lbt_occ_buckets(g->occ, &n);
	int64_t *slots = calloc(r->n ? r->n : 1, sizeof *slots);
	int64_t *fc = calloc(r->n ? r->n : 1, sizeof *fc);
	int32_t *lim;

	if (lbt_tli_own(tl, slots) < 0 || lbt_tli_own(tl, fc) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		size_t x = index_of(tl, ob[i].bucket, lbt_occ_opts_get(g->occ)->step_us);

		slots[x] = ob[i].max > slots[x] ? ob[i].max : slots[x];
	}
	for (size_t i = 0; i < nb; i++) {
		size_t x = index_of(tl, b[i].bucket, tstep);

		fc[x] = b[i].fc_n > 0 && b[i].fc_max > fc[x] ? b[i].fc_max : fc[x];
	}
	if ((lim = realloc(r->slots_limit, (k + 2) * sizeof *lim)) == NULL)
		return -1;
	r->slots_limit = lim;
	lim[k] = lim[k + 1] = g->maxconn;
	if (lbt_tli_chart_add(tl, LBT_TL_CH_SLOTS, LBT_TL_W_FRONTEND, g->frontend, slots) < 0)
		return -1;
	return g->fc_n > 0 ? lbt_tli_chart_add(tl, LBT_TL_CH_SLOTS, LBT_TL_W_FRONTEND,
	    g->frontend, fc) : 0;
}

/* Saturation, alerts and the slots chart of every frontend.  @return 0 or -1. */
int lbt_tli_detect_saturation(lbt_timeline *tl)
{
	int64_t tstep = lbt_tarpit_opts_get(tl->tp)->step_us;

	for (size_t i = 0; i < lbt_tarpit_ngroups(tl->tp); i++) {
		const lbt_tarpit_group *g = lbt_tarpit_group_at(tl->tp, i);
		size_t nb;
		const lbt_tarpit_bucket *b = lbt_tarpit_buckets(tl->tp, i, &nb);

		if (g->occ == NULL || !g->has_time)
			continue;
		if (slots_chart(tl, g, b, nb, tstep) < 0)
			return -1;
		if (g->maxconn <= 0)
			continue;
		if ((g->fc_n > 0 ? fc_runs(tl, g, b, nb, tstep) : occ_runs(tl, g)) < 0 ||
		    alert_event(tl, g) < 0)
			return -1;
	}
	return 0;
}

/* ---- load balancers ------------------------------------------------------- */

/* A load balancer while detecting. */
struct lbv {
	const char *name;
	const struct tl_lb *l;
	struct tl_dense d;
	size_t first, last;       /* first and last bucket with a request */
};

/* Is an empty stretch of `len` buckets improbable for lb at its rate r
 * (chance below 0.1 %: r x seconds > 7)? */
static int improbable(const lbt_timeline *tl, double r, size_t len)
{
	return r * (double)len * (double)tl->step / 1e6 > 7.0;
}

/* Buckets of [a, b) where the other load balancers logged. */
static size_t others_busy(const lbt_timeline *tl, const struct lbv *x, size_t a, size_t b)
{
	size_t busy = 0;

	for (size_t i = a; i < b && i < tl->res->n; i++)
		busy += tl->res->total[i] - x->d.v[i] > 0;
	return busy;
}

/* The names of the other LBs whose rate over [b, c) exceeds theirs over
 * [a, b) by a fifth, comma-separated and interned (NULL when none). */
static const char *risers(lbt_timeline *tl, const struct lbv *v, size_t n, size_t self,
    size_t a, size_t b, size_t c)
{
	char list[256];
	size_t len = 0;

	list[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		double before = lbt_tli_rate(tl, v[i].d.v, a, b), after = lbt_tli_rate(tl, v[i].d.v,
		    b, c);
		int k;

		if (i == self || !(after > 1.2 * before) || after <= 0)
			continue;
		k = snprintf(list + len, sizeof list - len, "%s%s", len ? "," : "", v[i].name);
		len = k > 0 && (size_t)k < sizeof list - len ? len + (size_t)k : len;
	}
	return len ? lbt_tli_intern(tl, list, len, 0) : NULL;
}

/* An LB that stops logging while the others go on.  @return 0 or -1. */
static int lb_stop(lbt_timeline *tl, const struct lbv *v, size_t n, size_t i)
{
	const struct lbv *x = &v[i];
	size_t after = tl->res->n - 1 - x->last, mb = tl->o.cp.min_buckets;
	double r = lbt_tli_rate(tl, x->d.v, x->first, x->last + 1);
	lbt_tl_event *e;

	if (after < mb || !improbable(tl, r, after) ||
	    others_busy(tl, x, x->last + 1, x->last + 1 + mb) * 2 < mb)
		return 0;
	e = lbt_tli_event_new(tl, LBT_TL_LB_STOP, LBT_TL_W_LB, x->name, x->l->last.time_us);
	if (e == NULL)
		return -1;
	e->lb = x->name;
	e->from = r;
	e->to = 0;
	e->unit = "req/s";
	e->count = lbt_tli_sum_of(x->d.v, 0, tl->res->n);
	e->other = risers(tl, v, n, i, x->first, x->last + 1, tl->res->n);
	lbt_tli_event_ev(e, &x->l->last);
	return 0;
}

/* Holes in an LB's log: min_buckets or more empty buckets, improbable at
 * its rate, while the others logged in half of them.  @return 0 or -1. */
static int lb_gaps(lbt_timeline *tl, const struct lbv *x)
{
	size_t mb = tl->o.cp.min_buckets;
	double r = lbt_tli_rate(tl, x->d.v, x->first, x->last + 1);

	for (size_t i = x->first; i <= x->last;) {
		size_t j = i;
		lbt_tl_event *e;
		lbt_evidence ev;

		while (j <= x->last && x->d.v[j] == 0)
			j++;
		if (j == i) {
			i++;
			continue;
		}
		if (j - i >= mb && improbable(tl, r, j - i) && others_busy(tl, x, i, j) * 2 >= j - i) {
			e = lbt_tli_event_new(tl, LBT_TL_LB_GAP, LBT_TL_W_LB, x->name,
			    lbt_tli_bucket_us(tl, i));
			if (e == NULL)
				return -1;
			e->lb = x->name;
			e->end_us = lbt_tli_bucket_us(tl, j);
			e->from = r;
			e->unit = "req/s";
			e->period_s = (double)(j - i) * (double)tl->step / 1e6;
			if (lbt_tli_cells_first(&x->l->cells, tl->res->first_b + (int64_t)j,
			    tl->res->first_b + (int64_t)tl->res->n, &ev))
				lbt_tli_event_ev(e, &ev);
		}
		i = j;
	}
	return 0;
}

/* An LB's drops: a shift when another LB rises over the same buckets, else
 * a plain drop.  @return 0 or -1. */
static int lb_drops(lbt_timeline *tl, const struct lbv *v, size_t n, size_t i)
{
	const struct lbv *x = &v[i];

	for (size_t k = 0; k < x->d.cp.nep; k++) {
		const lbt_cp_episode *ep = &x->d.cp.ep[k];
		size_t before = ep->start > ep->end - ep->start ? ep->start - (ep->end - ep->start) : 0;
		const char *up;
		size_t at;

		if (ep->kind != LBT_CP_DROP)
			continue;
		up = risers(tl, v, n, i, before, ep->start, ep->end);
		at = tl->res->nev;
		if (lbt_tli_episode_events(tl, &x->d, &x->l->cells, ep, up ? LBT_TL_LB_SHIFT :
		    LBT_TL_DROP, LBT_TL_DROP_END, LBT_TL_W_LB, x->name) < 0)
			return -1;
		tl->res->ev[at].lb = x->name;
		tl->res->ev[at].other = up;
	}
	return 0;
}

/* The bucket index of the first reload of LB lb (NULL: any LB) in
 * buckets (a, b), b when none (RELOAD events: timeline_lines.c, detected
 * first). */
size_t lbt_tli_reload_in(const lbt_timeline *tl, const char *lb, size_t a, size_t b)
{
	size_t at = b;

	for (size_t i = 0; i < tl->res->nev; i++) {
		const lbt_tl_event *e = &tl->res->ev[i];
		int64_t k;

		if (e->kind != LBT_TL_RELOAD || (lb != NULL && (e->lb == NULL ||
		    strcmp(e->lb, lb) != 0)))
			continue;
		k = lbt_tli_floor_div(e->time_us, tl->step) - tl->res->first_b;
		if (k > (int64_t)a && k < (int64_t)at)
			at = (size_t)k;
	}
	return at;
}

/* v[a..b) without its empty buckets at both ends, into *a, *b. */
void lbt_tli_trim(const int64_t *v, size_t *a, size_t *b)
{
	while (*a < *b && v[*a] == 0)
		(*a)++;
	while (*b > *a && v[*b - 1] == 0)
		(*b)--;
}

/* One run v[a..b) of answers as an ERRORS event: their count, their share
 * of the requests `all` counts, mean and peak rates.  @return 0 or -1. */
static int answers_event(lbt_timeline *tl, const struct tl_answers *x, size_t a, size_t b)
{
	int64_t cnt = lbt_tli_sum_of(x->v, a, b), all = lbt_tli_sum_of(x->all, a, b);
	lbt_tl_event *e;
	lbt_evidence ev;
	size_t pk = a;

	if (cnt < TL_SHED_MIN)
		return 0;
	if ((e = lbt_tli_event_new(tl, LBT_TL_ERRORS, x->what, x->subject,
	    lbt_tli_bucket_us(tl, a))) == NULL)
		return -1;
	for (size_t i = a; i < b; i++)
		pk = x->v[i] > x->v[pk] ? i : pk;
	e->lb = x->lb;
	e->other = x->other;
	e->from = 0;
	e->to = lbt_tli_rate(tl, x->v, a, b);
	e->peak = lbt_tli_rate(tl, x->v, pk, pk + 1);
	e->peak_us = lbt_tli_bucket_us(tl, pk);
	e->unit = "req/s";
	e->count = cnt;
	e->share_pct = all > 0 ? 100.0 * (double)cnt / (double)all : NAN;
	e->ongoing = b == tl->res->n;
	e->end_us = e->ongoing ? LBT_TL_NONE : lbt_tli_bucket_us(tl, b);
	if (lbt_tli_cells_first(x->cells, tl->res->first_b + (int64_t)a,
	    tl->res->first_b + (int64_t)b, &ev))
		lbt_tli_event_ev(e, &ev);
	lbt_tli_incident_note(tl, e->time_us, e->end_us, e->ongoing);
	return 0;
}

/*
 * The answers of x in runs of buckets, a run going on across fewer than
 * min_buckets empty ones (the engine's shortest lull) and cut at each
 * reload of x->cut_lb, each run of TL_SHED_MIN answers or more an ERRORS
 * event.  Any 429 or 503 is abnormal, so there is no baseline to rise
 * from; the runs keep the bursts of a storm (answers every few seconds)
 * together, where the engine leaves out an episode shorter than
 * min_buckets.  The reload is in the log, and the shedding before it (a
 * queue) and after it (a new rate limit) are two figures in a post-mortem.
 * @return 0 or -1.
 */
int lbt_tli_answer_runs(lbt_timeline *tl, const struct tl_answers *x)
{
	size_t n = tl->res->n, mb = tl->o.cp.min_buckets ? tl->o.cp.min_buckets : 1;
	int rc = 0;

	for (size_t a = 0, b, gap; a < n && rc == 0; a = b) {
		for (b = a; b < n && x->v[b] == 0; b++)
			;
		if ((a = b) == n)
			break;
		for (gap = 0; b < n && gap < mb; b++)
			gap = x->v[b] ? 0 : gap + 1;
		for (size_t p = a, q; p < b && rc == 0; p = q) {
			size_t s = p, e = q = lbt_tli_reload_in(tl, x->cut_lb, p, b);

			lbt_tli_trim(x->v, &s, &e);
			rc = answers_event(tl, x, s, e);
		}
	}
	return rc;
}

/* An LB's load shedding: its 429 and 503 answers (answer_runs), each run
 * an ERRORS event of the class with the LB in `lb`, cut at its reloads:
 * what a post-mortem reports per LB when the LBs shed differently (one
 * held a long queue, one got the storm).  @return 0 or -1. */
static int lb_shedding(lbt_timeline *tl, const struct lbv *x)
{
	static const lbt_tl_class cls[TL_LB_NCLASS] = { LBT_TL_C429, LBT_TL_C503 };
	int rc = 0;

	for (int c = 0; c < TL_LB_NCLASS && rc == 0; c++) {
		struct tl_dense d;
		struct tl_answers a = { LBT_TL_W_CLASS, lbt_tl_class_name(cls[c]), x->name, NULL,
			x->name, &x->l->cls[c], NULL, x->d.v };

		if (x->l->cls[c].m == NULL)
			continue;
		if ((rc = lbt_tli_dense(tl, &x->l->cls[c], &d, 0)) < 0)
			break;
		a.v = d.v;
		rc = lbt_tli_answer_runs(tl, &a);
		lbt_tli_dense_free(&d);
	}
	return rc;
}

/* Every named LB, dense and read.  *n gets their count.  @return the array
 * (free each d, then it), or NULL when out of memory. */
static struct lbv *lb_views(lbt_timeline *tl, size_t *n)
{
	size_t m = lbt_hmap_count(tl->lbs);
	struct lbv *v = calloc(m ? m : 1, sizeof *v);

	*n = 0;
	for (size_t i = 0; v != NULL && i < m; i++) {
		lbt_hmap_entry e;
		struct lbv *x = &v[*n];

		lbt_hmap_at(tl->lbs, i, &e);
		if (e.klen == 0)
			continue;              /* requests that name no LB */
		x->name = e.key;
		x->l = e.val;
		if (lbt_tli_dense(tl, &x->l->cells, &x->d, 1) < 0) {
			lbt_tli_dense_free(&x->d);
			for (size_t k = 0; k < *n; k++)
				lbt_tli_dense_free(&v[k].d);
			free(v);
			return NULL;
		}
		for (x->first = 0; x->first < tl->res->n && x->d.v[x->first] == 0; x->first++)
			;
		for (x->last = tl->res->n; x->last > 0 && x->d.v[x->last - 1] == 0; x->last--)
			;
		x->last = x->last > 0 ? x->last - 1 : 0;
		(*n)++;
	}
	return v;
}

/* qsort order of LBs: by name. */
static int lbv_cmp(const void *a, const void *b)
{
	return strcmp(((const struct lbv *)a)->name, ((const struct lbv *)b)->name);
}

/* Per-LB volume when two or more LBs are named: stops, holes, shifts, the
 * chart.  @return 0 or -1. */
int lbt_tli_detect_lbs(lbt_timeline *tl)
{
	size_t n;
	struct lbv *v = lb_views(tl, &n);
	int rc = v != NULL ? 0 : -1;

	if (rc == 0)
		qsort(v, n, sizeof *v, lbv_cmp);
	for (size_t i = 0; rc == 0 && n >= 2 && i < n; i++)
		if ((rc = lb_stop(tl, v, n, i)) == 0 && (rc = lb_gaps(tl, &v[i])) == 0 &&
		    (rc = lb_drops(tl, v, n, i)) == 0)
			rc = lb_shedding(tl, &v[i]);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		if ((rc = lbt_tli_own(tl, v[i].d.v)) == 0)
			rc = lbt_tli_chart_add(tl, LBT_TL_CH_LBS, LBT_TL_W_LB, v[i].name, v[i].d.v);
		v[i].d.v = NULL;
	}
	for (size_t i = 0; v != NULL && i < n; i++)
		lbt_tli_dense_free(&v[i].d);
	free(v);
	return rc;
}


/* ---- backends: the queue and HAProxy's own 503 --------------------------- */

/* One run [a, b) of backend k's queued or shed buckets (q, s): its event
 * when it holds TL_SHED_MIN requests or more.  @return 0 or -1. */
static int backend_run(lbt_timeline *tl, const char *name, const struct tl_be *k,
    const int64_t *q, const int64_t *s, size_t a, size_t b)
{
	const struct lbt_tli_result *r = tl->res;
	int64_t shed = lbt_tli_sum_of(s, a, b), queued = lbt_tli_sum_of(q, a, b);
	int64_t all = lbt_tli_sum_of(r->total, a, b);
	lbt_evidence ev, ev2;
	int have;
	lbt_tl_event *e;

	if (shed + queued < TL_SHED_MIN)
		return 0;
	if ((e = lbt_tli_event_new(tl, LBT_TL_BACKEND_SAT, LBT_TL_W_BACKEND, name,
	    lbt_tli_bucket_us(tl, a))) == NULL)
		return -1;
	e->ongoing = b == r->n;
	e->end_us = e->ongoing ? LBT_TL_NONE : lbt_tli_bucket_us(tl, b);
	e->count = shed;
	e->distinct = queued;
	e->to = lbt_tli_rate(tl, s, a, b);
	e->unit = "req/s";
	e->share_pct = all > 0 ? 100.0 * (double)shed / (double)all : NAN;
	e->value = k->sc_max;
	e->peak = k->sq_max > k->bq_max ? k->sq_max : k->bq_max;
	have = lbt_tli_cells_first(&k->queued, r->first_b + (int64_t)a, r->first_b + (int64_t)b,
	    &ev);
	if (lbt_tli_cells_first(&k->shed, r->first_b + (int64_t)a, r->first_b + (int64_t)b, &ev2) &&
	    (!have || lbt_evidence_cmp(&ev2, &ev) < 0))
		ev = ev2, have = 1;
	if (have)
		lbt_tli_event_ev(e, &ev);
	lbt_tli_incident_note(tl, e->time_us, e->end_us, e->ongoing);
	return 0;
}

/*
 * A backend at its limit, from the logs alone: runs of buckets where its
 * requests waited in a queue or HAProxy answered 503 itself (sQ, sC, SC),
 * going on across fewer than min_buckets buckets without either, of
 * TL_SHED_MIN requests or more.  The server's maxconn is what makes the
 * queue; the logs show the queue and the shedding, not the setting, so
 * `limit` stays 0 and `value` is the largest srv_conn logged.
 * @return 0 or -1.
 */
int lbt_tli_detect_backends(lbt_timeline *tl)
{
	size_t mb = tl->o.cp.min_buckets ? tl->o.cp.min_buckets : 1;
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < lbt_hmap_count(tl->bes); i++) {
		lbt_hmap_entry e;
		const struct tl_be *k;
		struct tl_dense q, s;
		const char *name;

		lbt_hmap_at(tl->bes, i, &e);
		k = e.val;
		if ((name = lbt_tli_intern(tl, e.key, e.klen, 0)) == NULL)
			return -1;
		if (lbt_tli_dense(tl, &k->queued, &q, 0) < 0)
			return -1;
		if ((rc = lbt_tli_dense(tl, &k->shed, &s, 0)) == 0)
			for (size_t a = 0, b, gap; rc == 0 && a < q.n; a = b) {
				while (a < q.n && q.v[a] == 0 && s.v[a] == 0)
					a++;
				if (a == q.n)
					break;
				for (b = a, gap = 0; b < q.n && gap < mb; b++)
					gap = q.v[b] || s.v[b] ? 0 : gap + 1;
				b -= gap;       /* end at the last busy bucket */
				rc = backend_run(tl, name, k, q.v, s.v, a, b);
			}
		lbt_tli_dense_free(&s);
		lbt_tli_dense_free(&q);
	}
	return rc;
}
