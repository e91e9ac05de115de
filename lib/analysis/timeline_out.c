/*
 * timeline_out.c - what finish leaves for the reports: the events (made
 * by the detectors, then sorted), the series of the charts, and the
 * accessors of timeline.h.
 *
 * Events are sorted by (time, kind, what, subject, lb, evidence): every
 * field the order uses is a function of the records read, so the order is
 * too.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "timeline_int.h"

/*
 * A new event of kind k about subject (interned or static) at t_us, every
 * number "not there".  @return it (valid until the next one), or NULL
 * when out of memory.
 */
lbt_tl_event *lbt_tli_event_new(lbt_timeline *tl, lbt_tl_kind k, lbt_tl_what w,
    const char *subject, int64_t t_us)
{
	struct lbt_tli_result *r = tl->res;
	lbt_tl_event *e;

	if (LBT_GROW(r->ev, r->capev, r->nev + 1, 32) < 0)
		return NULL;
	e = &r->ev[r->nev++];
	memset(e, 0, sizeof *e);
	e->kind = k;
	e->what = w;
	e->subject = subject;
	e->time_us = e->time_hi_us = t_us;
	e->end_us = e->peak_us = LBT_TL_NONE;
	e->from = e->to = e->peak = e->ratio = e->share_pct = e->period_s = NAN;
	e->count = e->distinct = -1;
	e->value = e->limit = -1;
	return e;
}

/* Set e's evidence from ev (nothing when unset). */
void lbt_tli_event_ev(lbt_tl_event *e, const lbt_evidence *ev)
{
	if (ev == NULL || !ev->set)
		return;
	e->ev_file = ev->file;
	e->ev_line = ev->line;
}

/* @return the start time (µs) of dense index i. */
int64_t lbt_tli_bucket_us(const lbt_timeline *tl, size_t i)
{
	return (tl->res->first_b + (int64_t)i) * tl->step;
}

/* Keep v (malloc'ed) until the result is freed.  @return 0, or -1 (v freed). */
int lbt_tli_own(lbt_timeline *tl, int64_t *v)
{
	struct lbt_tli_result *r = tl->res;

	if (LBT_GROW(r->owned, r->capowned, r->nowned + 1, 16) < 0) {
		free(v);
		return -1;
	}
	r->owned[r->nowned++] = v;
	return 0;
}

/* Add a series to chart c (v owned elsewhere: lbt_tli_own).  @return 0 or -1. */
int lbt_tli_chart_add(lbt_timeline *tl, lbt_tl_chart c, lbt_tl_what w, const char *name,
    const int64_t *v)
{
	struct lbt_tli_result *r = tl->res;
	lbt_tl_series *p = realloc(r->charts[c], (r->ncharts[c] + 1) * sizeof *p);

	if (p == NULL)
		return -1;
	r->charts[c] = p;
	p[r->ncharts[c]++] = (lbt_tl_series){ w, name, v };
	return 0;
}

/* strcmp with NULL first. */
static int nstrcmp(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return (a != NULL) - (b != NULL);
	return strcmp(a, b);
}

/* qsort order of events. */
static int event_cmp(const void *a, const void *b)
{
	const lbt_tl_event *x = a, *y = b;
	int c;

	if (x->time_us != y->time_us)
		return x->time_us < y->time_us ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->what != y->what)
		return x->what < y->what ? -1 : 1;
	if ((c = nstrcmp(x->subject, y->subject)) != 0 || (c = nstrcmp(x->lb, y->lb)) != 0 ||
	    (c = nstrcmp(x->ev_file, y->ev_file)) != 0)
		return c;
	return (x->ev_line > y->ev_line) - (x->ev_line < y->ev_line);
}

/* Sort the events into their order. */
void lbt_tli_events_sort(lbt_timeline *tl)
{
	if (tl->res->nev > 1)
		qsort(tl->res->ev, tl->res->nev, sizeof *tl->res->ev, event_cmp);
}

/* Free what the result holds (not r itself); NULL accepted. */
void lbt_tli_result_free(struct lbt_tli_result *r)
{
	if (r == NULL)
		return;
	free(r->ev);
	free(r->total);
	for (int c = 0; c < LBT_TL_NCHARTS; c++)
		free(r->charts[c]);
	for (size_t i = 0; i < r->nowned; i++)
		free(r->owned[i]);
	free(r->owned);
	free(r->slots_limit);
	memset(r, 0, sizeof *r);
}

/* Number of events after finish (0 before). */
size_t lbt_timeline_nevents(const lbt_timeline *tl)
{
	return tl->finished && tl->res ? tl->res->nev : 0;
}

/* Event i in time order. */
const lbt_tl_event *lbt_timeline_event_at(const lbt_timeline *tl, size_t i)
{
	assert(i < lbt_timeline_nevents(tl));
	return &tl->res->ev[i];
}

/* The series of chart c (*n gets their count; none before finish). */
const lbt_tl_series *lbt_timeline_chart(const lbt_timeline *tl, lbt_tl_chart c, size_t *n)
{
	*n = tl->finished && tl->res && (unsigned)c < LBT_TL_NCHARTS ? tl->res->ncharts[c] : 0;
	return *n ? tl->res->charts[c] : NULL;
}

/* The maxconn of the slots chart's series i (0 unknown). */
int32_t lbt_timeline_slots_limit(const lbt_timeline *tl, size_t i)
{
	return tl->res && tl->res->slots_limit && i < tl->res->ncharts[LBT_TL_CH_SLOTS] ?
	    tl->res->slots_limit[i] : 0;
}

/* Counters and the span (complete after finish). */
const lbt_timeline_stats *lbt_timeline_stats_get(const lbt_timeline *tl)
{
	return &tl->st;
}

/* The options given at creation. */
const lbt_timeline_opts *lbt_timeline_opts_get(const lbt_timeline *tl)
{
	return &tl->o;
}
