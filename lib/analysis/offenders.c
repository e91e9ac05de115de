/*
 * offenders.c - requests per source network (see offenders.h).
 *
 * Sources live in an hmap keyed by the 17 bytes of their network address;
 * each holds a 1 s tally (tally.h: 2 bytes a request while small),
 * counters, the set of the client addresses seen (addrset.h: the lower
 * halves, the first one inline, so a lone IPv4 source never allocates)
 * and LBT_OFF_TOPK space-saving counters over interned key numbers.
 * Keys and file names are interned once in their own maps, so a source
 * stores 4-byte numbers, never strings.  The ranking, thresholds and the
 * change points of the rows (offenders_changes.c) happen in finish().
 *
 * Nothing printed depends on the order the records come in (a raw log is in
 * the order requests ended, files are read one after the other, the index
 * gives time order): counts, sums, minima and maxima are order-free; the
 * peak second is the earliest of the busiest; keys of equal count are
 * listed by their text; and the evidence is the source's first request, the
 * smallest by (time, file name, line) (evidence.h).  A request of the peak
 * second would need a minimum kept per second of every source, as the peak
 * second is known only at the end; the first request costs one compare.
 * Only the space-saving counts of a source hitting more than LBT_OFF_TOPK
 * keys (printed "~N", upper bounds) can depend on the order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/num.h"
#include "lbt/timeparse.h"
#include "lbt/topn.h"
#include "offenders_int.h"

/* --by text to the enum.  @return 0, or -1 with err listing the values. */
int lbt_off_by_parse(const char *s, lbt_off_by *by, lbt_err *err)
{
	static const char *const names[] = { "requests", "rate", "held", "ratio" };

	for (int i = 0; i < 4; i++)
		if (strcmp(s, names[i]) == 0) {
			*by = (lbt_off_by)i;
			return 0;
		}
	return lbt_err_set(err, "--by: '%s' is not one of requests, rate, held, ratio", s);
}

/* lbt_cli_fn for --by.  @return 0 or -1 with err. */
int lbt_offenders_opt_by(void *opts, const char *arg, lbt_err *err)
{
	return lbt_off_by_parse(arg, &((lbt_offenders_opts *)opts)->by, err);
}

/* lbt_cli_fn for --min-rate.  @return 0 or -1 with err. */
int lbt_offenders_opt_min_rate(void *opts, const char *arg, lbt_err *err)
{
	return lbt_num_parse_double(arg, 0, 0, 1e12, "--min-rate",
	    &((lbt_offenders_opts *)opts)->min_rate, err);
}

/* lbt_cli_fn for --min-share.  @return 0 or -1 with err. */
int lbt_offenders_opt_min_share(void *opts, const char *arg, lbt_err *err)
{
	return lbt_num_parse_double(arg, 0, 0, 100, "--min-share",
	    &((lbt_offenders_opts *)opts)->min_share, err);
}

/* @return the fields read (time, client, status, term, Tw, key, path,
 * provenance): the same whatever the options. */
uint64_t lbt_offenders_fields(const lbt_offenders *o)
{
	(void)o;
	return LBT_BIT(LBT_F_TIME) | LBT_BIT(LBT_F_CLIENT) | LBT_BIT(LBT_F_STATUS) |
	    LBT_BIT(LBT_F_TERM) | LBT_BIT(LBT_F_TW) | LBT_BIT(LBT_F_KEY) |
	    LBT_BIT(LBT_F_PATH) | LBT_BIT(LBT_F_FILE) | LBT_BIT(LBT_F_LINE) |
	    LBT_BIT(LBT_F_CLIENT_FROM) | LBT_BIT(LBT_F_CONN);
}

/* "HH:MM" or "HH:MM:SS" in s[0..n) to seconds of the day.  @return 0 or -1. */
static int parse_tod(const char *s, size_t n, int64_t *sec)
{
	int v[3] = { 0, 0, 0 }, k = 0;

	if (n != 5 && n != 8)
		return -1;
	for (size_t i = 0; i < n; i += 3, k++) {
		if (s[i] < '0' || s[i] > '9' || s[i + 1] < '0' || s[i + 1] > '9')
			return -1;
		if (i + 2 < n && s[i + 2] != ':')
			return -1;
		v[k] = (s[i] - '0') * 10 + (s[i + 1] - '0');
	}
	if (v[0] > 23 || v[1] > 59 || v[2] > 60)
		return -1;
	*sec = v[0] * 3600 + v[1] * 60 + v[2];
	return 0;
}

