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
#include "lbt/offenders_report.h"
#include "lbt/series.h"
#include "lbt/timeparse.h"
#include "lbt/vec.h"
#include "triage_int.h"

/* Longest series the rises are looked for in: 32 days of seconds. */
#define MAX_BUCKETS (32 * 86400)
#define MAX_ERRORS 4       /* rises of error statuses kept */
#define TARPIT_HEAVY 50.0  /* % of the slot time held by the tarpit: an anomaly */

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

/* First and latest record with a time: the input's span, read by the
 * status analysis from every record (never from the sources, which a
 * budget may have dropped). */
static void find_span(lbt_triage *t)
{
	const lbt_rate_stats *st = lbt_rate_stats_get(t->in.statuses);
	lbt_triage_summary *s = &t->sum;

	s->first_us = st->first_us;
	s->last_us = st->last_us;
	s->now_us = t->o.now_us != 0 ? t->o.now_us : s->last_us;
}

/* The buckets the rises are looked for in: *b0 .. *b0 + *n - 1, from the
 * first second of the input to now.  @return 0, or -1 with err */
static int series_range(const lbt_triage *t, int64_t *b0, size_t *n, lbt_err *err)
{
	int64_t step = lbt_rate_step(t->in.statuses);
	int64_t last = lbt_bucket_of(t->sum.now_us, step);

	*b0 = lbt_bucket_of(t->sum.first_us, step);
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
	return lbt_triagei_rise(&t->o.cp, v, n, b0, step, t->sum.now_us, r);
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
 * Whether source s offends, and why: a share of min_share or more and
 * min_events requests or more, and new or min_ratio times its baseline,
 * or refused by the proxy's own limits for half of its requests or more
 * (the larger of its 429 answers and its tarpitted requests: never
 * counted twice when the tarpit answers 429).
 */
static lbt_triage_why why_offends(const lbt_triage *t, const lbt_triage_source *s)
{
	const lbt_offender *r = s->row;
	uint64_t refused = r->status[LBT_OFF_S429] > r->tarpitted ? r->status[LBT_OFF_S429] :
	    r->tarpitted;

	if (s->share < t->o.min_share || r->requests < min_events(t))
		return LBT_TRIAGE_NOT;
	if (t->sum.baseline && r->cp.is_new)
		return LBT_TRIAGE_NEW;
	if (t->sum.baseline && r->cp.has_ratio && r->cp.ratio >= t->o.min_ratio)
		return LBT_TRIAGE_RATIO;
	return r->requests > 0 && 2 * refused >= r->requests ? LBT_TRIAGE_REFUSED : LBT_TRIAGE_NOT;
}

/* A source's rate since its change: the mean of its main rise, else its
 * baseline (nothing changed); req/s. */
static double rate_now(const lbt_offender *r)
{
	if (r->cp.has_main && r->cp.kind == LBT_CP_RISE)
		return r->cp.mean_rate;
	return r->cp.baseline;
}

/* Every source with its share since the jump, and whether it offends.
 * @return 0 or -1 with err */
static int find_sources(lbt_triage *t, lbt_err *err)
{
	const lbt_offenders *o = t->in.offenders;
	const lbt_offenders_stats *st = lbt_offenders_stats_get(o);
	size_t n = lbt_offenders_nrows(o);
	double now_sum = 0;

	/* Shares and ratios compare with before the jump: the --baseline
	 * window, else the rise of the total rate (each source's ratio is to
	 * its own rate before its own change, changepoint.h). */
	t->sum.baseline = st->baseline == 2 || (st->baseline == 1 && t->sum.total.found);
	t->sum.base_from_us = st->baseline == 2 ? st->base_from_us : t->sum.first_us;
	t->sum.base_to_us = st->baseline == 2 ? st->base_to_us : t->sum.total.start_us;
	t->sum.sources = st->sources;
	t->sum.header_aside = st->header_aside;
	t->sum.from_header = st->from_header;
	t->sum.from_trusted = st->from_trusted;
	if (n > 0 && (t->src = calloc(n, sizeof *t->src)) == NULL)
		return lbt_err_set(err, "out of memory");
	for (size_t i = 0; i < n; i++)
		now_sum += rate_now(lbt_offenders_row_at(o, i));
	for (size_t i = 0; i < n; i++) {
		lbt_triage_source *s = &t->src[t->nsrc++];
		const lbt_offender *r = lbt_offenders_row_at(o, i);

		s->row = r;
		s->share = t->sum.baseline && now_sum > 0 ? 100.0 * rate_now(r) / now_sum : r->share;
		s->why = why_offends(t, s);
		s->offender = s->why != LBT_TRIAGE_NOT;
		t->sum.offenders += s->offender;
	}
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

/* The verdict and the anomaly's time span. */
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
	for (size_t i = 0; i < t->nsrc; i++)         /* an offender still sending */
		ongoing |= t->src[i].offender && t->src[i].row->last_us >= s->now_us -
		    (int64_t)t->o.cp.min_buckets * 1000000;
	if (anomaly && s->since_us == INT64_MAX)    /* offenders or tarpit alone */
		widen(s, s->baseline ? s->base_to_us : s->first_us, s->last_us);
	s->verdict = s->records == 0 || s->requests == 0 ? LBT_TRIAGE_NO_RECORDS :
	    ongoing ? LBT_TRIAGE_ONGOING : anomaly ? LBT_TRIAGE_OVER :
	    s->unread > 0 ? LBT_TRIAGE_UNREAD : LBT_TRIAGE_CALM;   /* calm on what was read */
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
	if (lbt_triagei_rule(t, err) < 0)
		return -1;
	find_verdict(t);
	return 0;
}

/* "HH:MM:SS" on the UTC day of now (or of the latest request, when later),
 * "MM-DD HH:MM:SS" on another day: the times at 00:11 stay short. */
const char *lbt_triagei_clock(const lbt_triage *t, int64_t us, char *buf, size_t size)
{
	char iso[48], today[48];

	lbt_time_format_s(t->sum.now_us > t->sum.last_us ? t->sum.now_us : t->sum.last_us,
	    today, sizeof today);
	lbt_time_format_s(us - us % 1000000, iso, sizeof iso);
	if (strlen(iso) < 19)
		snprintf(buf, size, "%s", iso);
	else if (strncmp(iso, today, 10) == 0)
		snprintf(buf, size, "%.8s", iso + 11);
	else
		snprintf(buf, size, "%.5s %.8s", iso + 5, iso + 11);
	return buf;
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

/* A budget's approximation into a: "what" dropped, note from lbt_budget_note.
 * @return 1 when it dropped some, else 0. */
static int budget_approx(const lbt_budget *b, const char *what, lbt_triage_approx *a)
{
	if (!lbt_budget_note(b, what, "requests", a->note, sizeof a->note))
		return 0;
	a->what = what;
	a->dropped = b->dropped;
	a->at_most = b->floor;
	return 1;
}

/* The approximation of the sources: dropped over budget, or not every one
 * ranked.  @return 1 with a, or 0. */
static int sources_approx(const lbt_triage *t, int ranked, lbt_triage_approx *a)
{
	const lbt_offenders *o = t->in.offenders;
	const lbt_offenders_stats *st = lbt_offenders_stats_get(o);
	size_t n = lbt_offenders_nrows(o);

	if (!ranked) {
		if (!lbt_offenders_report_approx(o, a->note, sizeof a->note))
			return 0;
		a->what = "sources";
		a->dropped = st->dropped;
		a->at_most = st->floor;
		return 1;
	}
	if (n >= st->kept)
		return 0;
	a->what = "ranked sources";
	a->dropped = st->kept - n;
	a->at_most = n > 0 ? lbt_offenders_row_at(o, n - 1)->requests : 0;
	snprintf(a->note, sizeof a->note, "over --max-memory: the %zu sources of most requests "
	    "of %zu were ranked; the %llu others (at most %llu requests each) are in "
	    "the totals, not in the shares since the jump", n, st->kept,
	    (unsigned long long)a->dropped, (unsigned long long)a->at_most);
	return 1;
}

/* Approximation i (see triage.h).  @return 1 with a, or 0 past the last. */
int lbt_triage_approx_at(const lbt_triage *t, size_t i, lbt_triage_approx *a)
{
	size_t k = 0;

	for (int j = 0; j < 5; j++) {
		int has;

		memset(a, 0, sizeof *a);
		switch (j) {
		case 0: has = sources_approx(t, 0, a); break;
		case 1: has = sources_approx(t, 1, a); break;
		case 2: has = budget_approx(&lbt_rate_stats_get(t->in.keys)->budget, "keys", a);
			break;
		case 3: has = budget_approx(&lbt_rate_stats_get(t->in.statuses)->budget,
			    "statuses", a);
			break;
		default: has = budget_approx(&lbt_tarpit_stats_get(t->in.tarpit)->budget,
			    "tarpit sources", a);
			break;
		}
		if (has && k++ == i)
			return 1;
	}
	return 0;
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

/* The verdict's name in --json. */
const char *lbt_triage_verdict_name(lbt_triage_verdict v)
{
	static const char *const name[] = { "no-records", "calm", "over", "ongoing", "unread" };

	return (unsigned)v < sizeof name / sizeof name[0] ? name[v] : "?";
}
