/*
 * check_analysis.c - unit tests for lib/analysis/analysis.c and the merge
 * of every analysis (rate, offenders, tarpit with its occupancy): adding
 * every record to one accumulator must give exactly what adding two (or
 * three) parts to accumulators of their own and merging them gives, every
 * row field compared, on the real fixtures: contiguous cuts of one file at
 * many lines (requests crossing the cut), whole files split between the
 * parts, and records of two files interleaved record by record.
 */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/input.h"
#include "lbt/offenders.h"
#include "lbt/rate.h"
#include "lbt/tarpit.h"

#define INCIDENT LBT_TEST_DATA "/incident/haproxy-httplog.log.zst"
#define MAXREC 20000

/* ---- records kept in memory ------------------------------------------- */

#define CHUNK (1u << 20)

/* Records read once from fixtures, deep-copied (a record is a view). */
struct recs {
	lbt_rec *v;
	size_t n;
	char **owned;            /* chunks holding every copied string */
	size_t nowned, capowned;
	size_t used;             /* bytes used in the last chunk */
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

/* Append a deep copy of rec, its file renamed `file` when not NULL. */
static void push(struct recs *rs, const lbt_rec *rec, const char *file)
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
	if (file != NULL || r->file != NULL)
		r->file = keep(rs, file ? file : r->file, strlen(file ? file : r->file));
}

