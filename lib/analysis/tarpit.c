/*
 * tarpit.c - the lbt-tarpit accumulator (see tarpit.h for what it counts).
 *
 * Per record: the group (cached while lb and frontend do not change), the
 * source (one map lookup on the 17-byte network), the file name (interned
 * once per file), one or two bucket lookups (cached), and one interval for
 * the group's occupancy.  No allocation unless something is new.
 *
 * What is reported does not depend on the order of the records (a raw log
 * is in the order requests ended, files come one after the other, the index
 * gives time order): counts, sums, minima and maxima are order-free, the
 * occupancy is exact within its reorder window (occupancy.h), and every
 * evidence line is the smallest of the records that qualify by (time, file
 * name, line) (evidence.h), not the first one read.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/series.h"
#include "tarpit_int.h"

/* The record's value of timer field f, or -1 when the format lacks it. */
static int32_t timer(const lbt_rec *r, lbt_field f, int32_t v)
{
	return (r->have & LBT_BIT(f)) ? v : -1;
}

/* The LBT_BIT mask of every field the accumulator reads (whatever the options). */
uint64_t lbt_tarpit_fields(const lbt_tarpit *t)
{
	static const lbt_field f[] = {
		LBT_F_TIME, LBT_F_LB, LBT_F_CLIENT, LBT_F_FRONTEND, LBT_F_TH, LBT_F_TI,
		LBT_F_TQ, LBT_F_TR, LBT_F_TW, LBT_F_TC, LBT_F_TRESP, LBT_F_TA, LBT_F_TT,
		LBT_F_TERM, LBT_F_AC, LBT_F_FC, LBT_F_FILE, LBT_F_LINE
	};
	uint64_t m = 0;
	size_t i;

	(void)t;
	for (i = 0; i < sizeof f / sizeof f[0]; i++)
		m |= LBT_BIT(f[i]);
	return m;
}

/*
 * The duration rule (tarpit.h): *ms gets the duration, *pre the part of it
 * before the record's time when the clock is REQUEST (Th + Ti as logged).
 * @return the mask of timers used, 0 when none can give a duration.
 */
static unsigned rec_duration(const lbt_rec *r, int64_t *ms, int64_t *pre)
{
	int32_t th = timer(r, LBT_F_TH, r->th), ti = timer(r, LBT_F_TI, r->ti);
	int32_t tt = timer(r, LBT_F_TT, r->tt), ta = timer(r, LBT_F_TA, r->ta);
	int32_t tq = timer(r, LBT_F_TQ, r->tq), tr = timer(r, LBT_F_TR, r->tr);
	int32_t tw = timer(r, LBT_F_TW, r->tw), tc = timer(r, LBT_F_TC, r->tc);
	int32_t trs = timer(r, LBT_F_TRESP, r->tresp);
	unsigned m = 0;

	*pre = (th > 0 ? th : 0) + (ti > 0 ? ti : 0);
	if (tt >= 0) {
		*ms = tt;
		return LBT_DUR_TT;
	}
	if (ta >= 0) {
		*ms = ta + (th > 0 ? th : 0) + (ti > 0 ? ti : 0);
		return LBT_DUR_TA | (th >= 0 ? LBT_DUR_TH : 0) | (ti >= 0 ? LBT_DUR_TI : 0);
	}
	*ms = 0;
	if (tq >= 0 || tr >= 0) {
		*ms += tq >= 0 ? tq : tr;
		m |= LBT_DUR_TQ;
		if (tq >= 0)
			*pre = 0;
	}
	if (tw >= 0)
		*ms += tw, m |= LBT_DUR_TW;
	if (tc >= 0)
		*ms += tc, m |= LBT_DUR_TC;
	if (trs >= 0)
		*ms += trs, m |= LBT_DUR_TRS;
	return m;
}

/*
 * The slot interval of r: [*s, *e) in µs, by the clock of its time.
 * @return the rule mask, or 0 when there is no time or no duration.
 */