/* One side of --baseline: ISO time (µs) or time of day (s, *tod = 1). */
static int parse_when(const char *s, size_t n, int64_t *v, int *tod)
{
	*tod = 0;
	if (lbt_time_parse_iso(s, n, NULL, v) == 0)
		return 0;
	*tod = 1;
	return parse_tod(s, n, v);
}

/* Parse --baseline "FROM..TO" into o.  @return 0 or -1 with err. */
static int parse_baseline(lbt_offenders *o, const char *s, lbt_err *err)
{
	const char *dots = strstr(s, "..");
	int t1, t2;

	if (dots == NULL || parse_when(s, (size_t)(dots - s), &o->base_from, &t1) < 0 ||
	    parse_when(dots + 2, strlen(dots + 2), &o->base_to, &t2) < 0)
		return lbt_err_set(err, "--baseline: '%s' is not FROM..TO (ISO 8601 times "
		    "or HH:MM[:SS])", s);
	if (!t1 && !t2 && o->base_to <= o->base_from)
		return lbt_err_set(err, "--baseline: '%s' ends before it starts", s);
	o->base_tod = t1 | t2 << 1;
	return 0;
}

/* Check the options.  @return 0 or -1 with err. */
static int check_opts(lbt_offenders *o, const lbt_offenders_opts *op, lbt_err *err)
{
	if (!(op->min_rate >= 0))
		return lbt_err_set(err, "--min-rate: must not be negative");
	if (!(op->min_share >= 0 && op->min_share <= 100))
		return lbt_err_set(err, "--min-share: must be a percentage in 0..100");
	if (op->jump_min_us < 0)
		return lbt_err_set(err, "--jump-min: must not be negative");
	if (lbt_cp_opts_check(&op->cp, err) < 0)
		return -1;
	if (op->baseline != NULL)
		return parse_baseline(o, op->baseline, err);
	return 0;
}

/* An empty accumulator for checked options (--baseline parsed now).
 * @return it, or NULL with err. */
lbt_offenders *lbt_offenders_new(const lbt_offenders_opts *op, lbt_err *err)
{
	lbt_offenders *o = calloc(1, sizeof(*o));

	if (o == NULL) {
		lbt_err_set(err, "out of memory");
		return NULL;
	}
	if (check_opts(o, op, err) < 0) {
		free(o);
		return NULL;
	}
	o->o = *op;
	o->o.baseline = NULL;        /* parsed; not kept (borrowed memory) */
	o->st.baseline = op->baseline ? 2 : 0;
	o->srcs = lbt_hmap_new_fixed(sizeof(lbt_addr), sizeof(struct src_entry));
	o->keys = lbt_hmap_new(sizeof(uint32_t));
	o->files = lbt_hmap_new(sizeof(uint32_t));
	o->all = lbt_series_new(SEC);
	if (o->srcs == NULL || o->keys == NULL || o->files == NULL || o->all == NULL) {
		lbt_offenders_free(o);
		lbt_err_set(err, "out of memory");
		return NULL;
	}
	return o;
}

/* Number of the record's key (or path), interned.  @return 1 with *id,
 * 0 when the record has neither, -1 when out of memory. */
static int key_id(lbt_offenders *o, const lbt_rec *rec, uint32_t *id)
{
	lbt_str k;

	if ((rec->have & LBT_BIT(LBT_F_KEY)) && rec->key.n > 0)
		k = rec->key;
	else if ((rec->have & LBT_BIT(LBT_F_PATH)) && rec->path.n > 0)
		k = rec->path;
	else
		return 0;
	return lbt_offendersi_key_intern(o, k.p, k.n, id) < 0 ? -1 : 1;
}

/* The number of key text p[0..n), interned when new.  @return 0 with *id,
 * or -1 when out of memory. */
