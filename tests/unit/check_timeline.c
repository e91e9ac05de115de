/*
 * check_timeline.c - unit tests for lib/analysis/timeline*.c.
 *
 * Merge: adding every record to one accumulator must give exactly what
 * adding parts to twins and merging them gives (every event field, every
 * counter, every chart value): the incident capture (HAProxy's untimed
 * lines included) cut at many lines, in three parts nested both ways, and
 * the real fixtures split by file and cut; the parts of an input whose
 * halves are far apart in time (the automatic step widens in one part
 * only).
 *
 * Detectors: records built here with a known story (a flood from a new
 * source, refused and re-sent, that stops at once; a crash-looping server
 * and lines without a time between known neighbours; a load balancer that
 * stops while another takes its load; a frontend filling up to maxconn),
 * each expected time and number worked out by hand from how the records
 * were made.
 */
#include <check.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/input.h"
#include "lbt/timeline.h"

#define INCIDENT LBT_TEST_DATA "/incident/haproxy-httplog.log.zst"
#define MAXREC 20000
#define CHUNK (1u << 20)
#define T0 INT64_C(1796000000)
#define US(s) ((int64_t)((double)(s) * 1e6 + (s >= 0 ? 0.5 : -0.5)))

/* ---- records kept in memory ------------------------------------------- */

/* Records read once from fixtures, deep-copied (a record is a view). */
struct recs {
	lbt_rec *v;
	size_t n;
	char **owned;
	size_t nowned, capowned, used;
};

/* A copy of p[0..n), NUL-terminated, in rs's chunks.  @return it. */
static char *keep(struct recs *rs, const char *p, size_t n)
{
	char *c;

	ck_assert_uint_lt(n, CHUNK);
	if (rs->nowned == 0 || rs->used + n + 1 > CHUNK) {
		if (rs->nowned == rs->capowned) {
			rs->capowned = rs->capowned ? 2 * rs->capowned : 16;
			rs->owned = realloc(rs->owned, rs->capowned * sizeof *rs->owned);
			ck_assert_ptr_nonnull(rs->owned);
		}
		ck_assert_ptr_nonnull(rs->owned[rs->nowned++] = malloc(CHUNK));
		rs->used = 0;
	}
	c = rs->owned[rs->nowned - 1] + rs->used;
	memcpy(c, p, n);
	c[n] = '\0';
	rs->used += n + 1;
	return c;
}

/* Append a deep copy of rec. */
static void push(struct recs *rs, const lbt_rec *rec)
{
	lbt_rec *r;

	ck_assert_uint_lt(rs->n, MAXREC);
	r = &rs->v[rs->n++];
	*r = *rec;
	for (int f = 0; f < LBT_F_COUNT; f++) {
		lbt_str *s = lbt_rec_str(r, (lbt_field)f);

		if (s != NULL && s->p != NULL)
			s->p = keep(rs, s->p, s->n);
	}
	if (r->file != NULL)
		r->file = keep(rs, r->file, strlen(r->file));
}

/* Read every record and HAProxy line of paths[0..n). */
static void load(struct recs *rs, const char *const *paths, size_t n)
{
	lbt_input_opts o = { 0 };
	lbt_input *in;
	lbt_rec *rec;
	lbt_err err;
	int r;

	memset(rs, 0, sizeof *rs);
	ck_assert_ptr_nonnull(rs->v = calloc(MAXREC, sizeof *rs->v));
	o.now_us = INT64_C(1764489600) * 1000000;
	o.max_reported = -1;
	o.events = 1;
	ck_assert_msg((in = lbt_input_new(&o, &err)) != NULL, "%s", err.msg);
	for (size_t i = 0; i < n; i++)
		lbt_input_add(in, paths[i]);
	while ((r = lbt_input_next(in, &rec, &err)) != 0)
		if (r == 1)
			push(rs, rec);
	lbt_input_free(in);
	ck_assert_uint_gt(rs->n, 0);
}

/* Free what load() kept. */
static void unload(struct recs *rs)
{
	for (size_t i = 0; i < rs->nowned; i++)
		free(rs->owned[i]);
	free(rs->owned);
	free(rs->v);
}

/* The real fixtures (HAProxy and NGINX, many formats). */
static size_t real_paths(const char **p)
{
	static const char *const names[] = {
		"haproxy-clf.log", "haproxy-compact.log", "haproxy-httplog-iso.log",
		"haproxy-httplog-local.log", "haproxy-httplog-rfc3164.log",
		"haproxy-httplog-rfc5424.log", "haproxy-httplog.log", "haproxy-httpslog.log",
		"haproxy-mixed.log", "haproxy-tcplog.log", "nginx-combined.log", "nginx-json.log",
	};
	static char buf[sizeof names / sizeof names[0]][256];
	size_t n = sizeof names / sizeof names[0];

	for (size_t i = 0; i < n; i++) {
		snprintf(buf[i], sizeof buf[i], "%s/real/%s", LBT_TEST_DATA, names[i]);
		p[i] = buf[i];
	}
	return n;
}

/* ---- comparing two finished accumulators ------------------------------ */

/* Two strings that may be NULL. */
static void str_eq(const char *what, const char *a, const char *b)
{
	ck_assert_msg((a == NULL) == (b == NULL) && (a == NULL || strcmp(a, b) == 0),
	    "%s: '%s' != '%s'", what, a ? a : "(null)", b ? b : "(null)");
}

/* Two doubles, NaN equal to NaN. */
static void dbl_eq(const char *what, double a, double b)
{
	ck_assert_msg((isnan(a) && isnan(b)) || a == b, "%s: %.17g != %.17g", what, a, b);
}

