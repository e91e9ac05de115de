/*
 * tarpit_merge.c - two lbt_tarpit accumulators made one (see analysis.h),
 * and the vtable.
 *
 * Groups, buckets and sources hold sums, minima and maxima; their evidence
 * lines are the smallest of those that qualify (evidence.h), file names
 * interned again in dst; a bucket's fc evidence is that of the larger
 * fc_max, the smaller line on a tie; a source's is its smallest tarpitted
 * request if either part has one.  Each group's occupancy merges through
 * lbt_occ_merge, its streams matched by file name.  Everything the notes
 * and the report show is computed by finish() from these.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_int.h"
#include "tarpit_int.h"

/* An empty accumulator with t's options.  @return it, or NULL with err. */
lbt_tarpit *lbt_tarpit_spawn(const lbt_tarpit *t, lbt_err *err)
{
	return lbt_tarpit_new(&t->o, err);
}

/* lbt_occ_merge's map: src's interned file name to dst's (ctx). */
static const void *map_file(const void *id, void *ctx)
{
	return lbt_tarpiti_intern(ctx, id);
}

/* The earliest start and latest end of g, with `from`'s. */
static void merge_span(lbt_tarpit_group *g, const lbt_tarpit_group *from)
{
	if (!from->has_time)
		return;
	if (!g->has_time || from->first_us < g->first_us)
		g->first_us = from->first_us;
	if (!g->has_time || from->last_us > g->last_us)
		g->last_us = from->last_us;
	g->has_time = 1;
}

/* The counters of group `from` added to g. */
static void merge_group_counts(lbt_tarpit_group *g, const lbt_tarpit_group *from)
{
	g->requests += from->requests;
	g->pt += from->pt;
	g->ct += from->ct;
	g->pt_tw += from->pt_tw;
	g->pt_ta += from->pt_ta;
	g->held_tw_ms += from->held_tw_ms;
	g->held_ta_ms += from->held_ta_ms;
	for (size_t i = 0; i < LBT_DUR_NRULES; i++)
		g->dur_rules[i] += from->dur_rules[i];
	g->no_interval += from->no_interval;
	for (size_t i = 0; i < sizeof g->clocks / sizeof g->clocks[0]; i++)
		g->clocks[i] += from->clocks[i];
	g->fc_n += from->fc_n;
	g->ac_n += from->ac_n;
	if (from->fc_max > g->fc_max)
		g->fc_max = from->fc_max;
	if (from->ac_max > g->ac_max)
		g->ac_max = from->ac_max;
	merge_span(g, from);
}

/* Bucket `from` (of src) added to w.  @return 0, or -1 when out of memory. */
static int merge_bucket(lbt_tarpit *t, struct tp_bucket *w, const struct tp_bucket *from)
{
	lbt_tarpit_bucket *b = &w->pub;
	const lbt_tarpit_bucket *f = &from->pub;

	b->requests += f->requests;
	b->pt += f->pt;
	b->ct += f->ct;
	b->held_tw_ms += f->held_tw_ms;
	b->fc_n += f->fc_n;
	if (f->ac_max > b->ac_max)
		b->ac_max = f->ac_max;
	if (f->fc_n > 0 && (f->fc_max > b->fc_max || (f->fc_max == b->fc_max &&
	    lbt_evidence_cmp(&from->fc_ev, &w->fc_ev) < 0))) {
		b->fc_max = f->fc_max;
		w->fc_ev = from->fc_ev;
		w->fc_ev.file = lbt_tarpiti_intern(t, from->fc_ev.file);
	}
	return t->failed ? -1 : 0;
}

/* Group `from` of src (key e) added to t.  @return 0, or -1 when out of memory. */
static int merge_group(lbt_tarpit *t, const lbt_hmap_entry *e)
{
	struct tp_group *from = e->val, *g;
	const lbt_tarpit_group *fp = &from->pub;
	int created = 0;

	if (!lbt_tarpiti_group_room(t, e->key, e->klen)) {
		t->st.over_requests += fp->requests;
		return 0;
	}
	g = lbt_hmap_put(t->groups, e->key, e->klen, &created);
	if (g == NULL || (created && lbt_tarpiti_group_init(t, g, from->lb_len,
	    from->fe_len) < 0))
		return -1;
	merge_group_counts(&g->pub, fp);
	for (size_t i = 0; i < lbt_hmap_count(from->bk); i++) {
		lbt_hmap_entry be;
		struct tp_bucket *w;

		lbt_hmap_at(from->bk, i, &be);
		w = lbt_tarpiti_group_bucket(g, ((struct tp_bucket *)be.val)->pub.bucket);
		if (w == NULL || merge_bucket(t, w, be.val) < 0)
			return -1;
	}
	return lbt_occ_merge(g->occ, from->occ, map_file, t) < 0 || t->failed ? -1 : 0;
}

