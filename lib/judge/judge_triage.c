/*
 * triage.c - lbt_triage_build (triage.h): the span and "now", the rises of
 * the total and of each key (changepoint.h on dense 1 s series read from
 * the rate analyses), the sources and who of them offends, the pressure
 * per frontend, the damage, the verdict.  The rule is triage_rule.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/budget.h"
#include "lbt/series.h"
#include "lbt/tarpit_cfg.h"
#include "lbt/timeparse.h"
#include "lbt/vec.h"
#include "judge_int.h"

/* Longest series the rises are looked for in: 32 days of seconds. */
#define MAX_BUCKETS (32 * 86400)
#define MAX_ERRORS 4       /* rises of error statuses kept */
#define TARPIT_HEAVY 50.0  /* % of the slot time held by the tarpit: an anomaly */

#define RATE_KEYS 50      /* keys ranked by peak whose rises are looked for */
#define ROW_BYTES 2048    /* a ranked source's row, with its change points (measured:
                             ~1.3 KB on distinct /64s) */

/* The analyses of the judge (judge.h).  @return 0 or -1 with err */
int lbt_triage_analyses(size_t max_memory, const lbt_tarpit_cfgs *cfg, int32_t maxconn,
    lbt_analysis *v, lbt_err *err)
{
	lbt_rate_opts rk = LBT_RATE_OPTS_INIT, rs = LBT_RATE_OPTS_INIT;
	lbt_offenders_opts of = LBT_OFFENDERS_OPTS_INIT;
	lbt_tarpit_opts tp = LBT_TARPIT_OPTS_INIT;

	/* --max-memory shared: half for the sources, a quarter for their rows
	 * (the sources ranked), the rest for the keys, the statuses and the
	 * tarpit's sources (docs/memory.md). */
	memset(v, 0, LBT_TRIAGE_NANALYSES * sizeof *v);
	rk.top = RATE_KEYS;
	rk.max_memory = max_memory / 8;
	rs.by = LBT_RATE_BY_STATUS;
	rs.top = 0;
	rs.max_memory = max_memory / 16;
	of.top = max_memory / 4 / ROW_BYTES;
	of.max_memory = max_memory / 2;
	of.rising_only = 1;         /* the engine only on the sources that may rise */
	tp.max_memory = max_memory / 16;
	tp.maxconn = maxconn;
	lbt_tarpit_cfgs_use(&tp, cfg);
	v[0] = lbt_rate_analysis(lbt_rate_new(&rk, err));
	if (v[0].acc != NULL)
		v[1] = lbt_rate_analysis(lbt_rate_new(&rs, err));
	if (v[1].acc != NULL)
		v[2] = lbt_offenders_analysis(lbt_offenders_new(&of, err));
	if (v[2].acc != NULL)
		v[3] = lbt_tarpit_analysis(lbt_tarpit_new(&tp, err));
	if (v[3].acc != NULL)
		return 0;
	for (size_t i = 0; i < LBT_TRIAGE_NANALYSES; i++)
		lbt_analysis_free(&v[i]);
	return -1;
}

/* The build's input from those analyses. */
lbt_triage_input lbt_triage_input_of(const lbt_analysis *v, uint64_t lines)
{
	lbt_triage_input in = { v[0].acc, v[1].acc, v[2].acc, v[3].acc, lines, 0 };

	return in;
}

/* A new triage.  @return it, or NULL with err */
lbt_triage *lbt_triage_new(const lbt_triage_opts *o, lbt_err *err)
{
	lbt_deny_opts d = LBT_DENY_OPTS_INIT;
	lbt_triage *t;

	if (!(o->min_share >= 0 && o->min_share <= 100) || !(o->min_ratio > 1))
		return lbt_err_set(err, "triage: min_share is 0..100, min_ratio above 1"), NULL;
	if ((t = calloc(1, sizeof *t)) == NULL)
		return lbt_err_set(err, "out of memory"), NULL;
	t->o = *o;
	d.picked_only = 1;
	d.v4_bits = o->v4_bits;
	d.v6_bits = o->v6_bits;
	if ((t->deny = lbt_deny_new(&d, err)) == NULL) {
		free(t);
		return NULL;
	}
	return t;
}

/* Free t; NULL accepted. */
void lbt_triage_free(lbt_triage *t)
{
	if (t == NULL)
		return;
	lbt_deny_free(t->deny);
	free(t->keys);
	free(t->errs);
	free(t->src);
	free(t->fronts);
	free(t->rule_lines);
	free(t->rule_list);
	free(t->limit_lines);
	free(t->prefixes);
	free(t);
}

/* --allow: a network or a file.  @return 0 or -1 with err */
int lbt_triage_allow(lbt_triage *t, const char *arg, lbt_err *err)
{
	if (t->built)
		return lbt_err_set(err, "lbt_triage_allow after lbt_triage_build");
	return lbt_deny_allow_arg(t->deny, arg, err);
}

