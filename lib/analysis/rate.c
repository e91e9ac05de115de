/*
 * rate.c - request rates per key over time (see rate.h).
 *
 * One hash map (hmap.h) from key bytes to a `struct keyval` holding the
 * key's sparse series; one more series counts every key together, which
 * gives the span of the input and the total rate.  Keys that are numbers or
 * addresses (status, src, net) are hashed in binary and turned into text
 * only for the rows printed.  Per record: one map lookup, one count in the
 * key's window of buckets (moved to its series now and then, see WIN) and
 * one series bucket for the total; no allocation unless the key or the
 * bucket is new.
 *
 * Keys come from the log (UUIDs, paths, Hosts, addresses): past
 * --max-memory (budget.h) the keys of the smallest totals are dropped in
 * batches, the floor bounding what a key counted afterwards may have lost
 * (its err); the series of every key together is never pruned, so the
 * span and the total rate stay the input's.
 */
#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_int.h"
#include "lbt/hmap.h"
#include "lbt/num.h"
#include "lbt/rate.h"
#include "lbt/topn.h"

/*
 * Buckets a key counts in its keyval before they go to its series.  Each
 * key has a series table of its own: with thousands of keys, adding to it
 * on every record missed the cache (and the TLB) about once a record.
 * Counting a window of WIN buckets in the keyval, which the map lookup has
 * just brought in, and moving it to the series when the window moves (or
 * in finish) gives the same series.  Measured with bench/genlog.sh (1 M
 * lines, 2000 keys), lbt-rate user time, best of 8: 0.41 s -> 0.38 s.
 */
#define WIN 8

/* Records between two looks at the budget. */
#define BUDGET_EVERY 4096

struct keyval {
	lbt_series *s;
	int64_t total;
	int64_t err;                /* the floor when it was created (budget.h) */
	int64_t win;                /* first bucket of the window (a multiple of WIN) */
	int32_t pend[WIN];          /* counts of the window not yet in s */
	int64_t peak_bucket, peak_count;
	int64_t first, last;
};

/* A row and what it needs beyond the public part. */
struct row {
	lbt_rate_row pub;
	const struct keyval *kv;
	lbt_cp_result cp;           /* bucket index k = bucket origin + k */
	char text[LBT_ADDR_STRLEN];
};

struct lbt_rate {
	lbt_rate_opts o;
	lbt_hmap *keys;             /* key bytes -> struct keyval */
	lbt_series *all;            /* every key together */
	int64_t origin;             /* first bucket of the input (after finish) */
	struct row *rows;
	size_t nrows;
	lbt_rate_stats st;
	size_t sbytes;              /* bytes of the keys' series (the budget's estimate) */
	int failed;                 /* out of memory during add() */
	int finished;
};

/* --by names, in enum order, with the record field each one reads. */
static const struct {
	const char *name;
	lbt_field field;
} by_tab[] = {
	{ "key", LBT_F_KEY },           { "path", LBT_F_PATH },
	{ "host", LBT_F_HOST },         { "src", LBT_F_CLIENT },
	{ "net", LBT_F_CLIENT },        { "status", LBT_F_STATUS },
	{ "term", LBT_F_TERM },         { "frontend", LBT_F_FRONTEND },
	{ "backend", LBT_F_BACKEND },   { "server", LBT_F_SERVER },
	{ "lb", LBT_F_LB },
};

#define NBY (sizeof by_tab / sizeof by_tab[0])

/* --by text to the enum.  @return 0, or -1 with err listing the values. */
int lbt_rate_by_parse(const char *s, lbt_rate_by *by, lbt_err *err)
{
	for (size_t i = 0; i < NBY; i++)
		if (strcmp(s, by_tab[i].name) == 0) {
			*by = (lbt_rate_by)i;
			return 0;
		}
	return lbt_err_set(err, "--by: '%s' is not one of key, path, host, src, net, status, "
	    "term, frontend, backend, server, lb", s);
}

/* @return the --by name of a value ("key" for an unknown one). */
const char *lbt_rate_by_name(lbt_rate_by by)
{
	return (size_t)by < NBY ? by_tab[by].name : "key";
}