static unsigned rec_interval(const lbt_rec *r, int64_t *s, int64_t *e)
{
	int64_t ms, pre;
	unsigned m;

	if (!(r->have & LBT_BIT(LBT_F_TIME)))
		return 0;
	m = rec_duration(r, &ms, &pre);
	if (m == 0)
		return 0;
	switch (r->clock) {
	case LBT_CLOCK_ACCEPT:
		*s = r->time_us;
		break;
	case LBT_CLOCK_REQUEST:
		*s = r->time_us - pre * 1000;
		break;
	case LBT_CLOCK_END:
	case LBT_CLOCK_SYSLOG:
		*s = r->time_us - ms * 1000;
		break;
	default:
		return 0;
	}
	*e = *s + ms * 1000;
	return m;
}

/* Remember an out-of-memory failure.  @return -1. */
static int failed(lbt_tarpit *t)
{
	t->failed = 1;
	return -1;
}

/*
 * The interned copy of a file name (stable for the life of t), or NULL
 * when file is NULL.  Also NULL when out of memory (then
 * t->failed is set).  The map's value is the pointer to its own key.
 */
const char *lbt_tarpiti_intern(lbt_tarpit *t, const char *file)
{
	const char **v;
	int created = 0;

	if (file == NULL)
		return NULL;
	if (t->last_file != NULL && strcmp(t->last_file, file) == 0)
		return t->last_file;
	v = lbt_hmap_put(t->files, file, strlen(file), &created);
	if (v == NULL) {
		failed(t);
		return NULL;
	}
	if (created) {
		lbt_hmap_entry e;

		lbt_hmap_at(t->files, lbt_hmap_count(t->files) - 1, &e);
		*v = e.key;
	}
	return t->last_file = *v;
}

/* Set the maxconn and threshold of a new group from the options. */
static void group_maxconn(const lbt_tarpit *t, struct tp_group *g)
{
	lbt_tarpit_group *p = &g->pub;

	if (t->o.maxconn > 0) {
		p->maxconn = t->o.maxconn;
		snprintf(p->maxconn_from, sizeof p->maxconn_from, "--maxconn");
	} else if (t->o.maxconn_of != NULL) {
		p->maxconn = t->o.maxconn_of(t->o.maxconn_ctx, p->lb, g->lb_len, p->frontend,
		    g->fe_len, p->maxconn_from, sizeof p->maxconn_from);
	}
	if (p->maxconn > 0)
		p->threshold = (int32_t)(((int64_t)p->maxconn * t->o.threshold_pct + 99) / 100);
}

/* Fill a group just added to the map under key[0..klen) = "lb\0frontend".
 * @return 0 or -1 (out of memory). */
int lbt_tarpiti_group_init(lbt_tarpit *t, struct tp_group *g, size_t lb_len, size_t fe_len)
{
	lbt_hmap_entry e;
	lbt_occ_opts oo = LBT_OCC_OPTS_INIT;

	lbt_hmap_at(t->groups, lbt_hmap_count(t->groups) - 1, &e);
	g->pub.lb = e.key;
	g->pub.frontend = (const char *)e.key + lb_len + 1;
	g->lb_len = lb_len;
	g->fe_len = fe_len;
	g->pub.fc_max = g->pub.ac_max = -1;
	group_maxconn(t, g);
	oo.step_us = t->o.step_us;
	oo.window_us = t->o.window_us;
	oo.threshold = g->pub.threshold;
	g->occ = lbt_occ_new(&oo);
	g->pub.occ = g->occ;
	g->bk = lbt_hmap_new(sizeof(struct tp_bucket));
	return g->occ != NULL && g->bk != NULL ? 0 : -1;
}

/*
 * Room for a new group: each costs an occupancy stream per input (a radix
 * heap of tens of KiB), so a log that writes a frontend name of its own on
 * every line (damaged, or forged) would take gigabytes.  Frontends come
 * from the LBs' configurations, tens or hundreds of them; the groups get a
 * quarter of --max-memory, and the requests of any frontend past that are
 * counted, not analysed, and said (tarpit_notes.c).
 */
int lbt_tarpiti_group_room(lbt_tarpit *t, const void *key, size_t klen)
{
	if (lbt_hmap_count(t->groups) < t->st.max_groups)
		return 1;
	return lbt_hmap_get(t->groups, key, klen) != NULL;
}