/* One of the load balancer's own addresses.  @return 0 or -1 with err */
int lbt_triage_own(lbt_triage *t, const lbt_addr *a, const char *file, uint64_t line,
    lbt_err *err)
{
	lbt_ipnet net = { *a, a->family == 4 ? 32 : 128 };

	if (t->built)
		return lbt_err_set(err, "lbt_triage_own after lbt_triage_build");
	return lbt_deny_own(t->deny, &net, file, line, err);
}

/*
 * The latest first record of the load balancers (tarpit groups) that
 * began within ALIGN_MAX of the first record of all: where every input
 * is being read.  Inputs whose first lines differ by seconds would
 * otherwise make a rise of the total (and new sources) of the moment the
 * later one begins; a group that begins later than that is traffic that
 * began (a frontend the flood came to), not an input.
 */
#define ALIGN_MAX_US (60 * 1000000LL)
static int64_t aligned_start(const lbt_triage *t, int64_t first_us)
{
	const lbt_tarpit *tp = t->in.tarpit;
	size_t n = tp ? lbt_tarpit_ngroups(tp) : 0;
	int64_t at = first_us;

	for (size_t i = 0; i < n; i++) {
		const lbt_tarpit_group *g = lbt_tarpit_group_at(tp, i);

		if (g->has_time && g->first_us > at && g->first_us - first_us <= ALIGN_MAX_US)
			at = g->first_us;
	}
	return at;
}

/* First and latest record with a time: the input's span, read by the
 * status analysis from every record (never from the sources, which a
 * budget may have dropped); where every input is read; now. */
static void find_span(lbt_triage *t)
{
	const lbt_rate_stats *st = lbt_rate_stats_get(t->in.statuses);
	lbt_triage_summary *s = &t->sum;

	s->first_us = st->first_us;
	s->last_us = st->last_us;
	s->now_us = t->o.now_us != 0 ? t->o.now_us : s->last_us;
	s->aligned_us = aligned_start(t, s->first_us);
	if (s->aligned_us > s->now_us)
		s->aligned_us = s->first_us;
}

/* The buckets the rises are looked for in: *b0 .. *b0 + *n - 1, from the
 * first second of the input to now.  @return 0, or -1 with err */
static int series_range(const lbt_triage *t, int64_t *b0, size_t *n, lbt_err *err)
{
	int64_t step = lbt_rate_step(t->in.statuses);
	int64_t last = lbt_bucket_of(t->sum.now_us, step);

	*b0 = lbt_bucket_of(t->sum.aligned_us, step);
	*n = last >= *b0 ? (size_t)(last - *b0 + 1) : 0;
	if (*n > MAX_BUCKETS)
		return lbt_err_set(err, "the input spans more than 32 days: cut it with "
		    "--since and --until");
	return 0;
}

/* The latest rise of v[0..n) (bucket b0 first, `step` µs) into *r, or
 * r->found 0 (triage_rise.c).  @return 0, or -1 when out of memory */
static int latest_rise(const lbt_triage *t, const int64_t *v, size_t n, int64_t b0,
    int64_t step, lbt_triage_rise *r)
{
	return lbt_judgei_rise(&t->o.cp, v, n, b0, step, t->sum.now_us, r);
}

/* Order of hot keys: ongoing first, then the larger jump, then the key. */
static int key_cmp(const void *pa, const void *pb)
{
	const lbt_triage_key *a = pa, *b = pb;
	double ja = a->rise.to_rate - a->rise.from_rate, jb = b->rise.to_rate - b->rise.from_rate;

	if (a->rise.ongoing != b->rise.ongoing)
		return b->rise.ongoing - a->rise.ongoing;
	if (ja != jb)
		return ja > jb ? -1 : 1;
	return strcmp(a->key, b->key);
}

/* True when status text s is an error answer: 429, 5xx or -1. */
static int is_error(const char *s)
{
	long code = strtol(s, NULL, 10);

	return code == 429 || code == -1 || (code >= 500 && code <= 599);
}

/* The rows of one rate analysis and where their rises go. */
struct rises {
	const lbt_rate *r;
	int errors_only;             /* only rows whose key is an error status */
	lbt_triage_key **v;
	size_t *n, *cap, keep;
};

/*
 * The rise of each row of x->r (scratch v[0..n), buckets b0..), the found
 * ones ranked into *x->v, the first x->keep kept.  @return 0 or -1
 */
static int row_rises(const lbt_triage *t, const struct rises *x, int64_t *v, size_t n,
    int64_t b0, int64_t step)
{
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < lbt_rate_nrows(x->r); i++) {
		const lbt_rate_row *row = lbt_rate_row_at(x->r, i);
		lbt_triage_key k = { row->key, row->total, { 0 } };

		if (x->errors_only && !is_error(row->key))
			continue;
		for (size_t b = 0; b < n; b++)
			v[b] = lbt_rate_count(x->r, i, b0 + (int64_t)b);
		if ((rc = latest_rise(t, v, n, b0, step, &k.rise)) < 0 || !k.rise.found)
			continue;
		if ((rc = LBT_GROW(*x->v, *x->cap, *x->n + 1, 16)) == 0)
			(*x->v)[(*x->n)++] = k;
	}
	if (rc == 0 && *x->n > 0)
		qsort(*x->v, *x->n, sizeof **x->v, key_cmp);
	if (*x->n > x->keep)
		*x->n = x->keep;
	return rc;
}