/* Every field of two events. */
static void event_same(const lbt_tl_event *a, const lbt_tl_event *b)
{
	ck_assert_msg(a->kind == b->kind && a->what == b->what, "kind %s/%s at %lld",
	    lbt_tl_kind_name(a->kind), lbt_tl_kind_name(b->kind), (long long)a->time_us);
	str_eq("subject", a->subject, b->subject);
	str_eq("lb", a->lb, b->lb);
	ck_assert_msg(a->time_us == b->time_us && a->time_hi_us == b->time_hi_us &&
	    a->approx == b->approx, "%s %s: time %lld != %lld", lbt_tl_kind_name(a->kind),
	    a->subject, (long long)a->time_us, (long long)b->time_us);
	ck_assert(a->end_us == b->end_us && a->ongoing == b->ongoing && a->peak_us == b->peak_us);
	dbl_eq("from", a->from, b->from);
	dbl_eq("to", a->to, b->to);
	dbl_eq("peak", a->peak, b->peak);
	dbl_eq("ratio", a->ratio, b->ratio);
	dbl_eq("share", a->share_pct, b->share_pct);
	dbl_eq("period", a->period_s, b->period_s);
	str_eq("unit", a->unit, b->unit);
	ck_assert_msg(a->count == b->count && a->distinct == b->distinct, "%s %s: count %lld/%lld",
	    lbt_tl_kind_name(a->kind), a->subject, (long long)a->count, (long long)b->count);
	ck_assert(a->value == b->value && a->limit == b->limit);
	str_eq("other", a->other, b->other);
	str_eq("text", a->text, b->text);
	str_eq("evidence", a->ev_file, b->ev_file);
	ck_assert_msg(a->ev_line == b->ev_line, "%s %s: evidence line %llu != %llu",
	    lbt_tl_kind_name(a->kind), a->subject, (unsigned long long)a->ev_line,
	    (unsigned long long)b->ev_line);
}

/* Counters, events and charts of two finished accumulators. */
static void timeline_same(const lbt_timeline *a, const lbt_timeline *b)
{
	const lbt_timeline_stats *x = lbt_timeline_stats_get(a), *y = lbt_timeline_stats_get(b);

	ck_assert(x->records == y->records && x->requests == y->requests);
	ck_assert(x->events == y->events && x->no_time == y->no_time);
	ck_assert(x->events_dropped == y->events_dropped && x->lbs_other == y->lbs_other);
	ck_assert(x->first_us == y->first_us && x->last_us == y->last_us);
	ck_assert_msg(x->step_us == y->step_us, "step %lld != %lld", (long long)x->step_us,
	    (long long)y->step_us);
	ck_assert(x->nbuckets == y->nbuckets && x->first_bucket == y->first_bucket);
	ck_assert(x->incident_from == y->incident_from && x->incident_to == y->incident_to);
	for (int d = 0; d < 3; d++)
		ck_assert(x->approx[d] == y->approx[d] && x->distinct[d] == y->distinct[d]);
	ck_assert_uint_eq(lbt_timeline_nevents(a), lbt_timeline_nevents(b));
	for (size_t i = 0; i < lbt_timeline_nevents(a); i++)
		event_same(lbt_timeline_event_at(a, i), lbt_timeline_event_at(b, i));
	for (int c = 0; c < LBT_TL_NCHARTS; c++) {
		size_t n1, n2;
		const lbt_tl_series *s = lbt_timeline_chart(a, (lbt_tl_chart)c, &n1);
		const lbt_tl_series *t = lbt_timeline_chart(b, (lbt_tl_chart)c, &n2);

		ck_assert_uint_eq(n1, n2);
		for (size_t k = 0; k < n1; k++) {
			str_eq("series", s[k].name, t[k].name);
			ck_assert(memcmp(s[k].v, t[k].v, x->nbuckets * sizeof *s[k].v) == 0);
			if (c == LBT_TL_CH_SLOTS)
				ck_assert(lbt_timeline_slots_limit(a, k) == lbt_timeline_slots_limit(b, k));
		}
	}
}

/* ---- splitting and merging -------------------------------------------- */

typedef int (*part_fn)(const struct recs *rs, size_t i, size_t arg);

/* Contiguous: records before index arg go to part 0. */
static int cut_at(const struct recs *rs, size_t i, size_t arg)
{
	(void)rs;
	return i >= arg;
}

/* Three contiguous parts: [0, arg), [arg, 2 arg), the rest. */
static int three(const struct recs *rs, size_t i, size_t arg)
{
	(void)rs;
	return i < arg ? 0 : i < 2 * arg ? 1 : 2;
}

/* By file: the files whose name hashes odd (arg as salt) go to part 1. */
static int by_file(const struct recs *rs, size_t i, size_t arg)
{
	const char *f = rs->v[i].file ? rs->v[i].file : "";
	size_t h = arg;

	while (*f)
		h = h * 31 + (unsigned char)*f++;
	return (int)((h >> 3) & 1);
}

/* Add the records of part `part` (every one when part < 0). */
static void feed(lbt_timeline *tl, const struct recs *rs, part_fn fn, size_t arg, int part)
{
	for (size_t i = 0; i < rs->n; i++)
		if (part < 0 || fn(rs, i, arg) == part)
			ck_assert_int_eq(lbt_timeline_add(tl, &rs->v[i]), 0);
}

/* One accumulator of everything against `nparts` parts merged (right-nested
 * p0 <- (p1 <- p2) when nested), with options o. */
static void merge_check(const lbt_timeline_opts *o, const struct recs *rs, part_fn fn,
    size_t arg, int nparts, int nested)
{
	lbt_timeline *all, *p[3];
	lbt_err err;

	ck_assert_ptr_nonnull(all = lbt_timeline_new(o, &err));
	feed(all, rs, fn, arg, -1);
	ck_assert_int_eq(lbt_timeline_finish(all, &err), 0);
	for (int k = 0; k < nparts; k++) {
		ck_assert_ptr_nonnull(p[k] = lbt_timeline_spawn(all, &err));
		feed(p[k], rs, fn, arg, k);
	}
	if (nested && nparts == 3) {
		ck_assert_msg(lbt_timeline_merge(p[1], p[2], &err) == 0, "%s", err.msg);
		lbt_timeline_free(p[2]);
		nparts = 2;
	}
	for (int k = 1; k < nparts; k++) {
		ck_assert_msg(lbt_timeline_merge(p[0], p[k], &err) == 0, "%s", err.msg);
		lbt_timeline_free(p[k]);
	}
	ck_assert_int_eq(lbt_timeline_finish(p[0], &err), 0);
	timeline_same(all, p[0]);
	lbt_timeline_free(all);
	lbt_timeline_free(p[0]);
}