/* The group of the record's (lb, frontend), created when new.
 * @return it, or NULL when out of memory or past the groups' room (*over). */
static struct tp_group *group_of(lbt_tarpit *t, const lbt_rec *r, int *over)
{
	lbt_str lb = t->o.name_inputs ? lbt_rec_lb_or_input(r) :
	    (r->have & LBT_BIT(LBT_F_LB)) ? r->lb : LBT_STR_NULL;
	lbt_str fe = (r->have & LBT_BIT(LBT_F_FRONTEND)) ? r->frontend : LBT_STR_NULL;
	struct tp_group *g = t->last_g;
	size_t n = lb.n + fe.n + 1;
	int created = 0;

	if (g != NULL && g->lb_len == lb.n && g->fe_len == fe.n &&
	    (lb.n == 0 || memcmp(g->pub.lb, lb.p, lb.n) == 0) &&
	    (fe.n == 0 || memcmp(g->pub.frontend, fe.p, fe.n) == 0))
		return g;
	if (n > t->kcap) {
		char *p = realloc(t->kbuf, n * 2);

		if (p == NULL)
			return NULL;
		t->kbuf = p;
		t->kcap = n * 2;
	}
	if (lb.n)
		memcpy(t->kbuf, lb.p, lb.n);
	t->kbuf[lb.n] = '\0';
	if (fe.n)
		memcpy(t->kbuf + lb.n + 1, fe.p, fe.n);
	if (!lbt_tarpiti_group_room(t, t->kbuf, n)) {
		*over = 1;
		return NULL;
	}
	g = lbt_hmap_put(t->groups, t->kbuf, n, &created);
	if (g == NULL || (created && lbt_tarpiti_group_init(t, g, lb.n, fe.n) < 0))
		return NULL;
	return t->last_g = g;
}

/* The group's bucket b, created when new.  @return it, or NULL (no memory). */
struct tp_bucket *lbt_tarpiti_group_bucket(struct tp_group *g, int64_t b)
{
	struct tp_bucket *p;
	int created = 0;

	if (g->last_bk != NULL && g->last_b == b)
		return g->last_bk;
	p = lbt_hmap_put(g->bk, &b, sizeof b, &created);
	if (p == NULL)
		return NULL;
	if (created) {
		p->pub.bucket = b;
		p->pub.fc_max = p->pub.ac_max = -1;
	}
	g->last_b = b;
	return g->last_bk = p;
}

/*
 * The evidence of source w before r is counted in it: the smallest
 * tarpitted (PT or CT) request by (time, file, line), else the smallest
 * request.  A first tarpitted request replaces an untarpitted evidence;
 * an untarpitted one never replaces a tarpitted evidence.
 */
static void source_evidence(struct tp_source *w, const lbt_rec *r, int tp,
    const char *file)
{
	int had_tp = w->pub.pt + w->pub.ct > 0;

	if ((tp && !had_tp) || (tp == had_tp && lbt_evidence_better(&w->ev, r)))
		lbt_evidence_set(&w->ev, r, file);
}

/* @return what source e may have sent at most (lbt_budget_weight_fn). */
static uint64_t source_weight(const lbt_hmap_entry *e, void *ctx)
{
	const struct tp_source *w = e->val;

	(void)ctx;
	return w->pub.requests + w->err;
}

/* Past --max-memory, drop the sources of fewest requests (budget.h), looked
 * at every 4096 requests (always when `now`): a source's state is a fixed
 * value in the map, so the map's bytes are the estimate.
 * @return 0, or -1 when out of memory. */
int lbt_tarpiti_budget(lbt_tarpit *t, int now)
{
	if (!lbt_budget_due(&t->st.budget, now ? 0 : t->st.requests, 4096,
	    lbt_hmap_bytes(t->sources)))
		return 0;
	return lbt_budget_prune(&t->st.budget, &t->sources, 0, sizeof(struct tp_source),
	    source_weight, NULL, NULL);
}