/* --rank text to the enum.  @return 0, or -1 with err. */
int lbt_rate_rank_parse(const char *s, lbt_rate_rank *rank, lbt_err *err)
{
	if (strcmp(s, "peak") == 0)
		*rank = LBT_RATE_RANK_PEAK;
	else if (strcmp(s, "total") == 0)
		*rank = LBT_RATE_RANK_TOTAL;
	else
		return lbt_err_set(err, "--rank: '%s' is not one of peak, total", s);
	return 0;
}

/* lbt_cli_fn for --by.  @return 0 or -1 with err. */
int lbt_rate_opt_by(void *opts, const char *arg, lbt_err *err)
{
	return lbt_rate_by_parse(arg, &((lbt_rate_opts *)opts)->by, err);
}

/* lbt_cli_fn for --rank.  @return 0 or -1 with err. */
int lbt_rate_opt_rank(void *opts, const char *arg, lbt_err *err)
{
	return lbt_rate_rank_parse(arg, &((lbt_rate_opts *)opts)->rank, err);
}

/* @return the fields read: the time and the --by field. */
uint64_t lbt_rate_fields(const lbt_rate *r)
{
	uint64_t m = LBT_BIT(LBT_F_TIME) | LBT_BIT(by_tab[r->o.by].field);

	return r->o.by == LBT_RATE_BY_LB && r->o.name_inputs ? m | LBT_BIT(LBT_F_FILE) : m;
}

/* Check option values.  @return 0 or -1 with err. */
static int check_opts(const lbt_rate_opts *o, lbt_err *err)
{
	if ((size_t)o->by >= NBY)
		return lbt_err_set(err, "--by: unknown value %d", (int)o->by);
	if (o->step_us <= 0)
		return lbt_err_set(err, "--step: must be positive");
	if (o->jump_min_us < 0)
		return lbt_err_set(err, "--jump-min: must not be negative");
	return lbt_cp_opts_check(&o->cp, err);
}

/* An empty accumulator for checked options.  @return it, or NULL with err. */
lbt_rate *lbt_rate_new(const lbt_rate_opts *o, lbt_err *err)
{
	lbt_rate *r;

	if (check_opts(o, err) < 0)
		return NULL;
	if ((r = calloc(1, sizeof(*r))) == NULL) {
		lbt_err_set(err, "out of memory");
		return NULL;
	}
	r->o = *o;
	r->st.first_us = INT64_MAX;
	r->st.last_us = INT64_MIN;
	r->st.budget.max = o->max_memory;
	r->o.cp.min_buckets = lbt_cp_buckets(o->jump_min_us, o->step_us);
	r->keys = lbt_hmap_new(sizeof(struct keyval));
	r->all = lbt_series_new(o->step_us);
	if (r->keys == NULL || r->all == NULL) {
		lbt_rate_free(r);
		lbt_err_set(err, "out of memory");
		return NULL;
	}
	return r;
}

/* Scratch for binary keys. */
union keybuf {
	lbt_addr a;
	int32_t i;
};

/*
 * The key bytes of rec under the --by of r, in *p and *n (pointing into rec or kb).
 * @return 0, or -1 when the record lacks the field.
 */
static int key_of(const lbt_rate *r, const lbt_rec *rec, union keybuf *kb, const void **p,
    size_t *n)
{
	lbt_field f = by_tab[r->o.by].field;
	lbt_str s;

	if (r->o.by == LBT_RATE_BY_LB && r->o.name_inputs) {
		s = lbt_rec_lb_or_input(rec);
		*p = s.p;
		*n = s.n;
		return s.p != NULL ? 0 : -1;
	}
	if (!(rec->have & LBT_BIT(f)))
		return -1;
	switch (r->o.by) {
	case LBT_RATE_BY_SRC:
	case LBT_RATE_BY_NET:
		if (lbt_netgroup_of(&r->o.net, &rec->client, &kb->a, NULL) < 0)
			return -1;
		if (r->o.by == LBT_RATE_BY_SRC)
			kb->a = rec->client;
		*p = &kb->a;
		*n = sizeof(kb->a);
		return 0;
	case LBT_RATE_BY_STATUS:
		kb->i = rec->status;
		*p = &kb->i;
		*n = sizeof(kb->i);
		return 0;
	default:
		s = *lbt_rec_str((lbt_rec *)rec, f);
		*p = s.p ? s.p : "";
		*n = s.n;
		return 0;
	}
}