int lbt_offendersi_key_intern(lbt_offenders *o, const char *p, size_t n, uint32_t *id)
{
	uint32_t *v;
	int created;

	if ((v = lbt_hmap_put(o->keys, p, n, &created)) == NULL)
		return -1;
	if (created)
		*v = (uint32_t)(lbt_hmap_count(o->keys) - 1);
	*id = *v;
	return 0;
}

/* The second of one record of source s, in its tally and in the whole's
 * series (the peak is read in finish()).  @return 0 or -1 (no memory). */
static int count_second(lbt_offenders *o, struct src *s, const lbt_rec *rec)
{
	int64_t b = lbt_bucket_of(rec->time_us, SEC);

	if (lbt_tally_add(&s->sec, b, 1) < 0 || lbt_series_add_bucket(o->all, b, 1) < 0)
		return -1;
	o->extra += 3;                   /* 2 bytes a request and the growth's slack */
	return 0;
}

/* Keep rec as the evidence of s when it comes before the current one by
 * (time, file name, line); called before rec is counted, so the current
 * one's time is s->first_us.  @return 0 or -1 (out of memory). */
static int count_evidence(lbt_offenders *o, struct src *s, const lbt_rec *rec)
{
	lbt_evidence ev;

	if (s->requests > 0 && rec->time_us > s->first_us)   /* the usual case */
		return 0;
	ev = lbt_offendersi_evidence(o, s);
	if (!lbt_evidence_better(&ev, rec))
		return 0;
	s->ev_line = rec->line;
	return lbt_offendersi_file_id(o, rec->file, &s->ev_file);
}

/* Everything but the seconds about one record of source s of network
 * net.  @return 0 or -1 (out of memory). */
static int count_rest(lbt_offenders *o, struct src *s, const lbt_rec *rec, const lbt_addr *net)
{
	uint32_t id;
	int k;

	if (s->requests == 0 || rec->time_us < s->first_us)
		s->first_us = rec->time_us;
	if (s->requests == 0 || rec->time_us > s->last_us)
		s->last_us = rec->time_us;
	s->requests++;
	if (rec->have & LBT_BIT(LBT_F_STATUS))
		s->status[lbt_offendersi_status_class(rec->status)]++;
	s->from_header += (uint64_t)lbt_offendersi_from_header(rec);
	s->slow += (uint64_t)lbt_offendersi_slow(rec);
	if (rec->have & LBT_BIT(LBT_F_CONN))
		lbt_offendersi_via(s, &rec->conn, 0);
	if (lbt_offendersi_tarpitted(rec)) {
		s->tarpitted++;
		if ((rec->have & LBT_BIT(LBT_F_TW)) && rec->tw > 0)
			s->held_ms += rec->tw;
	}
	uint64_t net_hi, hi, lo;

	memcpy(&net_hi, net->b, 8);
	memcpy(&hi, rec->client.b, 8);
	memcpy(&lo, rec->client.b + 8, 8);
	uint32_t had = s->addrs.n;

	if (lbt_addrset_add(&s->addrs, net_hi, hi, lo, o->o.addr_cap) < 0 ||
	    (k = key_id(o, rec, &id)) < 0)
		return -1;
	if (s->addrs.n != had)
		o->extra += 10;          /* a stored address, the growth's slack */
	if (k == 1)
		lbt_offendersi_topk_add(&s->top, id);
	return 0;
}

/* Keep rec, the first request of its new source e (net), inline when it
 * fits (offenders_state.c) and has no connecting address beside its client
 * (the full state keeps that one, `via`).  @return 1 when kept, 0 when it
 * needs the full state, -1 when out of memory. */
static int add_first(lbt_offenders *o, struct src_entry *e, const lbt_rec *rec,
    const lbt_addr *net)
{
	uint32_t key = NO_KEY, file;
	int k;

	if (!lbt_offendersi_fits(rec, net) || (rec->have & LBT_BIT(LBT_F_CONN)))
		return 0;
	if ((k = key_id(o, rec, &key)) < 0 || lbt_offendersi_file_id(o, rec->file, &file) < 0 ||
	    lbt_series_add_bucket(o->all, lbt_bucket_of(rec->time_us, SEC), 1) < 0)
		return -1;
	lbt_offendersi_keep_one(e, rec, k == 1 ? key : NO_KEY, file);
	return 1;
}

