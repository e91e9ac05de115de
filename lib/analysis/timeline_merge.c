/*
 * timeline_merge.c - spawn, merge and finish of the timeline, and its
 * analysis.h vtable.
 *
 * Merging makes tl what one accumulator given both parts' records would
 * be: both are first rebucketed to the step the union's span calls for
 * (timeline_cells.c: a rebucketed series equals one counted at that step),
 * then every series is added bucket by bucket with the smaller evidence,
 * file names interned again in tl; the sketches merge as space-saving
 * summaries (exact while the union fits); first moments, last requests
 * and end-time blocks are minima and maxima; HAProxy's lines are appended
 * (finish sorts them); the tarpit merges as tarpit.h says.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_int.h"
#include "timeline_int.h"

/* An empty twin.  @return it, or NULL with err. */
lbt_timeline *lbt_timeline_spawn(const lbt_timeline *tl, lbt_err *err)
{
	return lbt_timeline_new(&tl->o, err);
}

/* Same options (what changes the results).  @return 1 or 0. */
static int same_opts(const lbt_timeline_opts *a, const lbt_timeline_opts *b)
{
	return a->step_us == b->step_us && a->track == b->track && a->ratio == b->ratio &&
	    a->alert_pct == b->alert_pct && a->retry_window_us == b->retry_window_us &&
	    a->retry_min == b->retry_min && a->flaps == b->flaps && a->top == b->top &&
	    memcmp(&a->cp, &b->cp, sizeof a->cp) == 0 && a->net.v4_bits == b->net.v4_bits &&
	    a->net.v6_bits == b->net.v6_bits && a->tarpit.maxconn == b->tarpit.maxconn &&
	    a->tarpit.maxconn_of == b->tarpit.maxconn_of &&
	    a->tarpit.maxconn_ctx == b->tarpit.maxconn_ctx && a->tarpit.near == b->tarpit.near;
}

/* The step the union of tl and src calls for.  @return it. */
static int64_t union_step(const lbt_timeline *tl, const lbt_timeline *src, int64_t first,
    int64_t last)
{
	int64_t step = tl->step > src->step ? tl->step : src->step;

	if (tl->o.step_us > 0 || first == LBT_TL_NONE)
		return step;
	while (lbt_tli_floor_div(last, step) - lbt_tli_floor_div(first, step) + 1 >
	    LBT_TL_MAXBUCKETS)
		step = lbt_tli_step_next(step);
	return step;
}

/* Keep the smaller of two evidences in *d (s's file renamed into tl).
 * @return 0 or -1. */
static int ev_min(lbt_timeline *tl, lbt_evidence *d, const lbt_evidence *s, int largest)
{
	lbt_evidence e = *s;

	if (!e.set)
		return 0;
	if (e.file != NULL && (e.file = lbt_tli_intern_file(tl, e.file)) == NULL)
		return -1;
	if (!d->set || (largest ? lbt_evidence_cmp(&e, d) > 0 : lbt_evidence_cmp(&e, d) < 0))
		*d = e;
	return 0;
}

/* @return the requests counted in c. */
static uint64_t cells_total(const tl_cells *c)
{
	uint64_t n = 0;

	for (size_t i = 0; c->m != NULL && i < lbt_hmap_count(c->m); i++) {
		lbt_hmap_entry e;

		lbt_hmap_at(c->m, i, &e);
		n += (uint64_t)((const struct tl_cell *)e.val)->n;
	}
	return n;
}

/* Merge the load balancers (past LBT_TL_MAXLB: counted).  @return 0 or -1. */
static int lbs_merge(lbt_timeline *tl, const lbt_timeline *src)
{
	for (size_t i = 0; i < lbt_hmap_count(src->lbs); i++) {
		lbt_hmap_entry e;
		const struct tl_lb *s;
		struct tl_lb *d;

		lbt_hmap_at(src->lbs, i, &e);
		s = e.val;
		d = lbt_hmap_get(tl->lbs, e.key, e.klen);
		if (d == NULL && lbt_hmap_count(tl->lbs) >= LBT_TL_MAXLB) {
			tl->st.lbs_other += cells_total(&s->cells);
			continue;
		}
		if (d == NULL && (d = lbt_hmap_put(tl->lbs, e.key, e.klen, NULL)) == NULL)
			return -1;
		if (lbt_tli_cells_merge(&d->cells, &s->cells, lbt_tli_intern_file, tl) < 0 ||
		    lbt_tli_cells_merge(&d->cls[0], &s->cls[0], lbt_tli_intern_file, tl) < 0 ||
		    lbt_tli_cells_merge(&d->cls[1], &s->cls[1], lbt_tli_intern_file, tl) < 0 ||
		    ev_min(tl, &d->last, &s->last, 1) < 0)
			return -1;
	}
	return 0;
}