/* The options tried: defaults, a maxconn (saturation, alerts), a fixed step. */
static void opts_of(int k, lbt_timeline_opts *o)
{
	lbt_timeline_opts d = LBT_TIMELINE_OPTS_INIT;

	*o = d;
	if (k == 1)
		o->tarpit.maxconn = 20;
	if (k == 2)
		o->step_us = 10000000;
}

/* The incident cut at many lines and in three parts, every option set. */
START_TEST(merge_incident)
{
	struct recs rs;
	lbt_timeline_opts o;

	load(&rs, (const char *[]){ INCIDENT }, 1);
	for (int k = 0; k < 3; k++) {
		opts_of(k, &o);
		for (size_t c = 0; c <= rs.n; c += rs.n / 7 + 1)
			merge_check(&o, &rs, cut_at, c, 2, 0);
		merge_check(&o, &rs, cut_at, 1516, 2, 0);       /* at an untimed line */
		merge_check(&o, &rs, three, rs.n / 3, 3, 0);
		merge_check(&o, &rs, three, rs.n / 3, 3, 1);
	}
	unload(&rs);
}
END_TEST

/* The real fixtures by file and cut (their times lie far apart). */
START_TEST(merge_real)
{
	const char *paths[16];
	struct recs rs;
	lbt_timeline_opts o;

	load(&rs, paths, real_paths(paths));
	for (int k = 0; k < 2; k++) {
		opts_of(k, &o);
		for (size_t salt = 0; salt < 4; salt++)
			merge_check(&o, &rs, by_file, salt, 2, 0);
		merge_check(&o, &rs, cut_at, rs.n / 2, 2, 0);
	}
	unload(&rs);
}
END_TEST

/* ---- records built by hand ---------------------------------------------- */

/* Scratch strings of a built record (it points into them). */
struct built {
	lbt_rec r;
	char key[64], lb[16], msg[160], be[32], srv[32];
};

/*
 * An httplog request at T0 + t seconds (clock REQUEST, Ta 0: it ends at
 * its time), GET /ping/KEY from client, status, termination state, in
 * file `file` at `line`; lb and fc when given (NULL, -1: absent).
 */
static lbt_rec *req(struct built *b, double t, const char *client, const char *key,
    int status, const char *term, const char *lb, int fc, const char *file, uint64_t line)
{
	lbt_rec *r = &b->r;

	lbt_rec_clear(r);
	r->clock = LBT_CLOCK_REQUEST;
	r->time_us = US(T0 + t);
	ck_assert_int_eq(lbt_addr_parse(client, strlen(client), &r->client), 0);
	snprintf(b->key, sizeof b->key, "/ping/%s", key);
	r->path = lbt_str_make(b->key, strlen(b->key));
	r->key = lbt_str_make(b->key + 6, strlen(key));
	r->method = lbt_str_make("GET", 3);
	r->status = status;
	r->term = lbt_str_make(term, strlen(term));
	r->frontend = lbt_str_make("fe", 2);
	r->ta = 0;
	r->file = file;
	r->line = line;
	r->have = LBT_BIT(LBT_F_TIME) | LBT_BIT(LBT_F_CLIENT) | LBT_BIT(LBT_F_PATH) |
	    LBT_BIT(LBT_F_KEY) | LBT_BIT(LBT_F_METHOD) | LBT_BIT(LBT_F_STATUS) |
	    LBT_BIT(LBT_F_TERM) | LBT_BIT(LBT_F_FRONTEND) | LBT_BIT(LBT_F_TA) |
	    LBT_BIT(LBT_F_FILE) | LBT_BIT(LBT_F_LINE);
	if (lb != NULL) {
		snprintf(b->lb, sizeof b->lb, "%s", lb);
		r->lb = lbt_str_make(b->lb, strlen(b->lb));
		r->have |= LBT_BIT(LBT_F_LB);
	}
	if (fc >= 0) {
		r->fc = r->ac = fc;
		r->have |= LBT_BIT(LBT_F_FC) | LBT_BIT(LBT_F_AC);
	}
	return r;
}

/* An HAProxy line at T0 + t (t < 0: no time), about backend/server when given. */
static lbt_rec *line(struct built *b, double t, const char *msg, const char *be,
    const char *srv, const char *file, uint64_t ln)
{
	lbt_rec *r = &b->r;

	lbt_rec_clear(r);
	r->kind = LBT_KIND_EVENT;
	snprintf(b->msg, sizeof b->msg, "%s", msg);
	r->msg = lbt_str_make(b->msg, strlen(b->msg));
	r->file = file;
	r->line = ln;
	r->have = LBT_BIT(LBT_F_MSG) | LBT_BIT(LBT_F_FILE) | LBT_BIT(LBT_F_LINE);
	if (t >= 0) {
		r->time_us = US(T0 + t);
		r->clock = LBT_CLOCK_SYSLOG;
		r->have |= LBT_BIT(LBT_F_TIME);
	}
	if (be != NULL) {
		snprintf(b->be, sizeof b->be, "%s", be);
		r->backend = lbt_str_make(b->be, strlen(b->be));
		r->have |= LBT_BIT(LBT_F_BACKEND);
	}
	if (srv != NULL) {
		snprintf(b->srv, sizeof b->srv, "%s", srv);
		r->server = lbt_str_make(b->srv, strlen(b->srv));
		r->have |= LBT_BIT(LBT_F_SERVER);
	}
	return r;
}

/* A new accumulator with options o (NULL: defaults). */
static lbt_timeline *tl_new(const lbt_timeline_opts *o)
{
	lbt_timeline_opts d = LBT_TIMELINE_OPTS_INIT;
	lbt_timeline *tl;
	lbt_err err;

	ck_assert_msg((tl = lbt_timeline_new(o ? o : &d, &err)) != NULL, "%s", err.msg);
	return tl;
}