/* Move the window's counts into the key's series.  @return 0, or -1 when out of memory. */
static int kv_flush(struct keyval *kv)
{
	for (int i = 0; i < WIN; i++) {
		if (kv->pend[i] != 0 && lbt_series_add_bucket(kv->s, kv->win + i, kv->pend[i]) < 0)
			return -1;
		kv->pend[i] = 0;
	}
	return 0;
}

/*
 * Count one record of kv in bucket b, in the window (moved to b's first);
 * the reserved bucket INT64_MIN goes to the series, which refuses it.
 * @return 0, or -1 when out of memory.
 */
static int kv_count(struct keyval *kv, int64_t b)
{
	int64_t w;

	if (b == INT64_MIN)
		return lbt_series_add_bucket(kv->s, b, 1);
	w = b - ((b % WIN) + WIN) % WIN;
	if (w != kv->win || kv->pend[b - w] == INT32_MAX) {
		if (kv_flush(kv) < 0)
			return -1;
		kv->win = w;
	}
	kv->pend[b - w]++;
	return 0;
}

/* Widen the span in st to [first, last]. */
static void see_time(lbt_rate_stats *st, int64_t first, int64_t last)
{
	if (first < st->first_us)
		st->first_us = first;
	if (last > st->last_us)
		st->last_us = last;
}

/* @return what key e may have counted at most (lbt_budget_weight_fn). */
static uint64_t key_weight(const lbt_hmap_entry *e, void *ctx)
{
	const struct keyval *kv = e->val;

	(void)ctx;
	return (uint64_t)(kv->total + kv->err);
}

/* Free a dropped key's series and take it out of the estimate (lbt_budget_drop_fn). */
static void key_drop(const lbt_hmap_entry *e, void *ctx)
{
	lbt_rate *r = ctx;
	struct keyval *kv = e->val;

	r->sbytes -= lbt_series_bytes(kv->s);
	lbt_series_free(kv->s);
}

/* Drop the lightest keys when the map and the series pass the budget,
 * looked at every BUDGET_EVERY records (always when `now`).
 * @return 0, or -1 when out of memory. */
static int budget_check(lbt_rate *r, int now)
{
	size_t bytes = lbt_hmap_bytes(r->keys) + r->sbytes;

	if (!lbt_budget_due(&r->st.budget, now ? 0 : r->st.counted, BUDGET_EVERY, bytes))
		return 0;
	return lbt_budget_prune(&r->st.budget, &r->keys, 0, sizeof(struct keyval), key_weight,
	    key_drop, r);
}

/* Count rec in its key's bucket and in the total.  @return 0, or -1 when
 * out of memory (sticky). */
int lbt_rate_add(lbt_rate *r, const lbt_rec *rec)
{
	union keybuf kb;
	const void *p;
	size_t n;
	struct keyval *kv;
	int created;
	size_t before = 0;

	r->st.records++;
	if (r->failed)
		return -1;
	if (!(rec->have & LBT_BIT(LBT_F_TIME))) {
		r->st.no_time++;
		return 0;
	}
	see_time(&r->st, rec->time_us, rec->time_us);
	if (key_of(r, rec, &kb, &p, &n) < 0) {
		r->st.no_key++;
		return 0;
	}
	if ((kv = lbt_hmap_put(r->keys, p, n, &created)) == NULL)
		return r->failed = -1;
	if (created) {
		if ((kv->s = lbt_series_new(r->o.step_us)) == NULL)
			return r->failed = -1;
		kv->err = (int64_t)r->st.budget.floor;  /* it may have been dropped with as many */
	} else
		before = lbt_series_bytes(kv->s);
	if (kv_count(kv, lbt_bucket_of(rec->time_us, r->o.step_us)) < 0 ||
	    lbt_series_add(r->all, rec->time_us, 1) < 0)
		return r->failed = -1;
	r->sbytes += lbt_series_bytes(kv->s) - before;
	kv->total++;
	r->st.counted++;
	if (budget_check(r, 0) < 0)
		return r->failed = -1;
	return 0;
}

/* An empty accumulator with r's options.  @return it, or NULL with err. */
lbt_rate *lbt_rate_spawn(const lbt_rate *r, lbt_err *err)
{
	return lbt_rate_new(&r->o, err);
}