/* Count r in its source.  @return 0 or -1 (out of memory). */
static int source_add(lbt_tarpit *t, const lbt_rec *r, int pt, int ct, const char *file)
{
	lbt_addr net;
	int bits, created = 0, has_time = (r->have & LBT_BIT(LBT_F_TIME)) != 0;
	struct tp_source *w;
	lbt_tarpit_source *s;

	if (!(r->have & LBT_BIT(LBT_F_CLIENT)) ||
	    lbt_netgroup_of(&t->o.net, &r->client, &net, &bits) < 0)
		return 0;
	w = lbt_hmap_put(t->sources, &net, sizeof net, &created);
	if (w == NULL)
		return -1;
	s = &w->pub;
	if (created) {
		s->net = net;
		s->bits = bits;
		w->err = t->st.budget.floor;   /* it may have been dropped with as many */
	}
	source_evidence(w, r, pt || ct, file);
	s->requests++;
	s->pt += pt;
	s->ct += ct;
	if (pt && (r->have & LBT_BIT(LBT_F_TW)) && r->tw >= 0)
		s->held_tw_ms += r->tw;
	if (pt && (r->have & LBT_BIT(LBT_F_TA)) && r->ta >= 0)
		s->held_ta_ms += r->ta;
	if (has_time && (!s->has_time || r->time_us < s->first_us))
		s->first_us = r->time_us;
	if (has_time && (!s->has_time || r->time_us > s->last_us))
		s->last_us = r->time_us;
	s->has_time |= has_time;
	return 0;
}

/* Count r's presence of the fields the notes talk about. */
static void count_have(lbt_tarpit *t, const lbt_rec *r)
{
	static const lbt_field f[TP_NHAVE] = {
		LBT_F_TIME, LBT_F_CLIENT, LBT_F_FRONTEND, LBT_F_TERM, LBT_F_TW, LBT_F_TA,
		LBT_F_TT, LBT_F_FC, LBT_F_AC
	};
	int i;

	for (i = 0; i < TP_NHAVE; i++)
		t->have[i] += (r->have & LBT_BIT(f[i])) != 0;
}

/* Tarpit counts of r in its group. */
static void group_count(lbt_tarpit *t, struct tp_group *g, const lbt_rec *r, int pt, int ct)
{
	lbt_tarpit_group *p = &g->pub;

	p->requests++;
	p->pt += pt;
	p->ct += ct;
	if (pt && (r->have & LBT_BIT(LBT_F_TW)) && r->tw >= 0) {
		p->pt_tw++;
		p->held_tw_ms += r->tw;
	} else if (pt) {
		t->st.pt_no_tw++;
	}
	if (pt && (r->have & LBT_BIT(LBT_F_TA)) && r->ta >= 0) {
		p->pt_ta++;
		p->held_ta_ms += r->ta;
	} else if (pt) {
		t->st.pt_no_ta++;
	}
	if ((unsigned)r->clock < sizeof p->clocks / sizeof p->clocks[0])
		p->clocks[r->clock]++;
}

/* Record the logged fc / ac of r in the bucket of its end `at`.
 * @return 0 or -1. */
static int count_conns(struct tp_group *g, const lbt_rec *r, int64_t at, const char *file,
    int64_t step)
{
	int hfc = (r->have & LBT_BIT(LBT_F_FC)) && r->fc >= 0;
	int hac = (r->have & LBT_BIT(LBT_F_AC)) && r->ac >= 0;
	struct tp_bucket *w;
	lbt_tarpit_bucket *b;

	if (!hfc && !hac)
		return 0;
	if ((w = lbt_tarpiti_group_bucket(g, lbt_bucket_of(at, step))) == NULL)
		return -1;
	b = &w->pub;
	if (hfc) {
		b->fc_n++;
		g->pub.fc_n++;
		/* evidence: the smallest (time, file, line) of those at fc_max */
		if (r->fc > b->fc_max ||
		    (r->fc == b->fc_max && lbt_evidence_better(&w->fc_ev, r))) {
			b->fc_max = r->fc;
			lbt_evidence_set(&w->fc_ev, r, file);
		}
		if (r->fc > g->pub.fc_max)
			g->pub.fc_max = r->fc;
	}
	if (hac) {
		g->pub.ac_n++;
		if (r->ac > b->ac_max)
			b->ac_max = r->ac;
		if (r->ac > g->pub.ac_max)
			g->pub.ac_max = r->ac;
	}
	return 0;
}