/* Add, failing on error. */
static void add(lbt_timeline *tl, const lbt_rec *r)
{
	ck_assert_int_eq(lbt_timeline_add(tl, r), 0);
}

/* Finish, failing on error. */
static void finish(lbt_timeline *tl)
{
	lbt_err err;

	ck_assert_msg(lbt_timeline_finish(tl, &err) == 0, "%s", err.msg);
}

/* The event of kind k about subject (NULL: any), or NULL. */
static const lbt_tl_event *find(const lbt_timeline *tl, lbt_tl_kind k, const char *subject)
{
	for (size_t i = 0; i < lbt_timeline_nevents(tl); i++) {
		const lbt_tl_event *e = lbt_timeline_event_at(tl, i);

		if (e->kind == k && (subject == NULL || strcmp(e->subject, subject) == 0))
			return e;
	}
	return NULL;
}

#define K1 "11111111-1111-1111-1111-111111111111"
#define K2 "22222222-2222-2222-2222-222222222222"

/*
 * 192.0.2.1 pings K1 twice a second for 120 s; from 60 s to 90 s a new
 * source, 198.51.100.7, sends K2 40 times a second and gets 429 every
 * time, then stops at once while 192.0.2.1 goes on.
 */
START_TEST(flood_story)
{
	lbt_timeline *tl = tl_new(NULL);
	struct built b;
	const lbt_tl_event *e;
	uint64_t ln = 1;

	for (int i = 0; i < 240; i++)
		add(tl, req(&b, i * 0.5, "192.0.2.1", K1, 200, "----", NULL, -1, "a.log", ln++));
	for (int i = 0; i < 1200; i++)
		add(tl, req(&b, 60 + i / 40.0, "198.51.100.7", K2, 429, "PR--", NULL, -1, "a.log",
		    ln++));
	finish(tl);
	ck_assert_int_eq(lbt_timeline_stats_get(tl)->step_us, 1000000);
	/* the new key and the new source: from 60 s to 90 s, 40 req/s */
	ck_assert_ptr_nonnull(e = find(tl, LBT_TL_RISE, K2));
	ck_assert(e->time_us == US(T0 + 60) && e->end_us == US(T0 + 90) && isnan(e->ratio));
	ck_assert(e->count == 1200 && fabs(e->to - 40) < 1e-9);
	ck_assert_str_eq(e->ev_file, "a.log");
	ck_assert_uint_eq(e->ev_line, 241);            /* its first request */
	ck_assert_ptr_nonnull(e = find(tl, LBT_TL_NEW_SOURCE, "198.51.100.7"));
	ck_assert(e->time_us == US(T0 + 60) && e->end_us == US(T0 + 90));
	ck_assert_ptr_null(find(tl, LBT_TL_RISE, K1));
	ck_assert_ptr_null(find(tl, LBT_TL_NEW_SOURCE, "192.0.2.1"));
	/* it stops at once: at its last request, 60 + 1199/40 s */
	ck_assert_ptr_nonnull(e = find(tl, LBT_TL_VANISH, "198.51.100.7"));
	ck_assert(e->time_us == US(T0 + 60 + 1199 / 40.0) && e->ev_line == 1440);
	ck_assert_ptr_null(find(tl, LBT_TL_VANISH, "192.0.2.1"));
	/* all 429: 40 of every 42 requests from 60 s to 90 s */
	ck_assert_ptr_nonnull(e = find(tl, LBT_TL_ERRORS, "429"));
	ck_assert(e->time_us == US(T0 + 60) && e->end_us == US(T0 + 90));
	ck_assert(fabs(e->share_pct - 100.0 * 40 / 42) < 1e-9 && e->count == 1200);
	ck_assert_ptr_nonnull(find(tl, LBT_TL_ERRORS_END, "429"));
	/* one request refused 1200 times is a flood (or a loop: the log cannot
	 * tell), not a re-sent set: no retry (it was x1200) */
	ck_assert_ptr_null(find(tl, LBT_TL_RETRY, "198.51.100.7"));
	/* all traffic 2 -> 42 req/s, and the end at 90 s */
	ck_assert_ptr_nonnull(e = find(tl, LBT_TL_RISE, "all"));
	ck_assert(e->time_us == US(T0 + 60) && fabs(e->from - 2) < 1e-9 &&
	    fabs(e->to - 42) < 1e-9 && fabs(e->ratio - 21) < 1e-9);
	ck_assert_ptr_nonnull(e = find(tl, LBT_TL_END, NULL));
	ck_assert(e->time_us == US(T0 + 90));
	ck_assert(lbt_timeline_stats_get(tl)->incident_from == US(T0 + 60));
	ck_assert(lbt_timeline_stats_get(tl)->incident_to == US(T0 + 90));
	ck_assert_ptr_null(find(tl, LBT_TL_SATURATION, NULL));      /* no maxconn known */
	lbt_timeline_free(tl);
}
END_TEST

/* The event of kind k about subject on load balancer lb (NULL: none), or NULL. */
static const lbt_tl_event *find_lb(const lbt_timeline *tl, lbt_tl_kind k, const char *subject,
    const char *lb, int64_t t_us)
{
	for (size_t i = 0; i < lbt_timeline_nevents(tl); i++) {
		const lbt_tl_event *e = lbt_timeline_event_at(tl, i);

		if (e->kind == k && strcmp(e->subject, subject) == 0 && e->time_us == t_us &&
		    (lb == NULL ? e->lb == NULL : e->lb != NULL && strcmp(e->lb, lb) == 0))
			return e;
	}
	return NULL;
}

/*
 * Two LBs, 2 requests a second each over 120 s (192.0.2.1 on lb1,
 * 192.0.2.2 on lb2); lb1 answers 503 ten times a second over 40..49.9 s
 * and 51..52.9 s and reloads at 50.5 s; lb2 answers 203.0.113.9 429 ten
 * times a second over 60..61.9 s.  By hand: lb1's 503s are one run cut
 * at the reload, [40, 50) with 100 and [51, 53) with 20; lb2's 429s one
 * run [60, 62) with 20, and the same 20 for the source.
 */