/* Fold src's key kv (window flushed) into r.  @return 0, or -1 when out of memory. */
static int merge_key(lbt_rate *r, const lbt_hmap_entry *e)
{
	struct keyval *from = e->val, *kv;
	int created;

	size_t before;

	if (kv_flush(from) < 0 || (kv = lbt_hmap_put(r->keys, e->key, e->klen, &created)) == NULL)
		return -1;
	kv->total += from->total;
	kv->err += from->err;
	if (created) {                  /* take the series over */
		kv->s = from->s;
		kv->err += (int64_t)r->st.budget.floor;   /* it may have sent that in r's part */
		from->s = NULL;
		r->sbytes += lbt_series_bytes(kv->s);
		return 0;
	}
	before = lbt_series_bytes(kv->s);
	if (kv_flush(kv) < 0 || lbt_series_merge(kv->s, from->s) < 0)
		return -1;                  /* flushed first: its window is older than src's
	                                   buckets, which stay appended in order (a run) */
	r->sbytes += lbt_series_bytes(kv->s) - before;
	lbt_series_free(from->s);       /* src is consumed: its memory goes as its keys */
	from->s = NULL;                 /* merge, not at the end (peak memory of threads) */
	return 0;
}

/* Every key of r that src does not hold may have sent src's floor in src's
 * part. */
static void widen_missing(lbt_rate *r, const lbt_rate *src)
{
	lbt_hmap_entry e;

	for (size_t i = 0; i < lbt_hmap_count(r->keys); i++) {
		lbt_hmap_at(r->keys, i, &e);
		if (lbt_hmap_get(src->keys, e.key, e.klen) == NULL)
			((struct keyval *)e.val)->err += (int64_t)src->st.budget.floor;
	}
}

/*
 * Merge src into r (see analysis.h): every key's buckets and total, the
 * series of every key together, the counters.  Every row is computed by
 * finish() from these sums, so the merge is exact.  src is consumed.
 * @return 0, or -1 with err.
 */
int lbt_rate_merge(lbt_rate *r, lbt_rate *src, lbt_err *err)
{
	lbt_hmap_entry e;
	int same = r->o.by == src->o.by && r->o.step_us == src->o.step_us &&
	    r->o.net.v4_bits == src->o.net.v4_bits && r->o.net.v6_bits == src->o.net.v6_bits;

	/* The precondition (analysis.h): a bug of the caller, refused with an
	 * error too when NDEBUG drops the asserts. */
	assert(r != src && !r->finished && !src->finished);
	assert(same);
	if (r->finished || src->finished)
		return lbt_err_set(err, "rate: merge after finish");
	if (!same)
		return lbt_err_set(err, "rate: merge of accumulators with different options");
	r->st.records += src->st.records;
	r->st.counted += src->st.counted;
	r->st.no_key += src->st.no_key;
	r->st.no_time += src->st.no_time;
	see_time(&r->st, src->st.first_us, src->st.last_us);
	if (src->st.budget.floor > 0)
		widen_missing(r, src);
	if (src->failed)
		r->failed = -1;
	for (size_t i = 0; i < lbt_hmap_count(src->keys) && !r->failed; i++) {
		lbt_hmap_at(src->keys, i, &e);
		if (merge_key(r, &e) < 0)
			r->failed = -1;
	}
	if (!r->failed && lbt_series_merge(r->all, src->all) < 0)
		r->failed = -1;
	lbt_budget_merge(&r->st.budget, &src->st.budget);   /* after the keys: see merge_key */
	if (!r->failed && budget_check(r, 1) < 0)
		r->failed = -1;
	return r->failed ? lbt_err_set(err, "out of memory") : 0;
}

/* The analysis.h vtable and lbt_rate_analysis() (analysis_int.h). */
LBT_ANALYSIS_DEFINE(rate, 0)