/* Source `from` of src added to t (evidence: see the file comment).
 * @return 0, or -1 when out of memory. */
static int merge_source(lbt_tarpit *t, const struct tp_source *from)
{
	const lbt_tarpit_source *f = &from->pub;
	int created = 0, tp_dst, tp_src = f->pt + f->ct > 0;
	struct tp_source *w = lbt_hmap_put(t->sources, &f->net, sizeof f->net, &created);
	lbt_tarpit_source *s;

	if (w == NULL)
		return -1;
	s = &w->pub;
	if (created) {
		s->net = f->net;
		s->bits = f->bits;
		w->err = t->st.budget.floor;   /* it may have sent that in t's part */
	}
	w->err += from->err;
	tp_dst = s->pt + s->ct > 0;
	if (created || (tp_src && !tp_dst) ||
	    (tp_src == tp_dst && lbt_evidence_cmp(&from->ev, &w->ev) < 0)) {
		w->ev = from->ev;
		w->ev.file = lbt_tarpiti_intern(t, from->ev.file);
	}
	s->requests += f->requests;
	s->pt += f->pt;
	s->ct += f->ct;
	s->held_tw_ms += f->held_tw_ms;
	s->held_ta_ms += f->held_ta_ms;
	if (f->has_time && (!s->has_time || f->first_us < s->first_us))
		s->first_us = f->first_us;
	if (f->has_time && (!s->has_time || f->last_us > s->last_us))
		s->last_us = f->last_us;
	s->has_time |= f->has_time;
	return t->failed ? -1 : 0;
}

/* The overall counters of src added to t. */
static void merge_stats(lbt_tarpit *t, const lbt_tarpit *src)
{
	for (int i = 0; i < TP_NHAVE; i++)
		t->have[i] += src->have[i];
	t->st.records += src->st.records;
	t->st.requests += src->st.requests;
	t->st.pt += src->st.pt;
	t->st.ct += src->st.ct;
	t->st.pt_no_tw += src->st.pt_no_tw;
	t->st.pt_no_ta += src->st.pt_no_ta;
	t->st.over_requests += src->st.over_requests;
}

/* Merge src into t (see tarpit.h and the file comment); src is consumed.
 * @return 0, or -1 with err. */
int lbt_tarpit_merge(lbt_tarpit *t, lbt_tarpit *src, lbt_err *err)
{
	lbt_hmap_entry e;
	int same = t->o.step_us == src->o.step_us && t->o.window_us == src->o.window_us &&
	    t->o.threshold_pct == src->o.threshold_pct && t->o.maxconn == src->o.maxconn &&
	    t->o.net.v4_bits == src->o.net.v4_bits && t->o.net.v6_bits == src->o.net.v6_bits;

	/* The precondition (analysis.h): a bug of the caller, refused with an
	 * error too when NDEBUG drops the asserts. */
	assert(t != src && !t->finished && !src->finished);
	assert(same);
	if (t->finished || src->finished)
		return lbt_err_set(err, "tarpit: merge after finish");
	if (!same)
		return lbt_err_set(err, "tarpit: merge of accumulators with different options");
	merge_stats(t, src);
	t->failed |= src->failed;
	t->last_g = NULL;
	for (size_t i = 0; i < lbt_hmap_count(src->groups) && !t->failed; i++) {
		lbt_hmap_at(src->groups, i, &e);
		if (merge_group(t, &e) < 0)
			t->failed = 1;
	}
	for (size_t i = 0; i < lbt_hmap_count(src->sources) && !t->failed; i++) {
		lbt_hmap_at(src->sources, i, &e);
		if (merge_source(t, e.val) < 0)
			t->failed = 1;
	}
	lbt_budget_merge(&t->st.budget, &src->st.budget);   /* after the sources: see merge_source */
	if (!t->failed && lbt_tarpiti_budget(t, 1) < 0)
		t->failed = 1;
	return t->failed ? lbt_err_set(err, "out of memory") : 0;
}

/* The analysis.h vtable and lbt_tarpit_analysis() (analysis_int.h). */
LBT_ANALYSIS_DEFINE(tarpit, 0)