START_TEST(shed_per_lb)
{
	lbt_timeline *tl = tl_new(NULL);
	struct built b;
	const lbt_tl_event *e;
	uint64_t ln = 1;

	for (int k = 0; k < 240; k++) {
		add(tl, req(&b, k * 0.5, "192.0.2.1", K1, 200, "----", "lb1", -1, "s.log", ln++));
		add(tl, req(&b, k * 0.5 + 0.25, "192.0.2.2", K1, 200, "----", "lb2", -1, "s.log", ln++));
	}
	for (int k = 0; k < 100; k++)
		add(tl, req(&b, 40 + k * 0.1, "192.0.2.3", K2, 503, "LR--", "lb1", -1, "s.log", ln++));
	for (int k = 0; k < 20; k++) {
		add(tl, req(&b, 51 + k * 0.1, "192.0.2.3", K2, 503, "LR--", "lb1", -1, "s.log", ln++));
		add(tl, req(&b, 60 + k * 0.1, "203.0.113.9", K2, 429, "PR--", "lb2", -1, "s.log",
		    ln++));
	}
	line(&b, 50.5, "Proxy fe stopped (cumulated conns: FE: 1, BE: 0).", NULL, NULL, "s.log", ln++);
	b.r.frontend = lbt_str_make("fe", 2);
	b.r.lb = lbt_str_make("lb1", 3);
	b.r.have |= LBT_BIT(LBT_F_FRONTEND) | LBT_BIT(LBT_F_LB);
	add(tl, &b.r);
	finish(tl);
	ck_assert_ptr_nonnull(e = find_lb(tl, LBT_TL_ERRORS, "503", "lb1", US(T0 + 40)));
	ck_assert(e->count == 100 && e->end_us == US(T0 + 50));
	ck_assert_ptr_nonnull(e = find_lb(tl, LBT_TL_ERRORS, "503", "lb1", US(T0 + 51)));
	ck_assert(e->count == 20 && e->end_us == US(T0 + 53));
	ck_assert_ptr_nonnull(e = find_lb(tl, LBT_TL_ERRORS, "429", "lb2", US(T0 + 60)));
	ck_assert(e->count == 20 && e->end_us == US(T0 + 62));
	ck_assert_ptr_nonnull(e = find_lb(tl, LBT_TL_ERRORS, "203.0.113.9", NULL, US(T0 + 60)));
	ck_assert(e->what == LBT_TL_W_SOURCE && e->count == 20 && strcmp(e->other, "429") == 0);
	ck_assert_ptr_nonnull(e = find(tl, LBT_TL_RELOAD, "fe"));
	ck_assert(e->time_us == US(T0 + 50.5) && strcmp(e->lb, "lb1") == 0);
	ck_assert_ptr_null(find_lb(tl, LBT_TL_ERRORS, "503", "lb2", US(T0 + 40)));
	lbt_timeline_free(tl);
}
END_TEST

/*
 * Requests every 0.1 s at lines 1..300 (line n at n / 10 s) but line 200,
 * an untimed "Proxy fe stopped", and another after the last request at
 * line 400; be/app1 down at 10.5, 20.5, 30.5 s and up 5 s after each.
 */
START_TEST(lines_story)
{
	lbt_timeline *tl = tl_new(NULL);
	struct built b;
	const lbt_tl_event *e;

	for (uint64_t n = 1; n <= 300; n++)
		if (n != 200)
			add(tl, req(&b, (double)n / 10, "192.0.2.1", K1, 200, "----", NULL, -1, "b.log",
			    n));
	add(tl, line(&b, -1, "Proxy fe stopped (cumulated conns: FE: 1, BE: 0).", "fe", NULL,
	    "b.log", 200));
	add(tl, line(&b, -1, "Proxy fe stopped (cumulated conns: FE: 2, BE: 0).", "fe", NULL,
	    "b.log", 400));
	for (int k = 0; k < 3; k++) {
		add(tl, line(&b, 10.5 + 10 * k, "Server be/app1 is DOWN, reason: Layer4 timeout.",
		    "be", "app1", "b.log", 1000 + 2 * (uint64_t)k));
		add(tl, line(&b, 15.5 + 10 * k, "Server be/app1 is UP, reason: Layer4 check passed.",
		    "be", "app1", "b.log", 1001 + 2 * (uint64_t)k));
	}
	finish(tl);
	/* line 200 sits in block 12 (lines 192..207): between line 191 and line 208 */
	ck_assert_ptr_nonnull(e = find(tl, LBT_TL_RELOAD, "fe"));
	ck_assert(e->approx == 1 && e->time_us == US(T0 + 19.1) && e->time_hi_us == US(T0 + 20.8));
	ck_assert_uint_eq(e->ev_line, 200);
	/* line 400: after every request (the last at 30 s), nothing after it */
	ck_assert_ptr_nonnull(e = find(tl, LBT_TL_STOP, "fe"));
	ck_assert(e->approx == 1 && e->time_us == US(T0 + 30) && e->time_hi_us == LBT_TL_NONE);
	/* three DOWNs 10 s apart: a crash loop, and each DOWN and UP an event */
	ck_assert_ptr_nonnull(e = find(tl, LBT_TL_CRASH_LOOP, "be/app1"));
	ck_assert(e->count == 3 && e->time_us == US(T0 + 10.5) && e->end_us == US(T0 + 35.5));
	ck_assert(fabs(e->period_s - 10) < 1e-9 && e->ev_line == 1000);
	ck_assert_ptr_nonnull(e = find(tl, LBT_TL_SERVER_DOWN, "be/app1"));
	ck_assert(e->time_us == US(T0 + 10.5) && e->ev_line == 1000);
	ck_assert_ptr_nonnull(e = find(tl, LBT_TL_SERVER_UP, "be/app1"));
	ck_assert(e->time_us == US(T0 + 15.5) && e->ev_line == 1001);
	lbt_timeline_free(tl);
}
END_TEST