/* Merge the backends (past LBT_TL_MAXLB: left out, as in be_add).
 * @return 0 or -1. */
static int bes_merge(lbt_timeline *tl, const lbt_timeline *src)
{
	for (size_t i = 0; i < lbt_hmap_count(src->bes); i++) {
		lbt_hmap_entry e;
		const struct tl_be *s;
		struct tl_be *d;

		lbt_hmap_at(src->bes, i, &e);
		s = e.val;
		d = lbt_hmap_get(tl->bes, e.key, e.klen);
		if (d == NULL && lbt_hmap_count(tl->bes) >= LBT_TL_MAXLB)
			continue;
		if (d == NULL && (d = lbt_hmap_put(tl->bes, e.key, e.klen, NULL)) == NULL)
			return -1;
		if (lbt_tli_cells_merge(&d->queued, &s->queued, lbt_tli_intern_file, tl) < 0 ||
		    lbt_tli_cells_merge(&d->shed, &s->shed, lbt_tli_intern_file, tl) < 0)
			return -1;
		d->sc_max = s->sc_max > d->sc_max ? s->sc_max : d->sc_max;
		d->sq_max = s->sq_max > d->sq_max ? s->sq_max : d->sq_max;
		d->bq_max = s->bq_max > d->bq_max ? s->bq_max : d->bq_max;
	}
	return 0;
}

/* Keep src's moment in *d when earlier (its file renamed).  @return 0 or -1. */
static int moment_merge(lbt_timeline *tl, struct tl_moment *d, const struct tl_moment *s)
{
	lbt_evidence e = s->ev;

	if (s->at == LBT_TL_NONE)
		return 0;
	if (e.file != NULL && (e.file = lbt_tli_intern_file(tl, e.file)) == NULL)
		return -1;
	lbt_tli_moment_join(d, s->at, &e);
	return 0;
}

/* Merge the frontends' first moments.  @return 0 or -1. */
static int fes_merge(lbt_timeline *tl, const lbt_timeline *src)
{
	for (size_t i = 0; i < lbt_hmap_count(src->fes); i++) {
		lbt_hmap_entry e;
		const struct tl_fe *s;
		struct tl_fe *d;
		int created = 0;

		lbt_hmap_at(src->fes, i, &e);
		s = e.val;
		if ((d = lbt_hmap_put(tl->fes, e.key, e.klen, &created)) == NULL)
			return -1;
		if (created) {
			*d = *s;
			d->alert_m.at = d->full_m.at = LBT_TL_NONE;
		}
		d->fc_max = s->fc_max > d->fc_max ? s->fc_max : d->fc_max;
		if (moment_merge(tl, &d->alert_m, &s->alert_m) < 0 ||
		    moment_merge(tl, &d->full_m, &s->full_m) < 0)
			return -1;
	}
	return 0;
}

/* Merge the files' end-time blocks.  @return 0 or -1. */
static int files_merge(lbt_timeline *tl, const lbt_timeline *src)
{
	for (size_t i = 0; i < lbt_hmap_count(src->names); i++) {
		lbt_hmap_entry e;
		const struct tl_name *s;
		const struct tl_name *d;

		lbt_hmap_at(src->names, i, &e);
		s = e.val;
		if (s->f == NULL)
			continue;
		if (lbt_tli_intern(tl, e.key, e.klen, 1) == NULL ||
		    (d = lbt_hmap_get(tl->names, e.key, e.klen)) == NULL ||
		    lbt_tli_file_merge(d->f, s->f) < 0)
			return -1;
	}
	return 0;
}

/* The interned copy of s in tl (NULL stays NULL).  *ok is cleared when out of memory. */
static const char *again(lbt_timeline *tl, const char *s, int file, int *ok)
{
	const char *c;

	if (s == NULL)
		return NULL;
	if ((c = lbt_tli_intern(tl, s, strlen(s), file)) == NULL)
		*ok = 0;
	return c;
}

/* Append src's HAProxy lines (past LBT_TL_MAXEV: counted).  @return 0 or -1. */
static int lines_merge(lbt_timeline *tl, const lbt_timeline *src)
{
	for (size_t i = 0; i < src->nlines; i++) {
		struct tl_line l = src->lines[i];
		int ok = 1;

		if (tl->nlines >= LBT_TL_MAXEV) {
			tl->st.events_dropped++;
			continue;
		}
		l.subject = again(tl, l.subject, 0, &ok);
		l.lb = again(tl, l.lb, 0, &ok);
		l.msg = again(tl, l.msg, 0, &ok);
		l.file = again(tl, l.file, 1, &ok);
		if (!ok || LBT_GROW(tl->lines, tl->caplines, tl->nlines + 1, 64) < 0)
			return -1;
		tl->lines[tl->nlines++] = l;
	}
	return 0;
}