/* Read every record of the files paths[0..n) (format detected per file). */
static void load(struct recs *rs, const char *const *paths, size_t n)
{
	lbt_input_opts o = { 0 };
	lbt_input *in;
	lbt_rec *rec;
	lbt_err err;
	int r;

	memset(rs, 0, sizeof *rs);
	rs->v = calloc(MAXREC, sizeof *rs->v);
	ck_assert_ptr_nonnull(rs->v);
	o.now_us = INT64_C(1764489600) * 1000000;
	o.max_reported = -1;
	in = lbt_input_new(&o, &err);
	ck_assert_msg(in != NULL, "%s", err.msg);
	for (size_t i = 0; i < n; i++)
		lbt_input_add(in, paths[i]);
	while ((r = lbt_input_next(in, &rec, &err)) != 0)
		if (r == 1)
			push(rs, rec, NULL);
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

/* The real fixtures (HAProxy and NGINX, many formats), as paths. */
static size_t real_paths(const char **p)
{
	static const char *const names[] = {
		"haproxy-clf.log", "haproxy-compact.log", "haproxy-httplog-iso.log",
		"haproxy-httplog-local.log", "haproxy-httplog-priority.log",
		"haproxy-httplog-rfc3164.log", "haproxy-httplog-rfc5424.log",
		"haproxy-httplog-short.log", "haproxy-httplog-timed.log", "haproxy-httplog.log",
		"haproxy-httpslog.log", "haproxy-minimal.log", "haproxy-tcplog.log",
		"nginx-combined.log", "nginx-json.log", "nginx-main.log", "nginx-syslog.log",
	};
	static char buf[sizeof names / sizeof names[0]][256];
	size_t n = sizeof names / sizeof names[0];

	for (size_t i = 0; i < n; i++) {
		snprintf(buf[i], sizeof buf[i], "%s/real/%s", LBT_TEST_DATA, names[i]);
		p[i] = buf[i];
	}
	return n;
}

/* ---- splitting and merging, whatever the analysis --------------------- */

/* Which part record i of n goes to, for a split of the given kind. */
typedef int (*part_fn)(const struct recs *rs, size_t i, size_t arg);

/* Contiguous: records before index arg go to part 0. */
static int cut_at(const struct recs *rs, size_t i, size_t arg)
{
	(void)rs;
	return i >= arg;
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

/* Three contiguous parts: [0, arg), [arg, 2 arg), the rest. */
static int three(const struct recs *rs, size_t i, size_t arg)
{
	(void)rs;
	return i < arg ? 0 : i < 2 * arg ? 1 : 2;
}

/* Add every record of rs to a (its part, when part >= 0). */
static void feed(lbt_analysis *a, const struct recs *rs, part_fn fn, size_t arg, int part)
{
	for (size_t i = 0; i < rs->n; i++)
		if (part < 0 || fn(rs, i, arg) == part)
			ck_assert_int_eq(a->ops->add(a->acc, &rs->v[i]), 0);
}

/* Finish, failing the test on error. */
static void finish(lbt_analysis *a)
{
	lbt_err err;

	ck_assert_msg(a->ops->finish(a->acc, &err) == 0, "%s", err.msg);
}

/* One accumulator of every record, one of the `nparts` parts merged in
 * order (right-nested when `nested`: p0 <- (p1 <- p2)); both finished. */
static void all_and_parts(const lbt_analysis *proto, const struct recs *rs, part_fn fn,
    size_t arg, int nparts, int nested, lbt_analysis *all, lbt_analysis *merged)
{
	lbt_analysis p[3];
	lbt_err err;

	ck_assert_int_eq(lbt_analysis_spawn(proto, all, &err), 0);
	feed(all, rs, fn, arg, -1);
	finish(all);
	for (int k = 0; k < nparts; k++) {
		ck_assert_int_eq(lbt_analysis_spawn(proto, &p[k], &err), 0);
		feed(&p[k], rs, fn, arg, k);
	}
	if (nested && nparts == 3) {
		ck_assert_msg(lbt_analysis_merge(&p[1], &p[2], &err) == 0, "%s", err.msg);
		nparts = 2;
	}
	for (int k = 1; k < nparts; k++)
		ck_assert_msg(lbt_analysis_merge(&p[0], &p[k], &err) == 0, "%s", err.msg);
	finish(&p[0]);
	*merged = p[0];
}

/* Compare two strings that may be NULL. */
static void str_eq(const char *what, const char *a, const char *b)
{
	ck_assert_msg((a == NULL) == (b == NULL) && (a == NULL || strcmp(a, b) == 0),
	    "%s: '%s' != '%s'", what, a ? a : "(null)", b ? b : "(null)");
}

/* The change-point summaries of two rows (changepoint.h), field by field. */
static void cp_same(const lbt_cp_summary *a, const lbt_cp_summary *b)
{
	ck_assert(a->is_new == b->is_new && a->baseline == b->baseline);
	ck_assert(a->episodes == b->episodes && a->has_main == b->has_main);
	ck_assert(a->kind == b->kind && a->ongoing == b->ongoing);
	ck_assert(a->start == b->start && a->end == b->end);
	ck_assert(a->peak_rate == b->peak_rate && a->mean_rate == b->mean_rate);
	ck_assert(a->has_ratio == b->has_ratio && a->ratio == b->ratio);
}

/* ---- rate --------------------------------------------------------------- */

/* Every row, count and counter of two finished rate accumulators. */
static void rate_same(const lbt_rate *a, const lbt_rate *b)
{
	const lbt_rate_stats *x = lbt_rate_stats_get(a), *y = lbt_rate_stats_get(b);
	int64_t f1 = 0, l1 = 0, f2 = 0, l2 = 0;

	ck_assert_int_eq(memcmp(x, y, sizeof *x), 0);
	ck_assert_int_eq(lbt_rate_span(a, &f1, &l1), lbt_rate_span(b, &f2, &l2));
	ck_assert(f1 == f2 && l1 == l2);
	ck_assert_uint_eq(lbt_rate_nrows(a), lbt_rate_nrows(b));
	for (size_t i = 0; i < lbt_rate_nrows(a); i++) {
		const lbt_rate_row *r = lbt_rate_row_at(a, i), *s = lbt_rate_row_at(b, i);

		str_eq("key", r->key, s->key);
		ck_assert(r->total == s->total && r->first == s->first && r->last == s->last);
		ck_assert(r->peak_bucket == s->peak_bucket && r->peak_count == s->peak_count);
		ck_assert(r->peak_rate == s->peak_rate);
		cp_same(&r->cp, &s->cp);
		for (int64_t t = f1; t <= l1 && l1 - f1 < 100000; t++)
			ck_assert(lbt_rate_count(a, i, t) == lbt_rate_count(b, i, t));
	}
	for (int64_t t = f1; t <= l1 && l1 - f1 < 100000; t++)
		ck_assert(lbt_rate_total_count(a, t) == lbt_rate_total_count(b, t));
}

/* Rate by several --by values over rs, for a split. */
static void rate_check(const struct recs *rs, part_fn fn, size_t arg, int nparts, int nested)
{
	static const lbt_rate_by bys[] = { LBT_RATE_BY_KEY, LBT_RATE_BY_PATH, LBT_RATE_BY_SRC,
		LBT_RATE_BY_NET, LBT_RATE_BY_STATUS };

	for (size_t k = 0; k < sizeof bys / sizeof bys[0]; k++) {
		lbt_rate_opts o = LBT_RATE_OPTS_INIT;
		lbt_analysis proto, all, merged;
		lbt_err err;
		lbt_rate *r;

		o.by = bys[k];
		o.top = 0;
		o.net.v6_bits = 48;
		ck_assert_ptr_nonnull(r = lbt_rate_new(&o, &err));
		proto = lbt_rate_analysis(r);
		all_and_parts(&proto, rs, fn, arg, nparts, nested, &all, &merged);
		rate_same(all.acc, merged.acc);
		lbt_analysis_free(&all);
		lbt_analysis_free(&merged);
		lbt_analysis_free(&proto);
	}
}

/* The incident cut at many lines, the real files split by file. */
START_TEST(rate_merge_exact)
{
	const char *paths[32];
	struct recs rs;
	size_t n;

	load(&rs, (const char *[]){ INCIDENT }, 1);
	for (size_t k = 0; k <= rs.n; k += rs.n / 7 + 1)
		rate_check(&rs, cut_at, k, 2, 0);
	rate_check(&rs, three, rs.n / 3, 3, 0);
	rate_check(&rs, three, rs.n / 3, 3, 1);
	unload(&rs);
	n = real_paths(paths);
	load(&rs, paths, n);
	for (size_t salt = 0; salt < 4; salt++)
		rate_check(&rs, by_file, salt, 2, 0);
	rate_check(&rs, cut_at, rs.n / 2, 2, 0);
	unload(&rs);
}
END_TEST

/* ---- offenders ------------------------------------------------------------ */

/* Every row and counter of two finished offenders accumulators; key counts
 * are compared where one accumulator's are exact (no key approximate). */
static void offenders_same(const lbt_offenders *a, const lbt_offenders *b)
{
	const lbt_offenders_stats *x = lbt_offenders_stats_get(a), *y = lbt_offenders_stats_get(b);

	ck_assert_int_eq(memcmp(x, y, sizeof *x), 0);
	ck_assert_uint_eq(lbt_offenders_nrows(a), lbt_offenders_nrows(b));
	for (size_t i = 0; i < lbt_offenders_nrows(a); i++) {
		const lbt_offender *r = lbt_offenders_row_at(a, i), *s = lbt_offenders_row_at(b, i);
		int approx = 0;

		str_eq("source", r->source, s->source);
		ck_assert(r->requests == s->requests && r->share == s->share);
		ck_assert(r->peak_count == s->peak_count && r->peak_second == s->peak_second);
		ck_assert(r->addrs == s->addrs && r->addrs_capped == s->addrs_capped);
		ck_assert_int_eq(memcmp(r->status, s->status, sizeof r->status), 0);
		ck_assert(r->tarpitted == s->tarpitted && r->held_s == s->held_s);
		ck_assert(r->first_us == s->first_us && r->last_us == s->last_us);
		cp_same(&r->cp, &s->cp);
		str_eq("evidence", r->ev_file, s->ev_file);
		ck_assert_uint_eq(r->ev_line, s->ev_line);
		/* A source past LBT_OFF_TOPK keys may show only exact counts in one
		 * accumulator (its replaced counters are not among those shown) and an
		 * approximate one merged (a full part's smallest count stands for the
		 * keys it lost): both are space-saving bounds, not comparable. */
		for (int k = 0; k < r->nkeys; k++)
			approx |= r->keys[k].approx;
		for (int k = 0; k < s->nkeys; k++)
			approx |= s->keys[k].approx;
		if (approx)
			continue;
		ck_assert_int_eq(r->nkeys, s->nkeys);
		for (int k = 0; k < r->nkeys; k++) {
			str_eq("key", r->keys[k].key, s->keys[k].key);
			ck_assert(r->keys[k].count == s->keys[k].count && !s->keys[k].approx);
		}
	}
}

/* Offenders with and without --baseline, a small address cap, for a split.
 * The window overlaps both the incident (07:45:10..07:46:20) and the real
 * fixtures (07:49:44..07:50:04): one outside the input is an error. */
static void offenders_check(const struct recs *rs, part_fn fn, size_t arg, int nparts,
    int nested)
{
	for (int k = 0; k < 3; k++) {
		lbt_offenders_opts o = LBT_OFFENDERS_OPTS_INIT;
		lbt_analysis proto, all, merged;
		lbt_offenders *off;
		lbt_err err;

		o.top = 0;
		o.addr_cap = k == 2 ? 3 : 65536;
		o.net.v6_bits = k == 2 ? 32 : 64;
		o.baseline = k == 1 ? "07:45:00..07:49:50" : NULL;
		ck_assert_ptr_nonnull(off = lbt_offenders_new(&o, &err));
		proto = lbt_offenders_analysis(off);
		all_and_parts(&proto, rs, fn, arg, nparts, nested, &all, &merged);
		offenders_same(all.acc, merged.acc);
		lbt_analysis_free(&all);
		lbt_analysis_free(&merged);
		lbt_analysis_free(&proto);
	}
}

/* The incident cut at many lines, the real files split by file. */
START_TEST(offenders_merge_exact)
{
	const char *paths[32];
	struct recs rs;
	size_t n;

	load(&rs, (const char *[]){ INCIDENT }, 1);
	for (size_t k = 0; k <= rs.n; k += rs.n / 7 + 1)
		offenders_check(&rs, cut_at, k, 2, 0);
	offenders_check(&rs, three, rs.n / 3, 3, 0);
	offenders_check(&rs, three, rs.n / 3, 3, 1);
	unload(&rs);
	n = real_paths(paths);
	load(&rs, paths, n);
	for (size_t salt = 0; salt < 4; salt++)
		offenders_check(&rs, by_file, salt, 2, 0);
	offenders_check(&rs, cut_at, rs.n / 2, 2, 0);
	unload(&rs);
}
END_TEST

/* ---- tarpit and its occupancy ----------------------------------------- */

/* Two occupancies' buckets, periods and counters. */
static void occ_same(const lbt_occ *a, const lbt_occ *b)
{
	size_t n1, n2;
	const lbt_occ_bucket *x = lbt_occ_buckets(a, &n1), *y = lbt_occ_buckets(b, &n2);

	ck_assert_int_eq(memcmp(lbt_occ_stats_get(a), lbt_occ_stats_get(b),
	    sizeof(lbt_occ_stats)), 0);
	ck_assert_uint_eq(n1, n2);
	for (size_t i = 0; i < n1; i++)
		ck_assert_msg(memcmp(&x[i], &y[i], sizeof x[i]) == 0, "bucket %lld: max %d/%d "
		    "at %lld/%lld tp %d/%d nt %d/%d flags %u/%u", (long long)x[i].bucket, x[i].max,
		    y[i].max, (long long)x[i].max_at_us, (long long)y[i].max_at_us, x[i].max_tarpit,
		    y[i].max_tarpit, x[i].max_nt, y[i].max_nt, x[i].flags, y[i].flags);
	for (int w = 0; w < 2; w++) {
		const lbt_occ_period *p = lbt_occ_periods(a, w, &n1), *q = lbt_occ_periods(b, w, &n2);

		ck_assert_uint_eq(n1, n2);
		for (size_t i = 0; i < n1; i++)
			ck_assert_msg(memcmp(&p[i], &q[i], sizeof p[i]) == 0, "period %zu: %lld..%lld "
			    "/ %lld..%lld peak %d/%d", i, (long long)p[i].start_us,
			    (long long)p[i].end_us, (long long)q[i].start_us, (long long)q[i].end_us,
			    p[i].peak, q[i].peak);
	}
}

/* Two groups, field by field (strings by text, the occupancy by content). */
static void group_same(const lbt_tarpit_group *g, const lbt_tarpit_group *h)
{
	lbt_tarpit_group x = *g, y = *h;

	str_eq("lb", g->lb, h->lb);
	str_eq("frontend", g->frontend, h->frontend);
	str_eq("full evidence", g->full_file, h->full_file);
	occ_same(g->occ, h->occ);
	x.lb = y.lb = x.frontend = y.frontend = x.full_file = y.full_file = NULL;
	x.occ = y.occ = NULL;
	ck_assert_int_eq(memcmp(&x, &y, sizeof x), 0);
}

/* Every group, bucket, source, note and counter of two finished tarpits. */
static void tarpit_same(const lbt_tarpit *a, const lbt_tarpit *b)
{
	ck_assert_int_eq(memcmp(lbt_tarpit_stats_get(a), lbt_tarpit_stats_get(b),
	    sizeof(lbt_tarpit_stats)), 0);
	ck_assert_uint_eq(lbt_tarpit_ngroups(a), lbt_tarpit_ngroups(b));
	for (size_t i = 0; i < lbt_tarpit_ngroups(a); i++) {
		size_t n1, n2;
		const lbt_tarpit_bucket *x = lbt_tarpit_buckets(a, i, &n1);
		const lbt_tarpit_bucket *y = lbt_tarpit_buckets(b, i, &n2);

		group_same(lbt_tarpit_group_at(a, i), lbt_tarpit_group_at(b, i));
		ck_assert_uint_eq(n1, n2);
		for (size_t k = 0; k < n1; k++) {
			lbt_tarpit_bucket u = x[k], v = y[k];

			str_eq("fc evidence", u.fc_file, v.fc_file);
			u.fc_file = v.fc_file = NULL;
			ck_assert_int_eq(memcmp(&u, &v, sizeof u), 0);
		}
	}
	ck_assert_uint_eq(lbt_tarpit_nsources(a), lbt_tarpit_nsources(b));
	for (size_t i = 0; i < lbt_tarpit_nsources(a); i++) {
		lbt_tarpit_source u = *lbt_tarpit_source_at(a, i), v = *lbt_tarpit_source_at(b, i);

		str_eq("source evidence", u.file, v.file);
		u.file = v.file = NULL;
		ck_assert_int_eq(memcmp(&u, &v, sizeof u), 0);
	}
	ck_assert_uint_eq(lbt_tarpit_nnotes(a), lbt_tarpit_nnotes(b));
	for (size_t i = 0; i < lbt_tarpit_nnotes(a); i++)
		str_eq("note", lbt_tarpit_note_at(a, i)->text, lbt_tarpit_note_at(b, i)->text);
}

/* Tarpit with maxconn 20 (periods at >= 18) at two steps and windows. */
static void tarpit_check(const struct recs *rs, part_fn fn, size_t arg, int nparts,
    int nested)
{
	for (int k = 0; k < 3; k++) {
		lbt_tarpit_opts o = LBT_TARPIT_OPTS_INIT;
		lbt_analysis proto, all, merged;
		lbt_tarpit *t;
		lbt_err err;

		o.maxconn = k == 2 ? 0 : 20;
		o.step_us = k == 1 ? 1000000 : 10000000;
		o.window_us = k == 1 ? 5000000 : 60000000;
		ck_assert_ptr_nonnull(t = lbt_tarpit_new(&o, &err));
		proto = lbt_tarpit_analysis(t);
		all_and_parts(&proto, rs, fn, arg, nparts, nested, &all, &merged);
		tarpit_same(all.acc, merged.acc);
		lbt_analysis_free(&all);
		lbt_analysis_free(&merged);
		lbt_analysis_free(&proto);
	}
}

/* The incident (one file: one occupancy stream) cut at many lines, in
 * three parts both ways; the real files split by file and cut. */
START_TEST(tarpit_merge_exact)
{
	const char *paths[32];
	struct recs rs;
	size_t n;

	load(&rs, (const char *[]){ INCIDENT }, 1);
	for (size_t k = 0; k <= rs.n; k += rs.n / 9 + 1)
		tarpit_check(&rs, cut_at, k, 2, 0);
	tarpit_check(&rs, cut_at, 1, 2, 0);
	tarpit_check(&rs, cut_at, rs.n - 1, 2, 0);
	tarpit_check(&rs, three, rs.n / 3, 3, 0);
	tarpit_check(&rs, three, rs.n / 3, 3, 1);
	tarpit_check(&rs, three, 7, 3, 1);
	unload(&rs);
	n = real_paths(paths);
	load(&rs, paths, n);
	for (size_t salt = 0; salt < 2; salt++)
		tarpit_check(&rs, by_file, salt, 2, 0);
	for (size_t k = rs.n / 5; k < rs.n; k += rs.n / 5 + 1)
		tarpit_check(&rs, cut_at, k, 2, 0);
	unload(&rs);
}
END_TEST

/*
 * Records of two load balancers logged in one stream of time: the
 * incident's lines and the same lines as another file on another LB,
 * interleaved record by record, the parts by file; and the same
 * interleaved order cut at its middle (both parts hold both files).
 */
START_TEST(interleaved_files)
{
	struct recs one, rs;

	load(&one, (const char *[]){ INCIDENT }, 1);
	memset(&rs, 0, sizeof rs);
	rs.v = calloc(MAXREC, sizeof *rs.v);
	for (size_t i = 0; i < one.n && 2 * i + 1 < MAXREC; i++) {
		lbt_rec r = one.v[i];

		push(&rs, &one.v[i], NULL);
		r.lb = lbt_str_make("lb2", 3);
		r.have |= LBT_BIT(LBT_F_LB);
		r.time_us += 250000;
		push(&rs, &r, "other.log");
	}
	tarpit_check(&rs, by_file, 0, 2, 0);
	offenders_check(&rs, by_file, 0, 2, 0);
	rate_check(&rs, by_file, 0, 2, 0);
	tarpit_check(&rs, cut_at, rs.n / 2, 2, 0);
	unload(&rs);
	unload(&one);
}
END_TEST

/* ---- the interface itself --------------------------------------------- */

/* Fields are the union; a merge of two kinds is refused and frees src. */
START_TEST(interface)
{
	lbt_rate_opts ro = LBT_RATE_OPTS_INIT;
	lbt_offenders_opts oo = LBT_OFFENDERS_OPTS_INIT;
	lbt_analysis v[2], twin;
	lbt_err err;

	ro.by = LBT_RATE_BY_HOST;
	v[0] = lbt_rate_analysis(lbt_rate_new(&ro, &err));
	v[1] = lbt_offenders_analysis(lbt_offenders_new(&oo, &err));
	ck_assert(lbt_analysis_fields(v, 2) == (lbt_rate_fields(v[0].acc) |
	    lbt_offenders_fields(v[1].acc)));
	ck_assert(lbt_analysis_fields(v, 1) & LBT_BIT(LBT_F_HOST));
	ck_assert_int_eq(lbt_analysis_spawn(&v[1], &twin, &err), 0);
	ck_assert_int_eq(lbt_analysis_merge(&v[0], &twin, &err), -1);
	ck_assert_str_eq(err.msg, "merge: rate and offenders accumulators do not merge");
	ck_assert_ptr_null(twin.acc);
	lbt_analysis_free(&v[0]);
	lbt_analysis_free(&v[1]);
}
END_TEST

/*
 * A kind's properties come from its flags, not its name: offenders alone
 * is order-bound among the built-in kinds; a kind named "offenders"
 * without the flag is not, one of another name with it is.
 */
START_TEST(properties)
{
	static const lbt_analysis_ops named = { .name = "offenders" };
	static const lbt_analysis_ops flagged = { .name = "other",
		.flags = LBT_ANALYSIS_ORDER_BOUND };
	lbt_rate_opts ro = LBT_RATE_OPTS_INIT;
	lbt_offenders_opts oo = LBT_OFFENDERS_OPTS_INIT;
	lbt_tarpit_opts to = LBT_TARPIT_OPTS_INIT;
	lbt_analysis r, o, t;
	lbt_analysis fake_named = { &named, NULL }, fake_flagged = { &flagged, NULL };
	lbt_err err;

	r = lbt_rate_analysis(lbt_rate_new(&ro, &err));
	o = lbt_offenders_analysis(lbt_offenders_new(&oo, &err));
	t = lbt_tarpit_analysis(lbt_tarpit_new(&to, &err));
	ck_assert_ptr_nonnull(r.acc);
	ck_assert_ptr_nonnull(o.acc);
	ck_assert_ptr_nonnull(t.acc);
	ck_assert_str_eq(r.ops->name, "rate");
	ck_assert_str_eq(o.ops->name, "offenders");
	ck_assert_str_eq(t.ops->name, "tarpit");
	ck_assert_int_eq(lbt_analysis_order_bound(&r), 0);
	ck_assert_int_ne(lbt_analysis_order_bound(&o), 0);
	ck_assert_int_eq(lbt_analysis_order_bound(&t), 0);
	ck_assert_int_eq(lbt_analysis_order_bound(&fake_named), 0);
	ck_assert_int_ne(lbt_analysis_order_bound(&fake_flagged), 0);
	lbt_analysis_free(&r);
	lbt_analysis_free(&o);
	lbt_analysis_free(&t);
}
END_TEST

/*
 * The merge's precondition is asserted, and the builds keep asserts: a
 * merge of accumulators with different options (not twins) aborts.
 */
START_TEST(merge_precondition_asserted)
{
	lbt_rate_opts a = LBT_RATE_OPTS_INIT, b = LBT_RATE_OPTS_INIT;
	lbt_rate *x, *y;
	lbt_err err;

	b.step_us = a.step_us * 10;
	ck_assert_ptr_nonnull(x = lbt_rate_new(&a, &err));
	ck_assert_ptr_nonnull(y = lbt_rate_new(&b, &err));
	lbt_rate_merge(x, y, &err);          /* aborts: SIGABRT */
}
END_TEST

/* The suite. */
static Suite *analysis_suite(void)
{
	Suite *s = suite_create("analysis");
	TCase *tc = tcase_create("merge");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, interface);
	tcase_add_test(tc, properties);
	tcase_add_test_raise_signal(tc, merge_precondition_asserted, SIGABRT);
	tcase_add_test(tc, rate_merge_exact);
	tcase_add_test(tc, offenders_merge_exact);
	tcase_add_test(tc, tarpit_merge_exact);
	tcase_add_test(tc, interleaved_files);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite.  @return 0 when every test passed. */
int main(void)
{
	SRunner *sr = srunner_create(analysis_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