/* The rise of the total, of every ranked key and of every error status.
 * @return 0 or -1 with err */
static int find_rises(lbt_triage *t, lbt_err *err)
{
	struct rises keys = { t->in.keys, 0, &t->keys, &t->nkeys, &t->capkeys, t->o.nkeys };
	struct rises errs = { t->in.statuses, 1, &t->errs, &t->nerrs, &t->caperrs, MAX_ERRORS };
	int64_t b0, step = lbt_rate_step(t->in.statuses), *v;
	size_t n;
	int rc;

	if (lbt_rate_step(t->in.keys) != step)
		return lbt_err_set(err, "triage: the key and status rates differ in step");
	if (series_range(t, &b0, &n, err) < 0)
		return -1;
	if (n == 0)
		return 0;
	if ((v = malloc(n * sizeof *v)) == NULL)
		return lbt_err_set(err, "out of memory");
	for (size_t b = 0; b < n; b++)
		v[b] = lbt_rate_total_count(t->in.statuses, b0 + (int64_t)b);
	rc = latest_rise(t, v, n, b0, step, &t->sum.total);
	if (rc == 0)
		rc = row_rises(t, &keys, v, n, b0, step);
	if (rc == 0)
		rc = row_rises(t, &errs, v, n, b0, step);
	free(v);
	return rc < 0 ? lbt_err_set(err, "out of memory") : 0;
}

/* Order of sources: offenders first, then the larger share, more requests,
 * then the source text. */
static int source_cmp(const void *pa, const void *pb)
{
	const lbt_triage_source *a = pa, *b = pb;

	if (a->offender != b->offender)
		return b->offender - a->offender;
	if (a->share != b->share)
		return a->share > b->share ? -1 : 1;
	if (a->row->requests != b->row->requests)
		return a->row->requests > b->row->requests ? -1 : 1;
	return strcmp(a->row->source, b->row->source);
}

/*
 * The fewest requests that make an event: those of the smallest rise the
 * engine reports, floor requests a second for min_buckets seconds (1 s
 * buckets), at least 1.  A source or a tarpit below it is left alone: two
 * tarpitted requests of a quiet log are no flood.
 */
static uint64_t min_events(const lbt_triage *t)
{
	double n = ceil(t->o.cp.floor * (double)t->o.cp.min_buckets);

	return n >= 1 ? (uint64_t)n : 1;
}

/*
 * Requests of row i in [from_us, to_us): from its segments when the engine
 * ran on it (exact over whole segments, pro-rated in the one the window
 * cuts), else its requests spread evenly over its [first, last] seconds.
 */
static double requests_in(const lbt_offenders *o, size_t i, int64_t from_us, int64_t to_us)
{
	const lbt_offender *r = lbt_offenders_row_at(o, i);
	double a = (double)from_us / 1e6, b = (double)to_us / 1e6, n = 0, f, l, lo, hi;
	int64_t origin = 0;
	const lbt_cp_result *res = lbt_offenders_changes(o, i, &origin);

	if (res != NULL && res->nseg > 0) {
		for (size_t k = 0; k < res->nseg; k++) {
			lo = fmax(a, (double)(origin + (int64_t)res->seg[k].start));
			hi = fmin(b, (double)(origin + (int64_t)res->seg[k].end));
			n += hi > lo ? res->seg[k].rate * (hi - lo) : 0;
		}
		return fmin(n, (double)r->requests);
	}
	f = (double)(r->first_us / 1000000);
	l = (double)(r->last_us / 1000000) + 1;
	lo = fmax(a, f);
	hi = fmin(b, l);
	return hi > lo ? (double)r->requests * (hi - lo) / (l - f) : 0;
}

/* Every request counted (status rate, every input) in [from_us, now]. */
static uint64_t total_since(const lbt_triage *t, int64_t from_us)
{
	int64_t step = lbt_rate_step(t->in.statuses);
	int64_t b = lbt_bucket_of(from_us, step), last = lbt_bucket_of(t->sum.now_us, step);
	uint64_t n = 0;

	for (; b <= last && last - b < MAX_BUCKETS; b++)
		n += (uint64_t)lbt_rate_total_count(t->in.statuses, b);
	return n;
}

/*
 * What the window before the jump says of source i (docs/judge.md): it is
 * a prior customer when its first request is inside the window (whatever
 * its gaps: a batch sender every 10 s is one), new otherwise; its
 * baseline rate is its requests there over the window; its ratio is its
 * rise's mean (or its mean since the jump) over that rate; its share is of
 * every request since the jump, the same records whatever the inputs.
 */