/* Per-bucket counts of r starting at `at` (PT Tw included).  @return 0 or -1. */
static int count_start(lbt_tarpit *t, struct tp_group *g, const lbt_rec *r, int64_t at,
    int pt, int ct)
{
	struct tp_bucket *w = lbt_tarpiti_group_bucket(g, lbt_bucket_of(at, t->o.step_us));
	lbt_tarpit_bucket *b = w != NULL ? &w->pub : NULL;

	if (b == NULL)
		return -1;
	b->requests++;
	b->pt += pt;
	b->ct += ct;
	if (pt && (r->have & LBT_BIT(LBT_F_TW)) && r->tw >= 0)
		b->held_tw_ms += r->tw;
	return 0;
}

/* Time span, interval and per-bucket counts of r in group g.  @return 0 or -1. */
static int count_time(lbt_tarpit *t, struct tp_group *g, const lbt_rec *r, int pt, int ct,
    const char *file)
{
	lbt_tarpit_group *p = &g->pub;
	int64_t s = r->time_us, e = r->time_us;
	unsigned m = rec_interval(r, &s, &e);

	if (m != 0) {
		p->dur_rules[m]++;
		if (lbt_occ_add(g->occ, file, s, e, pt || ct) < 0)
			return -1;
	} else {
		p->no_interval++;
	}
	if (!p->has_time || s < p->first_us)
		p->first_us = s;
	if (!p->has_time || e > p->last_us)
		p->last_us = e;
	p->has_time = 1;
	if (count_start(t, g, r, s, pt, ct) < 0)
		return -1;
	return count_conns(g, r, e, file, t->o.step_us);
}

/* Count one record (see tarpit.h).  @return 0, or -1 when out of memory (kept). */
int lbt_tarpit_add(lbt_tarpit *t, const lbt_rec *r)
{
	struct tp_group *g;
	const char *file;
	int pt = 0, ct = 0, over = 0;

	t->st.records++;
	if (t->finished || r->kind != LBT_KIND_REQUEST)
		return t->finished ? -1 : 0;
	t->st.requests++;
	count_have(t, r);
	if ((r->have & LBT_BIT(LBT_F_TERM)) && r->term.n >= 2) {
		pt = r->term.p[0] == 'P' && r->term.p[1] == 'T';
		ct = r->term.p[0] == 'C' && r->term.p[1] == 'T';
	}
	t->st.pt += pt;
	t->st.ct += ct;
	file = r->file == NULL ? NULL : t->last_file != NULL && strcmp(t->last_file, r->file) == 0 ?
	    t->last_file : lbt_tarpiti_intern(t, r->file);     /* the same file: no call */
	if (t->failed)
		return failed(t);
	if ((g = group_of(t, r, &over)) == NULL) {
		if (!over)
			return failed(t);
		t->st.over_requests++;
		return 0;
	}
	group_count(t, g, r, pt, ct);
	if (source_add(t, r, pt, ct, file) < 0 || lbt_tarpiti_budget(t, 0) < 0)
		return failed(t);
	if (!(r->have & LBT_BIT(LBT_F_TIME))) {
		g->pub.no_interval++;
		return 0;
	}
	return count_time(t, g, r, pt, ct, file) < 0 ? failed(t) : 0;
}

/* Check the options and make an empty accumulator.  @return it, or NULL with err. */
lbt_tarpit *lbt_tarpit_new(const lbt_tarpit_opts *o, lbt_err *err)
{
	lbt_tarpit *t;

	if (o->step_us <= 0 || o->window_us < 0 || o->threshold_pct < 1 ||
	    o->threshold_pct > 100 || o->maxconn < 0 || o->near < 0) {
		lbt_err_set(err, "tarpit: bad options (step, window, threshold or maxconn)");
		return NULL;
	}
	t = calloc(1, sizeof *t);
	if (t == NULL) {
		lbt_err_set(err, "out of memory");
		return NULL;
	}
	t->o = *o;
	t->st.budget.max = o->max_memory;
	t->st.max_groups = (o->max_memory ? o->max_memory : LBT_BUDGET_DEFAULT) / 4 /
	    (sizeof(struct tp_group) + lbt_occ_stream_bytes());
	t->st.max_groups = t->st.max_groups < 16 ? 16 : t->st.max_groups;
	t->groups = lbt_hmap_new(sizeof(struct tp_group));
	t->sources = lbt_hmap_new(sizeof(struct tp_source));
	t->files = lbt_hmap_new(sizeof(const char *));
	if (t->groups == NULL || t->sources == NULL || t->files == NULL) {
		lbt_tarpit_free(t);
		lbt_err_set(err, "out of memory");
		return NULL;
	}
	return t;
}