/* Two DOWNs are not a loop: one event a line. */
START_TEST(two_downs)
{
	lbt_timeline *tl = tl_new(NULL);
	struct built b;

	add(tl, req(&b, 0, "192.0.2.1", K1, 200, "----", NULL, -1, "c.log", 1));
	add(tl, line(&b, 1, "Server be/s is DOWN.", "be", "s", "c.log", 2));
	add(tl, line(&b, 2, "Server be/s is UP.", "be", "s", "c.log", 3));
	add(tl, line(&b, 3, "Server be/s is DOWN.", "be", "s", "c.log", 4));
	add(tl, line(&b, 4, "backend be has no server available!", "be", NULL, "c.log", 5));
	add(tl, line(&b, 5, "backend be has no server available!", "be", NULL, "c.log", 6));
	finish(tl);
	ck_assert_ptr_null(find(tl, LBT_TL_CRASH_LOOP, NULL));
	ck_assert_ptr_nonnull(find(tl, LBT_TL_SERVER_DOWN, "be/s"));
	ck_assert_ptr_nonnull(find(tl, LBT_TL_SERVER_UP, "be/s"));
	ck_assert_int_eq(find(tl, LBT_TL_NO_SERVER, "be")->count, 2);
	lbt_timeline_free(tl);
}
END_TEST

/* lb1 and lb2 at 5 req/s each for 60 s; then lb2 goes silent and lb1 takes
 * 10 req/s for 60 s more. */
START_TEST(lb_story)
{
	lbt_timeline *tl = tl_new(NULL);
	struct built b;
	const lbt_tl_event *e;
	uint64_t n1 = 1, n2 = 1;

	for (int i = 0; i < 300; i++) {
		add(tl, req(&b, i * 0.2, "192.0.2.1", K1, 200, "----", "lb1", -1, "lb1.log", n1++));
		add(tl, req(&b, i * 0.2 + 0.1, "192.0.2.2", K1, 200, "----", "lb2", -1, "lb2.log",
		    n2++));
	}
	for (int i = 0; i < 600; i++)
		add(tl, req(&b, 60 + i * 0.1, "192.0.2.1", K1, 200, "----", "lb1", -1, "lb1.log",
		    n1++));
	finish(tl);
	ck_assert_ptr_nonnull(e = find(tl, LBT_TL_LB_STOP, "lb2"));
	ck_assert(e->time_us == US(T0 + 59.9) && e->count == 300 && e->ev_line == 300);
	ck_assert_str_eq(e->other, "lb1");
	ck_assert_ptr_nonnull(e = find(tl, LBT_TL_LB_SHIFT, "lb2"));
	ck_assert(e->time_us == US(T0 + 60));
	ck_assert_str_eq(e->other, "lb1");
	ck_assert_ptr_null(find(tl, LBT_TL_LB_STOP, "lb1"));
	ck_assert_ptr_null(find(tl, LBT_TL_LB_GAP, NULL));
	lbt_timeline_free(tl);
}
END_TEST

/* A hole: lb2 silent from 20 s to 40 s while lb1 logs throughout. */
START_TEST(lb_gap)
{
	lbt_timeline *tl = tl_new(NULL);
	struct built b;
	const lbt_tl_event *e;
	uint64_t n1 = 1, n2 = 1;

	for (int i = 0; i < 600; i++) {
		add(tl, req(&b, i * 0.1, "192.0.2.1", K1, 200, "----", "lb1", -1, "lb1.log", n1++));
		if (i < 200 || i >= 400)
			add(tl, req(&b, i * 0.1 + 0.05, "192.0.2.2", K1, 200, "----", "lb2", -1,
			    "lb2.log", n2++));
	}
	finish(tl);
	ck_assert_ptr_nonnull(e = find(tl, LBT_TL_LB_GAP, "lb2"));
	ck_assert(e->time_us == US(T0 + 20) && e->end_us == US(T0 + 40));
	ck_assert(fabs(e->period_s - 20) < 1e-9 && e->ev_line == 201);
	ck_assert_ptr_null(find(tl, LBT_TL_LB_STOP, NULL));
	lbt_timeline_free(tl);
}
END_TEST

/* maxconn 10: fc 2 for 30 s, 8 at 30 s (the 80 % alert), 10 from 31 s to
 * 40 s (full: maxconn - 1), then 2 again. */
START_TEST(saturation_story)
{
	lbt_timeline_opts o = LBT_TIMELINE_OPTS_INIT;
	lbt_timeline *tl;
	struct built b;
	const lbt_tl_event *e;

	o.tarpit.maxconn = 10;
	tl = tl_new(&o);
	for (int t = 0; t <= 60; t++)
		add(tl, req(&b, t, "192.0.2.1", K1, 200, "----", NULL, t < 30 || t > 40 ? 2 :
		    t == 30 ? 8 : 10, "d.log", (uint64_t)t + 1));
	finish(tl);
	ck_assert_ptr_nonnull(e = find(tl, LBT_TL_ALERT, "fe"));
	ck_assert(e->time_us == US(T0 + 30) && e->value == 8 && e->limit == 10);
	ck_assert(e->peak_us == US(T0 + 31) && e->ev_line == 31);
	ck_assert_ptr_nonnull(e = find(tl, LBT_TL_SATURATION, "fe"));
	ck_assert(e->time_us == US(T0 + 31) && e->end_us == US(T0 + 41) && e->value == 10);
	ck_assert(e->limit == 10 && e->ev_line == 32);
	ck_assert_ptr_nonnull(e = find(tl, LBT_TL_SATURATION_END, "fe"));
	ck_assert(e->time_us == US(T0 + 41));
	lbt_timeline_free(tl);
}
END_TEST

/* A batch of 10 requests refused with 503 and re-sent 4 more times each,
 * 2 s apart: 40 refusals after the first of each over 10 refused, x4; a
 * source whose refused requests are never re-sent. */