static void weigh_source(lbt_triage *t, size_t i, lbt_triage_source *s)
{
	const lbt_offenders *o = t->in.offenders;
	const lbt_offender *r = s->row;
	const lbt_triage_summary *m = &t->sum;
	double win_s = (double)(m->base_to_us - m->base_from_us) / 1e6;
	double since_s = (double)(m->now_us - m->base_to_us) / 1e6 + 1, rate;

	s->resent_pct = r->requests > 0 ? 100.0 * (double)(r->status[LBT_OFF_S429] +
	    r->status[LBT_OFF_S5XX]) / (double)r->requests : 0;
	if (!m->baseline) {
		s->share = r->share;
		s->prior = 1;
		s->since = (double)r->requests;
		return;
	}
	s->prior = r->first_us < m->base_to_us;
	s->before = requests_in(o, i, m->base_from_us, m->base_to_us);
	s->since = requests_in(o, i, m->base_to_us, m->now_us + 1000000);
	if (s->prior && s->before < 1)
		s->before = 1;      /* it sent there: its segments spread it thin */
	s->base_rate = win_s > 0 ? s->before / win_s : 0;
	s->share = m->since_requests > 0 ? 100.0 * s->since / (double)m->since_requests : 0;
	rate = r->cp.has_main && r->cp.kind == LBT_CP_RISE ? r->cp.mean_rate :
	    s->since / (since_s > 1 ? since_s : 1);
	s->ratio = s->prior && s->base_rate > 0 ? rate / s->base_rate : 0;
}

/*
 * Whether source s offends, and why: a share of min_share or more and
 * min_events requests or more, and new or min_ratio times its own
 * baseline, or refused by the proxy's own limits for half of its requests
 * or more (the larger of its 429 answers and its tarpitted requests: never
 * counted twice when the tarpit answers 429).
 */
static lbt_triage_why why_offends(const lbt_triage *t, const lbt_triage_source *s)
{
	const lbt_offender *r = s->row;
	uint64_t refused = r->status[LBT_OFF_S429] > r->tarpitted ? r->status[LBT_OFF_S429] :
	    r->tarpitted;

	/* slow headers hold a slot each for long: few requests, any share */
	if (r->slow >= min_events(t) && 2 * r->slow >= r->requests)
		return LBT_TRIAGE_SLOW;
	if (s->share < t->o.min_share || r->requests < min_events(t))
		return LBT_TRIAGE_NOT;
	if (t->sum.baseline && !s->prior)
		return LBT_TRIAGE_NEW;
	if (t->sum.baseline && s->ratio >= t->o.min_ratio)
		return LBT_TRIAGE_RATIO;
	return r->requests > 0 && 2 * refused >= r->requests ? LBT_TRIAGE_REFUSED : LBT_TRIAGE_NOT;
}

/* A customer's rate limit, requests a 10 s window (the stick-table's
 * period): LBT_TRIAGE_LIMIT_K times its baseline rate over the window, at least
 * LIMIT_MIN; and the requests it would have stopped, over its rise (or
 * since the jump) at the rate it sent. */

#define LIMIT_MIN 10
static void set_limit(const lbt_triage *t, lbt_triage_source *s)
{
	const lbt_offender *r = s->row;
	double lim = ceil(LBT_TRIAGE_LIMIT_K * s->base_rate * 10), secs, sent, allowed;

	s->limit = lim > LIMIT_MIN ? (int64_t)lim : LIMIT_MIN;
	if (r->cp.has_main && r->cp.kind == LBT_CP_RISE) {
		secs = (double)(r->cp.end - r->cp.start);
		sent = r->cp.mean_rate * secs;
	} else {
		int64_t from = r->first_us > t->sum.base_to_us ? r->first_us : t->sum.base_to_us;
		int64_t to = r->last_us < t->sum.now_us ? r->last_us : t->sum.now_us;

		secs = to >= from ? (double)(to - from) / 1e6 + 1 : 0;
		sent = s->since;
	}
	allowed = (double)s->limit / 10 * secs;
	s->stopped = sent > allowed ? (uint64_t)(sent - allowed) : 0;
}

/*
 * A proportional surge: the total rose R times, and the sources whose own
 * ratio is within a factor SURGE_BAND of R hold SURGE_SHARE % or more of
 * the requests since the jump.  Then nobody stands out: no rule.
 */
#define SURGE_BAND 2.0
#define SURGE_SHARE 80.0
static int is_surge(lbt_triage *t)
{
	const lbt_triage_rise *tot = &t->sum.total;
	double r = tot->found && tot->from_rate > 0 ? tot->to_rate / tot->from_rate : 0, in = 0;

	t->sum.total_ratio = r;
	if (!t->sum.baseline || r <= 1)
		return 0;
	for (size_t i = 0; i < t->nsrc; i++)
		if (t->src[i].prior && t->src[i].ratio >= r / SURGE_BAND &&
		    t->src[i].ratio <= r * SURGE_BAND)
			in += t->src[i].share;
	return in >= SURGE_SHARE;
}

/* A new source's aggregate: its /24 or /48 and its top key. */
struct member {
	lbt_addr prefix;
	const char *key;
	size_t i;                    /* in t->src */
};