/* qsort order of buckets: by number. */
static int bucket_cmp(const void *a, const void *b)
{
	const lbt_tarpit_bucket *x = a, *y = b;

	return (x->bucket > y->bucket) - (x->bucket < y->bucket);
}

/* The buckets where the logged fc reached maxconn - near. */
static void group_full(const lbt_tarpit *t, struct tp_group *g)
{
	lbt_tarpit_group *p = &g->pub;
	size_t i;

	if (p->maxconn <= 0)
		return;
	for (i = 0; i < g->nsorted; i++) {
		const lbt_tarpit_bucket *b = &g->sorted[i];

		if (b->fc_n == 0 || b->fc_max < p->maxconn - t->o.near)
			continue;
		if (p->full_buckets++ == 0) {
			p->full_first = b->bucket;
			p->full_fc_lo = b->fc_max;
			p->full_file = b->fc_file;
			p->full_line = b->fc_line;
		}
		p->full_last = b->bucket;
		if (b->fc_max < p->full_fc_lo)
			p->full_fc_lo = b->fc_max;
	}
}

/* Finish one group: occupancy, buckets in time order, full buckets.
 * @return 0 or -1 (out of memory). */
static int group_finish(const lbt_tarpit *t, struct tp_group *g)
{
	size_t i, n = lbt_hmap_count(g->bk);

	if (lbt_occ_finish(g->occ) < 0)
		return -1;
	g->sorted = malloc((n ? n : 1) * sizeof *g->sorted);
	if (g->sorted == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		const struct tp_bucket *w;
		lbt_hmap_entry e;

		lbt_hmap_at(g->bk, i, &e);
		w = e.val;
		g->sorted[i] = w->pub;
		g->sorted[i].fc_file = w->fc_ev.file;
		g->sorted[i].fc_line = w->fc_ev.line;
	}
	qsort(g->sorted, n, sizeof *g->sorted, bucket_cmp);
	g->nsorted = n;
	group_full(t, g);
	return 0;
}

/* qsort order of groups: lb, then frontend. */
static int group_cmp(const void *a, const void *b)
{
	const struct tp_group *x = *(const struct tp_group *const *)a;
	const struct tp_group *y = *(const struct tp_group *const *)b;
	int c = strcmp(x->pub.lb, y->pub.lb);

	return c ? c : strcmp(x->pub.frontend, y->pub.frontend);
}

/* qsort order of sources: held Tw, tarpitted, requests (all descending),
 * then the network. */
static int source_cmp(const void *a, const void *b)
{
	const lbt_tarpit_source *x = a, *y = b;

	if (x->held_tw_ms != y->held_tw_ms)
		return x->held_tw_ms < y->held_tw_ms ? 1 : -1;
	if (x->pt != y->pt)
		return x->pt < y->pt ? 1 : -1;
	if (x->requests != y->requests)
		return x->requests < y->requests ? 1 : -1;
	return lbt_addr_cmp(&x->net, &y->net);
}