START_TEST(batch_retries)
{
	lbt_timeline *tl = tl_new(NULL);
	struct built b;
	const lbt_tl_event *e;
	char key[40];
	uint64_t n = 1;

	for (int round = 0; round < 5; round++)
		for (int k = 0; k < 10; k++) {
			snprintf(key, sizeof key, "%08d-0000-0000-0000-000000000000", k);
			add(tl, req(&b, round * 2 + k * 0.01, "203.0.113.9", key, 503, "sC--", NULL, -1,
			    "e.log", n++));
			snprintf(key, sizeof key, "%08d-1111-0000-0000-000000000000", round * 10 + k);
			add(tl, req(&b, round * 2 + k * 0.01, "192.0.2.3", key, 429, "PR--", NULL, -1,
			    "e.log", n++));
		}
	finish(tl);
	ck_assert_ptr_nonnull(e = find(tl, LBT_TL_RETRY, "203.0.113.9"));
	ck_assert(e->count == 40 && e->distinct == 10 && e->ratio == 4);
	ck_assert(e->time_us == US(T0) && e->end_us == US(T0 + 8.09) && e->ev_line == 1);
	ck_assert_ptr_null(find(tl, LBT_TL_RETRY, "192.0.2.3"));
	lbt_timeline_free(tl);
}
END_TEST

/*
 * What is no re-send: 192.0.2.20 pings K1 every 2 s for 120 s and is
 * refused (429) once, at 60 s, then goes on; from 30 s 198.51.100.30
 * floods K2 at 20 a second, its first 10 let through, every later one
 * refused, until 60 s.  The pinger was refused once, the flood is one
 * request: no retry (the old count made the pinger x61 and the flood
 * x591, repeats of one URL).
 */
START_TEST(resent_cadence)
{
	lbt_timeline *tl = tl_new(NULL);
	struct built b;
	uint64_t ln = 1;

	for (int i = 0; i < 60; i++)
		add(tl, req(&b, i * 2.0, "192.0.2.20", K1, i == 30 ? 429 : 200, i == 30 ? "PR--" :
		    "----", NULL, -1, "c.log", ln++));
	for (int i = 0; i < 600; i++)
		add(tl, req(&b, 30 + i / 20.0, "198.51.100.30", K2, i < 10 ? 200 : 429,
		    i < 10 ? "----" : "PR--", NULL, -1, "c.log", ln++));
	finish(tl);
	ck_assert_ptr_null(find(tl, LBT_TL_RETRY, "192.0.2.20"));
	ck_assert_ptr_null(find(tl, LBT_TL_RETRY, "198.51.100.30"));
	lbt_timeline_free(tl);
}
END_TEST

/*
 * A customer at 1 request a second over 120 s but for 60..70 s, where its
 * requests are refused with 503 and it sends 50 a second (its batch of 5
 * keys every 0.1 s);
 * lb1 reloads at 65.5 s.  By hand: a retry storm at 50x its baseline of
 * 1 req/s, cut at the reload: [60, 65) and [65, 70), 250 requests each.
 */
START_TEST(storm_episodes)
{
	lbt_timeline *tl = tl_new(NULL);
	struct built b;
	const lbt_tl_event *e;
	uint64_t ln = 1;

	for (int t = 0; t < 120; t++)
		if (t < 60 || t >= 70)
			add(tl, req(&b, t, "198.51.100.7", K1, 200, "----", "lb1", -1, "r.log", ln++));
	for (int k = 0; k < 500; k++) {
		char key[40];

		snprintf(key, sizeof key, "%08d-3333-3333-3333-333333333333", k % 5);
		add(tl, req(&b, 60 + (k / 5) * 0.1, "198.51.100.7", key, 503, "sQ--", "lb1", -1,
		    "r.log", ln++));
	}
	line(&b, 65.5, "Proxy fe stopped (cumulated conns: FE: 1, BE: 0).", NULL, NULL, "r.log", ln++);
	b.r.frontend = lbt_str_make("fe", 2);
	b.r.lb = lbt_str_make("lb1", 3);
	b.r.have |= LBT_BIT(LBT_F_FRONTEND) | LBT_BIT(LBT_F_LB);
	add(tl, &b.r);
	finish(tl);
	ck_assert_ptr_nonnull(find(tl, LBT_TL_RETRY, "198.51.100.7"));
	ck_assert_ptr_nonnull(e = find_lb(tl, LBT_TL_RETRY_STORM, "198.51.100.7", NULL, US(T0 + 60)));
	ck_assert(e->count == 250 && e->end_us == US(T0 + 65));
	ck_assert(fabs(e->from - 1) < 1e-9 && fabs(e->to - 50) < 1e-9 && fabs(e->ratio - 50) < 1e-9);
	ck_assert_ptr_nonnull(e = find_lb(tl, LBT_TL_RETRY_STORM, "198.51.100.7", NULL, US(T0 + 65)));
	ck_assert(e->count == 250 && e->end_us == US(T0 + 70));
	lbt_timeline_free(tl);
}
END_TEST

/*
 * Background of 2 requests a second over 120 s; 192.0.2.50 sends 1 a
 * second from 2 s on but 30 a second over 60..80 s (it began with the
 * data: 2 expected before it, not improbable); 192.0.2.60 sends 10 a
 * second over 90..110 s (900 expected before it).  By hand: 192.0.2.60 is
 * a new source; 192.0.2.50 is not, and rises at 60 s to 30 req/s from
 * the 58 requests of the 60 s before (31x).
 */