/* Add src's counters and span to tl's (not those the merge itself adds to:
 * lbs_other, events_dropped). */
static void stats_merge(lbt_timeline_stats *d, const lbt_timeline_stats *s)
{
	d->records += s->records;
	d->requests += s->requests;
	d->events += s->events;
	d->no_time += s->no_time;
	if (s->first_us != LBT_TL_NONE && (d->first_us == LBT_TL_NONE || s->first_us < d->first_us))
		d->first_us = s->first_us;
	if (s->last_us != LBT_TL_NONE && (d->last_us == LBT_TL_NONE || s->last_us > d->last_us))
		d->last_us = s->last_us;
}

/* Every series of src into tl (same step).  @return 0 or -1. */
static int series_merge(lbt_timeline *tl, lbt_timeline *src)
{
	if (lbt_tli_cells_merge(&tl->all, &src->all, lbt_tli_intern_file, tl) < 0)
		return -1;
	for (int c = 0; c < LBT_TL_NCLASS; c++)
		if (lbt_tli_cells_merge(&tl->cls[c], &src->cls[c], lbt_tli_intern_file, tl) < 0)
			return -1;
	for (int c = 0; c < TL_NSTAT; c++)
		if (lbt_tli_cells_merge(&tl->stat[c], &src->stat[c], lbt_tli_intern_file, tl) < 0)
			return -1;
	if (lbt_tli_sketch_merge(&tl->keys, &src->keys, lbt_tli_intern_file, tl) < 0 ||
	    lbt_tli_sketch_merge(&tl->srcs, &src->srcs, lbt_tli_intern_file, tl) < 0 ||
	    lbt_tli_sketch_merge(&tl->hosts, &src->hosts, lbt_tli_intern_file, tl) < 0)
		return -1;
	return 0;
}

/* Merge src into tl (see the file comment).  @return 0, or -1 with err. */
int lbt_timeline_merge(lbt_timeline *tl, lbt_timeline *src, lbt_err *err)
{
	lbt_timeline_stats st = tl->st;
	int64_t step;

	/* The precondition (analysis.h): a bug of the caller, refused with an
	 * error too when NDEBUG drops the asserts. */
	assert(tl != src && !tl->finished && !src->finished);
	assert(same_opts(&tl->o, &src->o));
	if (tl->finished || src->finished)
		return lbt_err_set(err, "timeline: merge after finish");
	if (!same_opts(&tl->o, &src->o))
		return lbt_err_set(err, "timeline: merge of accumulators with different options");
	if (tl->failed || src->failed)
		return lbt_err_set(err, "out of memory");
	stats_merge(&st, &src->st);
	step = union_step(tl, src, st.first_us, st.last_us);
	if (lbt_tli_rebucket(tl, step) < 0 || lbt_tli_rebucket(src, step) < 0 ||
	    series_merge(tl, src) < 0 || lbs_merge(tl, src) < 0 || fes_merge(tl, src) < 0 ||
	    bes_merge(tl, src) < 0 ||
	    files_merge(tl, src) < 0 || lines_merge(tl, src) < 0) {
		tl->failed = 1;
		return lbt_err_set(err, "out of memory");
	}
	st.lbs_other = tl->st.lbs_other + src->st.lbs_other;
	st.events_dropped = tl->st.events_dropped + src->st.events_dropped;
	tl->st = st;
	if (lbt_tarpit_merge(tl->tp, src->tp, err) < 0) {
		tl->failed = 1;
		return -1;
	}
	return 0;
}

/* Build the events and charts, once.  @return 0, or -1 with err. */
int lbt_timeline_finish(lbt_timeline *tl, lbt_err *err)
{
	if (tl->finished)
		return 0;
	tl->finished = 1;
	if (tl->failed)
		return lbt_err_set(err, "out of memory");
	if (lbt_tarpit_finish(tl->tp, err) < 0) {
		tl->failed = 1;
		return -1;
	}
	tl->st.approx[0] = tl->keys.evicted > 0;
	tl->st.approx[1] = tl->srcs.evicted > 0;
	tl->st.approx[2] = tl->hosts.evicted > 0;
	tl->st.tarpit_budget = lbt_tarpit_stats_get(tl->tp)->budget;
	tl->st.distinct[0] = tl->keys.n;
	tl->st.distinct[1] = tl->srcs.n;
	tl->st.distinct[2] = tl->hosts.n;
	if ((tl->res = calloc(1, sizeof *tl->res)) == NULL || lbt_tli_detect(tl) < 0) {
		tl->failed = 1;
		return lbt_err_set(err, "out of memory");
	}
	return 0;
}

/* The analysis.h vtable and lbt_timeline_analysis() (analysis_int.h). */
LBT_ANALYSIS_DEFINE(timeline, 0)