/* Order of members: by prefix, then key. */
static int member_cmp(const void *pa, const void *pb)
{
	const struct member *a = pa, *b = pb;
	int c = lbt_addr_cmp(&a->prefix, &b->prefix);

	return c != 0 ? c : strcmp(a->key, b->key);
}

/* The prior sources inside prefix p: the legitimate traffic it holds. */
static void legit_inside(const lbt_triage *t, lbt_triage_prefix *p)
{
	for (size_t i = 0; i < t->nsrc; i++) {
		const lbt_triage_source *s = &t->src[i];

		if (s->prior && lbt_addr_in(&s->row->net, &p->net.net, p->net.bits)) {
			p->legit_sources++;
			p->legit_requests += s->row->requests;
		}
	}
}

/*
 * Members m[0..n) of one prefix and key: an aggregate when there are
 * LBT_TRIAGE_PREFIX_MIN of them or more and together they have min_share
 * of the requests since the jump.  Marks them and keeps the prefix.
 * @return 0, or -1 when out of memory
 */
static int take_prefix(lbt_triage *t, const struct member *m, size_t n)
{
	lbt_triage_prefix p = { { m[0].prefix, m[0].prefix.family == 4 ? 24 : 48 }, m[0].key,
		n, 0, 0, 0, 0 };

	for (size_t k = 0; k < n; k++)
		p.since += t->src[m[k].i].since;
	p.share = t->sum.since_requests > 0 ? 100.0 * p.since / (double)t->sum.since_requests : 0;
	if (n < LBT_TRIAGE_PREFIX_MIN || p.share < t->o.min_share)
		return 0;
	legit_inside(t, &p);
	if (LBT_GROW(t->prefixes, t->capprefixes, t->nprefixes + 1, 4) < 0)
		return -1;
	t->prefixes[t->nprefixes++] = p;
	for (size_t k = 0; k < n; k++) {
		lbt_triage_source *s = &t->src[m[k].i];

		t->sum.offenders += !s->offender;
		s->offender = 1;
		s->why = LBT_TRIAGE_NEW;
		s->cause = LBT_TRIAGE_CAUSE_PREFIX;
	}
	return 0;
}

/*
 * The distributed floods: the new sources that do not offend alone,
 * grouped by /24 or /48 and top key (docs/judge.md).
 * @return 0, or -1 when out of memory
 */
static int find_prefixes(lbt_triage *t)
{
	struct member *m = NULL;
	size_t n = 0, cap = 0, from = 0;
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < t->nsrc; i++) {
		const lbt_triage_source *s = &t->src[i];

		if (!t->sum.baseline || s->prior || s->offender || s->row->nkeys == 0)
			continue;
		if ((rc = LBT_GROW(m, cap, n + 1, 64)) < 0)
			break;
		m[n].prefix = s->row->net;
		lbt_addr_mask(&m[n].prefix, s->row->net.family == 4 ? 24 : 48);
		m[n].key = s->row->keys[0].key;
		m[n++].i = i;
	}
	if (rc == 0 && n > 0)
		qsort(m, n, sizeof *m, member_cmp);
	for (size_t k = 1; rc == 0 && k <= n; k++)
		if (k == n || member_cmp(&m[from], &m[k]) != 0) {
			rc = take_prefix(t, m + from, k - from);
			from = k;
		}
	free(m);
	return rc;
}

/* The cause of each offender, and what it calls for (docs/judge.md). */
static void find_causes(lbt_triage *t)
{
	t->sum.surge = is_surge(t);
	for (size_t i = 0; i < t->nsrc; i++) {
		lbt_triage_source *s = &t->src[i];

		if (s->cause == LBT_TRIAGE_CAUSE_PREFIX)
			;                    /* a part of an aggregate (find_prefixes) */
		else if (!s->offender)
			s->cause = LBT_TRIAGE_CAUSE_NONE;
		else if (s->why == LBT_TRIAGE_SLOW)
			s->cause = LBT_TRIAGE_CAUSE_SLOW;
		else if (t->sum.baseline && s->prior)
			s->cause = t->sum.surge ? LBT_TRIAGE_CAUSE_SURGE : LBT_TRIAGE_CAUSE_CUSTOMER;
		else
			s->cause = LBT_TRIAGE_CAUSE_FLOOD;
		if (s->cause == LBT_TRIAGE_CAUSE_CUSTOMER)
			set_limit(t, s);
		t->sum.to_deny += s->cause == LBT_TRIAGE_CAUSE_FLOOD ||
		    s->cause == LBT_TRIAGE_CAUSE_PREFIX;
		t->sum.to_limit += s->cause == LBT_TRIAGE_CAUSE_CUSTOMER;
		t->sum.to_time += s->cause == LBT_TRIAGE_CAUSE_SLOW;
	}
}

/*
 * The first change: the start of the total's rise, else the earliest
 * start of a key's or an error status's rise (a re-send storm in bursts
 * raises its keys and its 503s while the total's mean over the input
 * does not jump).  @return it, or INT64_MAX when nothing rose.
 */