/* Groups and sources into arrays in their order.  @return 0 or -1. */
static int collect(lbt_tarpit *t)
{
	size_t i, ng = lbt_hmap_count(t->groups), ns = lbt_hmap_count(t->sources);
	lbt_hmap_entry e;

	t->gv = malloc((ng ? ng : 1) * sizeof *t->gv);
	t->sv = malloc((ns ? ns : 1) * sizeof *t->sv);
	if (t->gv == NULL || t->sv == NULL)
		return -1;
	for (i = 0; i < ng; i++) {
		lbt_hmap_at(t->groups, i, &e);
		t->gv[i] = e.val;
		if (group_finish(t, t->gv[i]) < 0)
			return -1;
	}
	qsort(t->gv, ng, sizeof *t->gv, group_cmp);
	for (i = 0; i < ns; i++) {
		const struct tp_source *w;

		lbt_hmap_at(t->sources, i, &e);
		w = e.val;
		t->sv[i] = w->pub;
		t->sv[i].file = w->ev.file;
		t->sv[i].line = w->ev.line;
	}
	qsort(t->sv, ns, sizeof *t->sv, source_cmp);
	t->st.groups = ng;
	t->st.sources = ns;
	return 0;
}

/* Finish groups, rank sources, build notes, once.  @return 0, or -1 with err. */
int lbt_tarpit_finish(lbt_tarpit *t, lbt_err *err)
{
	if (t->finished)
		return 0;
	t->finished = 1;
	t->st.no_time = t->st.requests - t->have[TP_TIME];
	t->st.no_client = t->st.requests - t->have[TP_CLIENT];
	t->st.no_term = t->st.requests - t->have[TP_TERM];
	t->st.no_frontend = t->st.requests - t->have[TP_FRONTEND];
	t->st.fc_n = t->have[TP_FC];
	if (t->failed || collect(t) < 0 || lbt_tarpiti_notes_build(t) < 0) {
		t->failed = 1;
		return lbt_err_set(err, "out of memory");
	}
	return 0;
}

/* Number of groups after finish (0 before). */
size_t lbt_tarpit_ngroups(const lbt_tarpit *t)
{
	return t->gv != NULL ? t->st.groups : 0;
}

/* Group i in (lb, frontend) order. */
const lbt_tarpit_group *lbt_tarpit_group_at(const lbt_tarpit *t, size_t i)
{
	assert(i < lbt_tarpit_ngroups(t));
	return &t->gv[i]->pub;
}

/* Buckets of group i in time order; *n their count. */
const lbt_tarpit_bucket *lbt_tarpit_buckets(const lbt_tarpit *t, size_t i, size_t *n)
{
	assert(i < lbt_tarpit_ngroups(t));
	*n = t->gv[i]->nsorted;
	return t->gv[i]->sorted;
}

/* Number of sources after finish (0 before). */
size_t lbt_tarpit_nsources(const lbt_tarpit *t)
{
	return t->sv != NULL ? t->st.sources : 0;
}

/* Source i in rank order. */
const lbt_tarpit_source *lbt_tarpit_source_at(const lbt_tarpit *t, size_t i)
{
	assert(i < lbt_tarpit_nsources(t));
	return &t->sv[i];
}

/* Number of notes. */
size_t lbt_tarpit_nnotes(const lbt_tarpit *t)
{
	return t->nnotes;
}

/* Note i in reading order. */
const lbt_tarpit_note *lbt_tarpit_note_at(const lbt_tarpit *t, size_t i)
{
	assert(i < t->nnotes);
	return &t->notes[i].pub;
}

/* Overall counts. */
const lbt_tarpit_stats *lbt_tarpit_stats_get(const lbt_tarpit *t)
{
	return &t->st;
}

/* The options given at creation. */
const lbt_tarpit_opts *lbt_tarpit_opts_get(const lbt_tarpit *t)
{
	return &t->o;
}

/* Free everything, groups' occupancies included; NULL accepted. */
void lbt_tarpit_free(lbt_tarpit *t)
{
	size_t i;

	if (t == NULL)
		return;
	for (i = 0; t->groups != NULL && i < lbt_hmap_count(t->groups); i++) {
		lbt_hmap_entry e;
		struct tp_group *g;

		lbt_hmap_at(t->groups, i, &e);
		g = e.val;
		lbt_occ_free(g->occ);
		lbt_hmap_free(g->bk);
		free(g->sorted);
	}
	lbt_hmap_free(t->groups);
	lbt_hmap_free(t->sources);
	lbt_hmap_free(t->files);
	lbt_tarpiti_notes_free(t);
	free(t->kbuf);
	free(t->gv);
	free(t->sv);
	free(t);
}