START_TEST(new_means_absent)
{
	lbt_timeline *tl = tl_new(NULL);
	struct built b;
	const lbt_tl_event *e;
	uint64_t ln = 1;

	for (int k = 0; k < 240; k++)
		add(tl, req(&b, k * 0.5, "192.0.2.1", K1, 200, "----", NULL, -1, "n.log", ln++));
	for (int t = 2; t < 120; t++)
		for (int k = 0; k < (t >= 60 && t < 80 ? 30 : 1); k++)
			add(tl, req(&b, t + k * 0.03, "192.0.2.50", K2, 200, "----", NULL, -1, "n.log",
			    ln++));
	for (int k = 0; k < 200; k++)
		add(tl, req(&b, 90 + k * 0.1, "192.0.2.60", K2, 200, "----", NULL, -1, "n.log", ln++));
	finish(tl);
	ck_assert_ptr_null(find(tl, LBT_TL_NEW_SOURCE, "192.0.2.50"));
	ck_assert_ptr_nonnull(e = find(tl, LBT_TL_SOURCE_RISE, "192.0.2.50"));
	ck_assert(e->time_us == US(T0 + 60) && e->end_us == US(T0 + 80));
	ck_assert(fabs(e->from - 58.0 / 60) < 1e-9 && fabs(e->ratio - 30 / (58.0 / 60)) < 1e-9);
	ck_assert_ptr_nonnull(e = find(tl, LBT_TL_NEW_SOURCE, "192.0.2.60"));
	ck_assert(e->time_us == US(T0 + 90));
	lbt_timeline_free(tl);
}
END_TEST

/* The sketch is exact while it holds every value, and says so past that. */
START_TEST(sketch_bound)
{
	for (size_t track = 2; track <= 3; track++) {
		lbt_timeline_opts o = LBT_TIMELINE_OPTS_INIT;
		lbt_timeline *tl;
		struct built b;
		const char *keys[3] = { K1, K2, "33333333-3333-3333-3333-333333333333" };

		o.track = track;
		tl = tl_new(&o);
		for (int i = 0; i < 30; i++)
			add(tl, req(&b, i, "192.0.2.1", keys[i % 3], 200, "----", NULL, -1, "f.log",
			    (uint64_t)i + 1));
		finish(tl);
		ck_assert_int_eq(lbt_timeline_stats_get(tl)->approx[0], track < 3);
		ck_assert_uint_eq(lbt_timeline_stats_get(tl)->distinct[0], track);
		lbt_timeline_free(tl);
	}
}
END_TEST

/* The automatic step: 1 s up to 4096 buckets, then 5 s; merged parts far
 * apart in time agree with one accumulator. */
START_TEST(auto_step)
{
	static const struct {
		double last;
		int64_t step;
	} c[] = { { 4095, 1000000 }, { 4096, 5000000 }, { 7200, 5000000 },
		{ 86400, 30000000 } };
	struct built b;

	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		lbt_timeline *tl = tl_new(NULL), *p = tl_new(NULL), *q = tl_new(NULL);
		lbt_err err;

		for (int k = 0; k < 20; k++) {
			double t = k < 10 ? k : c[i].last - 19 + k;
			lbt_rec *r = req(&b, t, "192.0.2.1", K1, 200, "----", NULL, -1, "g.log",
			    (uint64_t)k + 1);

			add(tl, r);
			add(k < 10 ? p : q, r);
		}
		ck_assert_int_eq(lbt_timeline_merge(p, q, &err), 0);
		lbt_timeline_free(q);
		finish(tl);
		finish(p);
		ck_assert_int_eq(lbt_timeline_stats_get(tl)->step_us, c[i].step);
		timeline_same(tl, p);
		lbt_timeline_free(tl);
		lbt_timeline_free(p);
	}
}
END_TEST

/* Bad options, nothing counted. */
START_TEST(errors)
{
	lbt_timeline_opts o = LBT_TIMELINE_OPTS_INIT;
	lbt_timeline *a;
	lbt_err err;

	o.ratio = 1;
	ck_assert_ptr_null(lbt_timeline_new(&o, &err));
	ck_assert_str_eq(err.msg, "--ratio: must be greater than 1");
	o.ratio = 20;
	o.alert_pct = 0;
	ck_assert_ptr_null(lbt_timeline_new(&o, &err));
	ck_assert_str_eq(err.msg, "--alert-pct: must be in 1..100");
	a = tl_new(NULL);
	finish(a);
	ck_assert_uint_eq(lbt_timeline_nevents(a), 0);
	ck_assert_int_eq(lbt_timeline_stats_get(a)->incident_from, LBT_TL_NONE);
	ck_assert_int_eq(lbt_timeline_add(a, &(lbt_rec){ 0 }), -1);      /* after finish */
	lbt_timeline_free(a);
}
END_TEST

/* Merging unlike twins breaks the merge's precondition (analysis.h): it
 * aborts, where a build without asserts would refuse it with an error. */
START_TEST(merge_unlike_aborts)
{
	lbt_timeline_opts o = LBT_TIMELINE_OPTS_INIT;
	lbt_timeline *a, *b;
	lbt_err err;

	a = tl_new(NULL);
	o.ratio = 20;
	o.alert_pct = 90;
	ck_assert_ptr_nonnull(b = lbt_timeline_new(&o, &err));
	lbt_timeline_merge(a, b, &err);      /* aborts: SIGABRT */
}
END_TEST

/* The suite. */
static Suite *timeline_suite(void)
{
	Suite *s = suite_create("timeline");
	TCase *m = tcase_create("merge"), *d = tcase_create("detect");

	tcase_set_timeout(m, 600);
	tcase_add_test(m, merge_incident);
	tcase_add_test(m, merge_real);
	tcase_add_test(d, flood_story);
	tcase_add_test(d, lines_story);
	tcase_add_test(d, shed_per_lb);
	tcase_add_test(d, two_downs);
	tcase_add_test(d, lb_story);
	tcase_add_test(d, lb_gap);
	tcase_add_test(d, saturation_story);
	tcase_add_test(d, batch_retries);
	tcase_add_test(d, storm_episodes);
	tcase_add_test(d, resent_cadence);
	tcase_add_test(d, new_means_absent);
	tcase_add_test(d, sketch_bound);
	tcase_add_test(d, auto_step);
	tcase_add_test(d, errors);
	tcase_add_test_raise_signal(d, merge_unlike_aborts, SIGABRT);
	suite_add_tcase(s, m);
	suite_add_tcase(s, d);
	return s;
}

/* Run the suite.  @return 0 when every test passed. */
int main(void)
{
	SRunner *sr = srunner_create(timeline_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