static int64_t first_change(const lbt_triage *t)
{
	int64_t at = INT64_MAX;

	if (t->sum.total.found)
		return t->sum.total.start_us;
	for (size_t i = 0; i < t->nkeys; i++)
		at = t->keys[i].rise.start_us < at ? t->keys[i].rise.start_us : at;
	for (size_t i = 0; i < t->nerrs; i++)
		at = t->errs[i].rise.start_us < at ? t->errs[i].rise.start_us : at;
	return at;
}

/* Every source with its share since the jump, and whether it offends.
 * @return 0 or -1 with err */
static int find_sources(lbt_triage *t, lbt_err *err)
{
	const lbt_offenders *o = t->in.offenders;
	const lbt_offenders_stats *st = lbt_offenders_stats_get(o);
	size_t n = lbt_offenders_nrows(o);
	int64_t change = first_change(t);

	/* Shares and ratios compare with before the jump: the --baseline
	 * window, else from where every input is read to the first change,
	 * the same window for every source. */
	t->sum.baseline = st->baseline == 2 || (st->baseline == 1 && change != INT64_MAX);
	t->sum.base_from_us = st->baseline == 2 ? st->base_from_us :    /* whole seconds */
	    lbt_bucket_of(t->sum.aligned_us, 1000000) * 1000000;
	t->sum.base_to_us = st->baseline == 2 ? st->base_to_us : change;
	if (t->sum.baseline && t->sum.base_to_us - t->sum.base_from_us <
	    (int64_t)t->o.cp.min_buckets * 1000000)
		t->sum.baseline = 0;     /* too short a window to say who was there */
	t->sum.since_requests = t->sum.baseline ? total_since(t, t->sum.base_to_us) : 0;
	t->sum.sources = st->sources;
	t->sum.header_aside = st->header_aside;
	t->sum.from_header = st->from_header;
	t->sum.from_trusted = st->from_trusted;
	if (n > 0 && (t->src = calloc(n, sizeof *t->src)) == NULL)
		return lbt_err_set(err, "out of memory");
	for (size_t i = 0; i < n; i++) {
		lbt_triage_source *s = &t->src[t->nsrc++];

		s->row = lbt_offenders_row_at(o, i);
		s->index = i;
		weigh_source(t, i, s);
		s->why = why_offends(t, s);
		s->offender = s->why != LBT_TRIAGE_NOT;
		t->sum.offenders += s->offender;
	}
	if (find_prefixes(t) < 0)
		return lbt_err_set(err, "out of memory");
	find_causes(t);
	if (n > 0)
		qsort(t->src, n, sizeof t->src[0], source_cmp);
	t->nsrc_shown = t->sum.offenders + t->o.nsources < n ? t->sum.offenders + t->o.nsources : n;
	return 0;
}

/* Order of frontends: more held time, more full buckets, more requests. */
static int front_cmp(const void *pa, const void *pb)
{
	const lbt_triage_front *a = pa, *b = pb;

	if (a->g->held_tw_ms != b->g->held_tw_ms)
		return a->g->held_tw_ms > b->g->held_tw_ms ? -1 : 1;
	if (a->g->full_buckets != b->g->full_buckets)
		return a->g->full_buckets > b->g->full_buckets ? -1 : 1;
	return (a->g->requests < b->g->requests) - (a->g->requests > b->g->requests);
}

/* The pressure of every (load balancer, frontend).  @return 0 or -1 with err */
static int find_fronts(lbt_triage *t, lbt_err *err)
{
	const lbt_tarpit *tp = t->in.tarpit;
	size_t n = tp ? lbt_tarpit_ngroups(tp) : 0;
	int64_t step = tp ? lbt_tarpit_opts_get(tp)->step_us : 1;
	int64_t now_b = lbt_bucket_of(t->sum.now_us, step);

	if (n > 0 && (t->fronts = calloc(n, sizeof *t->fronts)) == NULL)
		return lbt_err_set(err, "out of memory");
	for (size_t i = 0; i < n; i++) {
		lbt_triage_front *f = &t->fronts[t->nfronts++];
		const lbt_occ_stats *os;

		f->g = lbt_tarpit_group_at(tp, i);
		os = lbt_occ_stats_get(f->g->occ);
		f->held_s = (double)f->g->held_tw_ms / 1000.0;
		f->tarpit_slot_pct = os->slot_us > 0 ? 100.0 * (double)os->tarpit_us /
		    (double)os->slot_us : 0;
		f->tarpit_heavy = f->g->pt >= min_events(t) && f->tarpit_slot_pct >= TARPIT_HEAVY;
		if (f->g->full_buckets == 0)
			continue;
		f->full_from_us = f->g->full_first * step;
		f->full_to_us = (f->g->full_last + 1) * step;
		f->full_now = f->g->full_last >= now_b - 1;
	}
	if (n > 0)
		qsort(t->fronts, n, sizeof t->fronts[0], front_cmp);
	return 0;
}

/* Answers by class: of every request (status rates), of the others than
 * the offenders (their status classes). */