/* Count rec for its source.  @return 0, or -1 when out of memory (sticky). */
int lbt_offenders_add(lbt_offenders *o, const lbt_rec *rec)
{
	lbt_addr net;
	lbt_hmap_entry he;
	struct src *s;
	int created, k = 0;

	o->st.records++;
	if (o->failed)
		return -1;
	if (!(rec->have & LBT_BIT(LBT_F_TIME))) {
		o->st.no_time++;
		return 0;
	}
	if (!(rec->have & LBT_BIT(LBT_F_CLIENT)) ||
	    lbt_netgroup_of(&o->o.net, &rec->client, &net, NULL) < 0) {
		o->st.no_client++;
		return 0;
	}
	if (rec->have & LBT_BIT(LBT_F_CLIENT_FROM)) {
		o->st.from_header += rec->client_from == LBT_FROM_HEADER;
		o->st.header_aside += rec->client_from == LBT_FROM_CONN;
		o->st.from_trusted += rec->client_from == LBT_FROM_TRUSTED;
	}
	if ((he.val = lbt_hmap_put(o->srcs, &net, sizeof(net), &created)) == NULL ||
	    (created && o->st.floor == 0 && (k = add_first(o, he.val, rec, &net)) < 0))
		return o->failed = -1;
	if (k == 1) {
		o->st.counted++;
		return lbt_offendersi_budget(o) < 0 ? (o->failed = -1) : 0;
	}
	he.key = &net;
	if ((s = lbt_offendersi_full_of(o, &he, created)) == NULL)
		return o->failed = -1;
	if (created)
		s->err = o->st.floor;      /* it may have been dropped with as many */
	if (count_second(o, s, rec) < 0 || count_evidence(o, s, rec) < 0 ||
	    count_rest(o, s, rec, &net) < 0)
		return o->failed = -1;
	o->st.counted++;
	return lbt_offendersi_budget(o) < 0 ? (o->failed = -1) : 0;
}

/* Compare two numbers for a descending order. */
static int desc(double x, double y)
{
	return (x < y) - (x > y);
}

/* Ranking order under --by; requests, then the network bytes, break ties. */
static int rank_cmp(const lbt_hmap_entry *a, const lbt_hmap_entry *b, void *ctx)
{
	const lbt_offenders *o = ctx;
	struct src_rank x = lbt_offendersi_rank(a), y = lbt_offendersi_rank(b);
	int c = 0;

	switch (o->o.by) {
	case LBT_OFF_BY_RATE:
		c = desc((double)x.peak_count, (double)y.peak_count);
		break;
	case LBT_OFF_BY_HELD:
		if ((c = desc((double)x.held_ms, (double)y.held_ms)) == 0)
			c = desc((double)x.tarpitted, (double)y.tarpitted);
		break;
	case LBT_OFF_BY_RATIO:
		if ((c = desc(x.rank_class, y.rank_class)) == 0 && x.rank_class > 0)
			c = desc(x.rank_rate, y.rank_rate);
		break;
	default:
		break;
	}
	if (c == 0)
		c = desc((double)x.requests, (double)y.requests);
	return c ? c : memcmp(a->key, b->key, sizeof(lbt_addr));
}

/* Text of key number id (the map's NUL-terminated copy). */
static const char *key_text(const lbt_offenders *o, uint32_t id)
{
	lbt_hmap_entry e;

	lbt_hmap_at(o->keys, id, &e);
	return e.key;
}

/* Fill the reported keys of a row from a source's counters: by count,
 * equal counts by key text (not by key number, which is the order keys
 * were first seen in). */