/* Ranking order of two keys under r->o.rank; key bytes break ties. */
static int rank_cmp(const lbt_hmap_entry *a, const lbt_hmap_entry *b, void *ctx)
{
	const lbt_rate *r = ctx;
	const struct keyval *x = a->val, *y = b->val;
	int64_t k1 = r->o.rank == LBT_RATE_RANK_PEAK ? x->peak_count : x->total;
	int64_t k2 = r->o.rank == LBT_RATE_RANK_PEAK ? y->peak_count : y->total;
	int64_t l1 = r->o.rank == LBT_RATE_RANK_PEAK ? x->total : x->peak_count;
	int64_t l2 = r->o.rank == LBT_RATE_RANK_PEAK ? y->total : y->peak_count;
	size_t n = a->klen < b->klen ? a->klen : b->klen;
	int c;

	if (k1 != k2)
		return k1 > k2 ? -1 : 1;
	if (l1 != l2)
		return l1 > l2 ? -1 : 1;
	if ((c = memcmp(a->key, b->key, n)) != 0)
		return c;
	return (a->klen > b->klen) - (a->klen < b->klen);
}

/* Text form of a key into row->text, or a pointer to the map's copy. */
static void key_text(const lbt_rate *r, const lbt_hmap_entry *e, struct row *row)
{
	const void *k = e->key;

	switch (r->o.by) {
	case LBT_RATE_BY_SRC:
		lbt_addr_format(k, row->text, sizeof row->text);
		break;
	case LBT_RATE_BY_NET:
		lbt_netgroup_format(&r->o.net, k, row->text, sizeof row->text);
		break;
	case LBT_RATE_BY_STATUS: {
		int32_t st;

		memcpy(&st, k, sizeof st);
		snprintf(row->text, sizeof row->text, "%d", (int)st);
		break;
	}
	default:
		row->pub.key = e->key;
		return;
	}
	row->pub.key = row->text;
}

/*
 * Baseline and episodes of one row, over the input's span [origin, glast]:
 * the key's buckets as a dense array, one row at a time.
 * @return 0 or -1 (out of memory).
 */
static int row_changes(const lbt_rate *r, struct row *row, int64_t glast)
{
	int64_t *v = lbt_series_dense(row->kv->s, r->origin, glast);
	int rc;

	if (v == NULL)
		return -1;
	rc = lbt_cp_find(v, (size_t)(glast - r->origin + 1), (double)r->o.step_us / 1e6,
	    &r->o.cp, &row->cp);
	free(v);
	if (rc < 0)
		return -1;
	row->pub.cp = lbt_cp_summarize(&row->cp, r->origin);
	return 0;
}

/* Fill one row from a ranked entry.  @return 0 or -1 (out of memory). */
static int fill_row(const lbt_rate *r, const lbt_hmap_entry *e, struct row *row,
    int64_t glast)
{
	const struct keyval *kv = e->val;

	memset(row, 0, sizeof(*row));
	row->kv = kv;
	key_text(r, e, row);
	row->pub.total = kv->total;
	row->pub.total_err = kv->err;
	row->pub.first = kv->first;
	row->pub.last = kv->last;
	row->pub.peak_bucket = kv->peak_bucket;
	row->pub.peak_count = kv->peak_count;
	row->pub.peak_rate = (double)kv->peak_count * 1e6 / (double)r->o.step_us;
	return row_changes(r, row, glast);
}

/* Peak and span of every key (needed to rank them), windows moved to the
 * series first.  @return 0, or -1 when out of memory. */
static int measure_keys(lbt_rate *r)
{
	size_t n = lbt_hmap_count(r->keys);
	lbt_hmap_entry e;

	r->st.keys = n;
	for (size_t i = 0; i < n; i++) {
		struct keyval *kv;

		lbt_hmap_at(r->keys, i, &e);
		kv = e.val;
		if (kv_flush(kv) < 0)
			return -1;
		lbt_series_peak(kv->s, &kv->peak_bucket, &kv->peak_count);
		lbt_series_span(kv->s, &kv->first, &kv->last);
		r->st.buckets += lbt_series_nbuckets(kv->s);
	}
	return 0;
}