static void find_damage(lbt_triage *t)
{
	const lbt_rate *sr = t->in.statuses;
	lbt_triage_damage *d = &t->dmg;

	for (size_t i = 0; i < lbt_rate_nrows(sr); i++) {
		const lbt_rate_row *r = lbt_rate_row_at(sr, i);
		long code = strtol(r->key, NULL, 10);
		uint64_t n = (uint64_t)r->total;

		d->requests += n;
		d->s429 += code == 429 ? n : 0;
		d->s503 += code == 503 ? n : 0;
		d->s5xx += code >= 500 && code <= 599 ? n : 0;
		d->snone += code == -1 ? n : 0;
	}
	for (size_t i = 0; i < t->nsrc; i++) {
		const lbt_offender *r = t->src[i].row;

		if (t->src[i].offender)
			continue;
		d->legit_sources++;
		d->legit_requests += r->requests;
		d->legit_429 += r->status[LBT_OFF_S429];
		d->legit_5xx += r->status[LBT_OFF_S5XX];
		d->legit_none += r->status[LBT_OFF_SNONE];
	}
}

/* Widen [since, until) to hold [a, b). */
static void widen(lbt_triage_summary *s, int64_t a, int64_t b)
{
	if (a < s->since_us)
		s->since_us = a;
	if (b > s->until_us)
		s->until_us = b;
}

/*
 * Whether a customer is back in its band: its last min_buckets seconds
 * before now hold at most its baseline's count over them plus 3 times its
 * Poisson noise (+1).  One window of min_buckets seconds, not each second:
 * a batch sender's batches are above any per-second band of its mean, but
 * a window as long as the shortest episode holds its batches at their
 * usual count.  The engine keeps an episode of bursts ongoing while
 * they go on at the customer's own level.
 */
static int tail_in_band(const lbt_triage *t, const lbt_triage_source *s)
{
	int64_t origin = 0, now_s = t->sum.now_us / 1000000, sum = 0;
	size_t n = 0, k = t->o.cp.min_buckets > 0 ? t->o.cp.min_buckets : 1;
	int64_t *v;
	double want = s->base_rate * (double)k, band = want + 3 * sqrt(want) + 1;

	if (!t->sum.baseline || !s->prior)
		return 0;
	if ((v = lbt_offenders_seconds(t->in.offenders, s->index, &origin, &n)) == NULL)
		return 0;                /* out of memory: as the engine says */
	for (size_t b = 0; b < n; b++)
		if (origin + (int64_t)b <= now_s && origin + (int64_t)b > now_s - (int64_t)k)
			sum += v[b];
	free(v);
	return now_s - origin >= (int64_t)k && (double)sum <= band;
}

/*
 * An offender that makes the anomaly ongoing: its own rise lasts to the
 * end; without a rise, a customer is back in its band (what it sends now
 * is its baseline), and only a source without a baseline that still sent
 * in the last min_buckets seconds keeps it going.
 */
static int source_ongoing(const lbt_triage *t, const lbt_triage_source *s)
{
	const lbt_offender *r = s->row;

	if (!s->offender)
		return 0;
	if (r->cp.has_main && r->cp.kind == LBT_CP_RISE)
		return r->cp.ongoing && !tail_in_band(t, s) && r->last_us >= t->sum.now_us -
		    (int64_t)t->o.cp.min_buckets * 1000000;
	if (t->sum.baseline && s->prior)
		return 0;
	return r->last_us >= t->sum.now_us - (int64_t)t->o.cp.min_buckets * 1000000;
}

/* The verdict and the anomaly's time span: one decision, which the
 * screen, the document and the exit status all read. */
static void find_verdict(lbt_triage *t)
{
	lbt_triage_summary *s = &t->sum;
	int anomaly = s->offenders > 0, ongoing = 0;

	s->since_us = INT64_MAX;
	s->until_us = INT64_MIN;
	if (s->total.found)
		widen(s, s->total.start_us, s->total.end_us);
	anomaly |= s->total.found;
	ongoing |= s->total.ongoing;
	for (size_t i = 0; i < t->nkeys; i++) {
		widen(s, t->keys[i].rise.start_us, t->keys[i].rise.end_us);
		anomaly = 1;
		ongoing |= t->keys[i].rise.ongoing;
	}
	for (size_t i = 0; i < t->nerrs; i++) {
		widen(s, t->errs[i].rise.start_us, t->errs[i].rise.end_us);
		anomaly = 1;
		ongoing |= t->errs[i].rise.ongoing;
	}
	for (size_t i = 0; i < t->nfronts; i++) {
		anomaly |= t->fronts[i].tarpit_heavy;
		if (t->fronts[i].g->full_buckets == 0)
			continue;
		widen(s, t->fronts[i].full_from_us, t->fronts[i].full_to_us);
		anomaly = 1;
		ongoing |= t->fronts[i].full_now;
	}
	for (size_t i = 0; i < t->nsrc; i++)
		ongoing |= source_ongoing(t, &t->src[i]);
	if (anomaly && s->since_us == INT64_MAX)    /* offenders or tarpit alone */
		widen(s, s->baseline ? s->base_to_us : s->first_us, s->last_us);
	s->verdict = s->records == 0 || s->requests == 0 ? LBT_TRIAGE_NO_RECORDS :
	    ongoing ? LBT_TRIAGE_ONGOING : anomaly ? LBT_TRIAGE_OVER :
	    s->unread > 0 ? LBT_TRIAGE_UNREAD : LBT_TRIAGE_CALM;   /* calm on what was read */
	if (s->verdict == LBT_TRIAGE_ONGOING)      /* the span says what the verdict says */
		s->until_us = s->now_us > s->until_us ? s->now_us : s->until_us;
}