static void row_keys(const lbt_offenders *o, const struct topk *t, lbt_offender *r)
{
	int used[LBT_OFF_TOPK] = { 0 };

	for (r->nkeys = 0; r->nkeys < LBT_OFF_SHOWKEYS && (uint32_t)r->nkeys < t->n; r->nkeys++) {
		int best = -1;

		for (int i = 0; i < (int)t->n; i++)
			if (!used[i] && (best < 0 || t->cnt[i] > t->cnt[best] ||
			    (t->cnt[i] == t->cnt[best] &&
			    strcmp(key_text(o, t->id[i]), key_text(o, t->id[best])) < 0)))
				best = i;
		used[best] = 1;
		r->keys[r->nkeys] = (lbt_off_key){ key_text(o, t->id[best]), t->cnt[best],
		    t->err[best] > 0 };
	}
}

/* Build the public row of a ranked source, its change points too.
 * @return 0 or -1 (out of memory). */
static int fill_row(lbt_offenders *o, const lbt_hmap_entry *e, struct row *row)
{
	struct src *s = lbt_offendersi_full(o, e);
	lbt_offender *r = &row->pub;

	memset(row, 0, sizeof(*row));
	if (s == NULL)
		return -1;
	row->src = s;
	lbt_tally_peak(&s->sec, &r->peak_second, &r->peak_count);
	memcpy(&r->net, e->key, sizeof(r->net));
	r->source = lbt_netgroup_format(&o->o.net, &r->net, row->text, sizeof row->text);
	r->requests = s->requests;
	r->share = (double)s->requests * 100 / (double)o->st.counted;
	r->addrs = lbt_addrset_count(&s->addrs, &r->addrs_approx);
	r->addrs_capped = s->addrs.capped;
	r->requests_err = s->err;
	row_keys(o, &s->top, r);
	memcpy(r->status, s->status, sizeof(r->status));
	r->tarpitted = s->tarpitted;
	r->slow = s->slow;
	r->from_header = s->from_header;
	r->via = s->via;
	r->via_many = s->via_many;
	r->held_s = (double)s->held_ms / 1000;
	r->first_us = s->first_us;
	r->last_us = s->last_us;
	r->ev_file = lbt_offendersi_file_name(o, s->ev_file);
	r->ev_line = s->ev_line;
	if (o->o.geoip != NULL)
		lbt_geoip_lookup(o->o.geoip, &r->net, &r->geo);
	return lbt_offendersi_row_changes(o, s, row);
}

/* True when a source passes --min-rate and --min-share (an lbt_hmap_pred). */
static int kept(const lbt_hmap_entry *e, void *ctx)
{
	const lbt_offenders *o = ctx;
	struct src_rank s = lbt_offendersi_rank(e);

	return (double)s.peak_count >= o->o.min_rate &&
	    (double)s.requests * 100 / (double)o->st.counted >= o->o.min_share;
}

/* Rank, filter and keep the top rows: selection of the first --top of
 * the sources kept (topn.h), not a sort of them all.
 * @return 0 or -1 (out of memory). */