/* Measure, rank and fill the top rows once.  @return 0, or -1 with err. */
int lbt_rate_finish(lbt_rate *r, lbt_err *err)
{
	lbt_hmap_entry *sorted;
	size_t want;
	int64_t gfirst, glast;

	if (r->failed)
		return lbt_err_set(err, "out of memory");
	if (r->finished)
		return 0;
	r->finished = 1;
	if (measure_keys(r) < 0)
		return lbt_err_set(err, "out of memory");
	if ((sorted = lbt_hmap_top(r->keys, r->o.top, rank_cmp, NULL, r, &want, NULL)) == NULL)
		return lbt_err_set(err, "out of memory");
	if (want > 0 && (r->rows = calloc(want, sizeof(*r->rows))) == NULL) {
		free(sorted);
		return lbt_err_set(err, "out of memory");
	}
	lbt_series_span(r->all, &gfirst, &glast);
	r->origin = gfirst;
	for (size_t i = 0; i < want; i++) {
		if (fill_row(r, &sorted[i], &r->rows[i], glast) < 0) {
			free(sorted);
			return lbt_err_set(err, "out of memory");
		}
		r->nrows = i + 1;
	}
	free(sorted);
	return 0;
}

/* @return the number of rows after finish(). */
size_t lbt_rate_nrows(const lbt_rate *r)
{
	return r->nrows;
}

/* @return row i, or NULL past the end. */
const lbt_rate_row *lbt_rate_row_at(const lbt_rate *r, size_t i)
{
	return i < r->nrows ? &r->rows[i].pub : NULL;
}

/* First and last bucket of every key together.  @return 0, or -1 when empty. */
int lbt_rate_span(const lbt_rate *r, int64_t *first, int64_t *last)
{
	return lbt_series_span(r->all, first, last);
}

/* @return row i's change points with their origin bucket, or NULL. */
const lbt_cp_result *lbt_rate_changes(const lbt_rate *r, size_t i, int64_t *origin)
{
	if (i >= r->nrows)
		return NULL;
	*origin = r->origin;
	return &r->rows[i].cp;
}

/* @return row i's count in bucket b (0 for a bad row). */
int64_t lbt_rate_count(const lbt_rate *r, size_t i, int64_t b)
{
	return i < r->nrows ? lbt_series_get(r->rows[i].kv->s, b) : 0;
}

/* @return every key's count in bucket b. */
int64_t lbt_rate_total_count(const lbt_rate *r, int64_t b)
{
	return lbt_series_get(r->all, b);
}

/* Sparkline of row i over the input's span.  @return bytes written, 0
 * when there is nothing or no memory. */
size_t lbt_rate_sparkline(const lbt_rate *r, size_t i, size_t width, char *buf, size_t size)
{
	int64_t first, last, *v;
	size_t len;

	if (size > 0)
		buf[0] = '\0';
	if (i >= r->nrows || lbt_series_span(r->all, &first, &last) < 0)
		return 0;
	if ((v = lbt_series_dense(r->rows[i].kv->s, first, last)) == NULL)
		return 0;
	len = lbt_sparkline(v, (size_t)(last - first + 1), width, buf, size);
	free(v);
	return len;
}

/* @return the bucket width in µs. */
int64_t lbt_rate_step(const lbt_rate *r)
{
	return r->o.step_us;
}

/* @return the options r was made with. */
const lbt_rate_opts *lbt_rate_opts_get(const lbt_rate *r)
{
	return &r->o;
}

/* @return the counters (owned by r). */
const lbt_rate_stats *lbt_rate_stats_get(const lbt_rate *r)
{
	return &r->st;
}

/* Bytes of every key's series and of the total's (rate.h). */
size_t lbt_rate_bytes(const lbt_rate *r)
{
	lbt_hmap_entry e;
	size_t n = lbt_series_bytes(r->all);

	for (size_t i = 0; i < lbt_hmap_count(r->keys); i++) {
		lbt_hmap_at(r->keys, i, &e);
		n += lbt_series_bytes(((struct keyval *)e.val)->s);
	}
	return n;
}

/* Free every key's series, the maps and the rows; NULL accepted. */
void lbt_rate_free(lbt_rate *r)
{
	size_t n;
	lbt_hmap_entry e;

	if (r == NULL)
		return;
	n = lbt_hmap_count(r->keys);
	for (size_t i = 0; i < n; i++) {
		lbt_hmap_at(r->keys, i, &e);
		lbt_series_free(((struct keyval *)e.val)->s);
	}
	lbt_hmap_free(r->keys);
	lbt_series_free(r->all);
	for (size_t i = 0; i < r->nrows; i++)
		lbt_cp_result_free(&r->rows[i].cp);
	free(r->rows);
	free(r);
}