/* Build everything from the finished analyses of in.  @return 0 or -1 with err */
int lbt_triage_build(lbt_triage *t, const lbt_triage_input *in, lbt_err *err)
{
	if (t->built)
		return lbt_err_set(err, "lbt_triage_build called twice");
	if (in->keys == NULL || in->statuses == NULL || in->offenders == NULL)
		return lbt_err_set(err, "triage: the key, status and offenders analyses are needed");
	t->built = 1;
	t->in = *in;
	t->sum.lines = in->lines;
	t->sum.unread = in->unread;
	t->sum.records = lbt_rate_stats_get(in->statuses)->records;
	t->sum.requests = lbt_offenders_stats_get(in->offenders)->counted;   /* a time, a client */
	if (t->sum.requests == 0)                                   /* else a time, a status */
		t->sum.requests = lbt_rate_stats_get(in->statuses)->counted;
	find_span(t);
	if (t->sum.requests == 0) {
		t->sum.verdict = LBT_TRIAGE_NO_RECORDS;
		return 0;
	}
	if (find_rises(t, err) < 0 || find_sources(t, err) < 0 || find_fronts(t, err) < 0)
		return -1;
	find_damage(t);
	if (lbt_judgei_remedy(t, err) < 0)
		return -1;
	find_verdict(t);
	return 0;
}

/* The summary and verdict. */
const lbt_triage_summary *lbt_triage_summary_get(const lbt_triage *t)
{
	return &t->sum;
}

/* How many hot keys. */
size_t lbt_triage_nkeys(const lbt_triage *t)
{
	return t->nkeys;
}

/* How many sources are shown: the offenders and opts.nsources others. */
size_t lbt_triage_nsources(const lbt_triage *t)
{
	return t->nsrc_shown;
}

/* How many (load balancer, frontend) groups. */
size_t lbt_triage_nfronts(const lbt_triage *t)
{
	return t->nfronts;
}

/* The answers by class. */
const lbt_triage_damage *lbt_triage_damage_get(const lbt_triage *t)
{
	return &t->dmg;
}

/* The options t was made with. */
const lbt_triage_opts *lbt_triage_opts_get(const lbt_triage *t)
{
	return &t->o;
}

/* How many aggregate prefixes. */
size_t lbt_triage_nprefixes(const lbt_triage *t)
{
	return t->nprefixes;
}

/* Aggregate prefix i (< lbt_triage_nprefixes). */
const lbt_triage_prefix *lbt_triage_prefix_at(const lbt_triage *t, size_t i)
{
	return i < t->nprefixes ? &t->prefixes[i] : NULL;
}

/* The analyses read. */
const lbt_triage_input *lbt_triage_input_get(const lbt_triage *t)
{
	return &t->in;
}

/* Whether lbt_triage_build ran. */
int lbt_triage_built(const lbt_triage *t)
{
	return t->built;
}

/* How many rises of error statuses. */
size_t lbt_triage_nerrors(const lbt_triage *t)
{
	return t->nerrs;
}

/* Rise of error status i (< lbt_triage_nerrors). */
const lbt_triage_key *lbt_triage_error_at(const lbt_triage *t, size_t i)
{
	return i < t->nerrs ? &t->errs[i] : NULL;
}

/* Hot key i (< lbt_triage_nkeys). */
const lbt_triage_key *lbt_triage_key_at(const lbt_triage *t, size_t i)
{
	return i < t->nkeys ? &t->keys[i] : NULL;
}

/* Source i (< lbt_triage_nsources). */
const lbt_triage_source *lbt_triage_source_at(const lbt_triage *t, size_t i)
{
	return i < t->nsrc_shown ? &t->src[i] : NULL;
}

/* Frontend i (< lbt_triage_nfronts). */
const lbt_triage_front *lbt_triage_front_at(const lbt_triage *t, size_t i)
{
	return i < t->nfronts ? &t->fronts[i] : NULL;
}

/* The cause's name in --json. */
const char *lbt_triage_cause_name(lbt_triage_cause c)
{
	static const char *const name[] = { "none", "flood", "customer", "surge", "prefix",
		"slow" };

	return (unsigned)c < 6 ? name[c] : "?";
}

/* The verdict's name in --json. */
const char *lbt_triage_verdict_name(lbt_triage_verdict v)
{
	static const char *const name[] = { "no-records", "calm", "over", "ongoing", "unread" };

	return (unsigned)v < sizeof name / sizeof name[0] ? name[v] : "?";
}