static int make_rows(lbt_offenders *o)
{
	size_t n;
	lbt_hmap_entry *top = lbt_hmap_top(o->srcs, o->o.top, rank_cmp, kept, o, &n, &o->st.kept);

	if (top == NULL)
		return -1;
	if (n > 0 && (o->rows = calloc(n, sizeof(*o->rows))) == NULL) {
		free(top);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (fill_row(o, &top[i], &o->rows[o->nrows++]) < 0) {
			free(top);
			return -1;
		}
	free(top);
	return 0;
}

/* What the ranking reads of every source of many requests, in its map
 * entry: its busiest second's count, read in its tally, and no rise yet
 * (--by ratio's, offenders_changes.c). */
static void settle_ranks(lbt_offenders *o)
{
	lbt_hmap_entry he;
	int64_t bucket;

	for (size_t i = 0; i < lbt_hmap_count(o->srcs); i++) {
		struct src_entry *e;

		lbt_hmap_at(o->srcs, i, &he);
		if ((e = he.val)->full == NULL)
			continue;
		if (lbt_tally_peak(&e->full->sec, &bucket, &e->peak_count) < 0)
			e->peak_count = 0;
		e->rank_rate = 0;
		e->rank_class = 0;
	}
}

/* Shares, ranking, thresholds, change points and GeoIP, once.
 * @return 0, or -1 with err. */
int lbt_offenders_finish(lbt_offenders *o, lbt_err *err)
{
	int64_t gfirst, glast;

	if (o->failed)
		return lbt_err_set(err, "out of memory");
	if (o->finished)
		return 0;
	o->finished = 1;
	o->st.sources = lbt_hmap_count(o->srcs);
	if (lbt_series_span(o->all, &gfirst, &glast) < 0)
		return 0;
	settle_ranks(o);
	if (o->st.baseline == 0)
		o->st.baseline = 1;
	if (lbt_offendersi_changes_setup(o, gfirst, glast, err) < 0)
		return -1;
	if ((o->o.by == LBT_OFF_BY_RATIO && lbt_offendersi_rank_ratio(o) < 0) || make_rows(o) < 0)
		return lbt_err_set(err, "out of memory");
	return 0;
}

/* @return the number of rows after finish(). */
size_t lbt_offenders_nrows(const lbt_offenders *o)
{
	return o->nrows;
}

/* @return row i, or NULL past the end. */
const lbt_offender *lbt_offenders_row_at(const lbt_offenders *o, size_t i)
{
	return i < o->nrows ? &o->rows[i].pub : NULL;
}

/* @return row i's change points with their origin second, or NULL. */
const lbt_cp_result *lbt_offenders_changes(const lbt_offenders *o, size_t i, int64_t *origin)
{
	if (i >= o->nrows)
		return NULL;
	*origin = o->cp_origin;
	return &o->rows[i].cp;
}

/* Row i's requests a second over the span, malloc'ed.  @return them, or NULL */
int64_t *lbt_offenders_seconds(const lbt_offenders *o, size_t i, int64_t *origin, size_t *n)
{
	if (i >= o->nrows || o->rows[i].src == NULL || o->cp_last < o->cp_origin)
		return NULL;
	*origin = o->cp_origin;
	*n = (size_t)(o->cp_last - o->cp_origin + 1);
	return lbt_tally_dense(&o->rows[i].src->sec, o->cp_origin, o->cp_last);
}

/* @return the counters and the --baseline window (owned by o). */
const lbt_offenders_stats *lbt_offenders_stats_get(const lbt_offenders *o)
{
	return &o->st;
}

/* @return the options o was made with. */
const lbt_offenders_opts *lbt_offenders_opts_get(const lbt_offenders *o)
{
	return &o->o;
}

/* The non-zero status classes as "name:count" words.  @return buf */
const char *lbt_offender_status_str(const lbt_offender *r, char *buf, size_t size)
{
	static const char *const names[LBT_OFF_NSTATUS] = {
		"2xx", "3xx", "4xx", "429", "5xx", "-1", "other"
	};
	size_t len = 0;

	if (size == 0)
		return buf;
	buf[0] = '\0';
	for (int i = 0; i < LBT_OFF_NSTATUS && len < size; i++)
		if (r->status[i] > 0)
			len += (size_t)snprintf(buf + len, size - len, "%s%s:%llu", len ? " " : "",
			    names[i], (unsigned long long)r->status[i]);
	return buf;
}

/* The reported keys as "key:count" words, "~" for upper bounds.
 * @return buf */
const char *lbt_offender_keys_str(const lbt_offender *r, char *buf, size_t size)
{
	size_t len = 0;

	if (size == 0)
		return buf;
	buf[0] = '\0';
	for (int i = 0; i < r->nkeys && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s:%s%llu", i ? " " : "",
		    r->keys[i].key, r->keys[i].approx ? "~" : "",
		    (unsigned long long)r->keys[i].count);
	return buf;
}

/* Free every source's series and address table, the maps and rows;
 * NULL accepted. */
void lbt_offenders_free(lbt_offenders *o)
{
	if (o == NULL)
		return;
	lbt_offendersi_free_state(o);
	lbt_hmap_free(o->srcs);
	lbt_hmap_free(o->keys);
	lbt_hmap_free(o->files);
	lbt_series_free(o->all);
	for (size_t i = 0; i < o->nrows; i++)
		lbt_cp_result_free(&o->rows[i].cp);
	free(o->rows);
	free(o);
}
